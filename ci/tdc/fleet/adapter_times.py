"""The node adapters' wall time, idle and with busy loops holding the cores
(issue 32, item 5). Measured, never asserted: it prints figures.

  python3 -m tdc.fleet.adapter_times --build-dir BUILD [--calls 20] [--busy 0,2]
      [--modes detached,recorded,run,background] [--loopback-devices N]
Each mode is node_check as an adapter runs it, through ci/fleet/common.sh,
against BUILD's loopback, in a fresh state folder, without --drain (no Slurm
here: the drain adds one sinfo and at most one scontrol call):
  detached  HealthCheckProgram, NHC's check_tdc, npd: the recorded verdict
  recorded  the Prolog: the recorded verdict and the device list
  run       the Epilog: level 1 now
  background  the level-1 run a detached hook starts (run here in the
            foreground, to be timed: the same run under the node's lock)
--loopback-devices N: the loopback's device count (TDC_LOOPBACK_DEVICES,
default 2).
One level-1 run records the verdict first. --busy N starts N `yes` loops
(stopped by PID) for that round. Prints, per round and mode, p50 and p95 of
the calls' wall seconds and the 1-minute load average before and after.
Run it under `flock /tmp/tdc-heavy.lock` so nothing else of ours runs.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

from tdc import ROOT, cli
from tdc.errors import InputError
from tdc.fleet import node_check

COMMON = os.path.join(ROOT, "ci", "fleet", "common.sh")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def call(mode, env):
    started = time.monotonic()
    done = subprocess.run(["bash", "-c", f'source "{COMMON}"; tdc_node_check --mode={mode}'],
                          env=env, capture_output=True, text=True, timeout=900)
    return time.monotonic() - started, done


def body(argv):
    parser = cli.Parser("adapter_times", __doc__)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--calls", type=cli.whole(1, 1000), default=20)
    parser.add_argument("--busy", default="0,2", help="busy-loop counts, one round each (default 0,2)")
    parser.add_argument("--modes", default="detached,recorded,run")
    parser.add_argument("--loopback-devices", type=cli.whole(1, 64), default=2)
    args = parser.parse_args(argv)
    build = os.path.abspath(args.build_dir)
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in node_check.MODES]
    if unknown or not modes:
        raise InputError(f"--modes={args.modes}: expected some of {', '.join(node_check.MODES)}")
    rounds = [cli.whole(0, 64)(n) for n in args.busy.split(",") if n]
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TDC_")}
        env.update(TDC_ROOT=ROOT, TDC_BUILD_DIR=build, TDC_HEALTH_STATE=os.path.join(tmp, "state"),
                   TDC_FLEET_CONF=os.path.join(tmp, "none.conf"), TDC_HEALTH_BUDGET="120",
                   TDC_BACKEND_LIBS=os.path.join(build, "lib", "libtdc_loopback.so"),
                   TDC_LOOPBACK_DEVICES=str(args.loopback_devices))
        seconds, done = call("run", env)
        print(f"recording run: {done.stdout.strip()[:100]} ({seconds:.1f} s)", flush=True)
        if not done.stdout.startswith("healthy"):
            print("adapter_times: the recording run is not healthy: figures would time a drain", file=sys.stderr)
            return 1
        for busy in rounds:
            loops = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(busy)]
            try:
                for mode in modes:
                    before = os.getloadavg()[0]
                    times, lines = [], set()
                    for _ in range(args.calls):
                        seconds, done = call(mode, env)
                        times.append(seconds)
                        lines.add(done.stdout.split(":")[0])
                    print(f"busy={busy} mode={mode} devices={args.loopback_devices} calls={len(times)} p50={statistics.median(times):.2f}s "
                          f"p95={percentile(times, 0.95):.2f}s max={max(times):.2f}s "
                          f"load1 {before:.1f}->{os.getloadavg()[0]:.1f} verdicts={sorted(lines)}", flush=True)
            finally:
                for loop in loops:
                    loop.kill()
                    loop.wait()
    return 0


def main(argv=None):
    return cli.run_main("adapter_times", body, argv)


if __name__ == "__main__":
    sys.exit(main())
