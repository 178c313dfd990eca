"""level-times: what a level costs on this host, against the floor its
checks set: each configuration runs `ctest -j<N> -L <level labels>` (warm:
once before timing, so lists and the waiver verdict are kept), and the floor
runs each suite binary once with all of its tests (the plain binary and its
loopback twin, N at a time), the least any harness can spend on the same
checks. Configurations and the floor alternate, `--repeats` times, so that a
drift in host load does not favour one; medians of wall and CPU seconds
(user + system of everything ctest ran) are printed as a Markdown table for
docs/measurements.md. Reported, never asserted: timing is not a pass/fail
test.

  tdc level-times --build-dir BUILD [--devices 2,8] [--levels 1,2]
                 [--isolate auto,check] [--repeats 3] [--jobs 2]
Exit status: 0 when every run finished (whatever it took), 1 when one
failed, 2 bad input."""
import os
import resource
import statistics
import subprocess
import sys
import time

from tdc import cli, levels
from tdc.errors import InputError

# The suites whose checks make up level 2 (suites/CMakeLists.txt; copies_long
# is label `long`, left out as `-LE long` leaves it out).
SUITES = ("aliasing", "backward", "concurrency", "copies", "dtypes", "events", "forward", "generators",
          "guard", "memory", "mismatch_guard", "placement", "selection", "serialization", "streams")


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command, env):
    """(wall seconds, CPU seconds, exit status) of one command and everything it ran."""
    cpu, started = children_cpu(), time.monotonic()
    run = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return time.monotonic() - started, children_cpu() - cpu, run.returncode, run.stderr


def level_command(build_dir, level, jobs):
    return ["ctest", "--test-dir", build_dir, "-j", str(jobs), "-L", levels.LABELS[level], "-LE", "long|level3"]


def floor_command(build_dir, jobs):
    """Every suite binary once, all of its tests, `jobs` at a time."""
    loopback = os.path.join(build_dir, "lib", "libtdc_loopback.so")
    lines = []
    for suite in SUITES:
        binary = os.path.join(build_dir, "bin", f"tdc_{suite}")
        lines.append(f"'{binary}' --gtest_filter=-*Masked* >/dev/null 2>&1")
        lines.append(f"TDC_BACKEND_LIBS='{loopback}' TDC_DEVICES=privateuseone TDC_EXPECT=privateuseone:2 "
                     f"'{binary}_with_loopback' >/dev/null 2>&1")
    script = "printf '%s\\n' " + " ".join(f'"{line}"' for line in lines) + f" | xargs -P{jobs} -I{{}} sh -c '{{}}'"
    return ["sh", "-c", script]


def parser():
    p = cli.Parser("level-times", __doc__)
    p.add_argument("--build-dir", required=True, help="a built TDC tree")
    p.add_argument("--devices", default="2,8", help="loopback device counts (TDC_LOOPBACK_DEVICES), comma-separated")
    p.add_argument("--levels", default="1,2", help="levels to time, comma-separated")
    p.add_argument("--isolate", default="auto", help="TDC_ISOLATE values, comma-separated")
    p.add_argument("--repeats", type=cli.whole(1, 50), default=3, help="runs of each (default 3)")
    p.add_argument("--jobs", type=cli.whole(1, 256), default=os.cpu_count() or 1, help="ctest -j")
    return p


def numbers(text, what, allowed=None):
    try:
        values = [int(v) for v in text.split(",") if v]
    except ValueError:
        raise InputError(f"--{what}={text!r}: expected comma-separated whole numbers")
    if not values or (allowed and any(v not in allowed for v in values)):
        raise InputError(f"--{what}={text!r}: expected some of {sorted(allowed) if allowed else 'whole numbers'}")
    return values


def run(argv):
    args = parser().parse_args(argv)
    build_dir = os.path.abspath(args.build_dir)
    if not os.path.isfile(os.path.join(build_dir, "CTestTestfile.cmake")):
        raise InputError(f"no TDC build at {args.build_dir}")
    devices = numbers(args.devices, "devices")
    chosen_levels = numbers(args.levels, "levels", {1, 2, 3})
    modes = [m for m in args.isolate.split(",") if m]
    configurations = []
    for count in devices:
        configurations.append(("floor", count, None, None))
        configurations += [(f"level {level}", count, level, mode) for level in chosen_levels for mode in modes]
    samples = {c: [] for c in configurations}
    base = {k: v for k, v in os.environ.items() if not k.startswith("TDC_")}
    for repeat in range(args.repeats + 1):  # the first round warms lists and verdicts
        for configuration in configurations:
            name, count, level, mode = configuration
            env = dict(base, TDC_LOOPBACK_DEVICES=str(count), TDC_ISOLATE=mode or "auto")
            command = floor_command(build_dir, args.jobs) if level is None else level_command(build_dir, level, args.jobs)
            wall, cpu, status, err = timed(command, env)
            if status != 0 and level is not None:
                lines = [l for l in err.splitlines() if l.strip()]
                print(f"level-times: {name} with {count} devices ({mode}) exited {status}: "
                      f"{lines[-1] if lines else ''}", file=sys.stderr)
                return 1
            if repeat:
                samples[configuration].append((wall, cpu))
    floors = {c[1]: statistics.median(w for w, _ in samples[c]) for c in configurations if c[2] is None}
    print(f"| run | loopback devices | TDC_ISOLATE | wall s (median of {args.repeats}) | CPU s | wall / floor |")
    print("|---|---|---|---|---|---|")
    for configuration in configurations:
        name, count, level, mode = configuration
        wall = statistics.median(w for w, _ in samples[configuration])
        cpu = statistics.median(c for _, c in samples[configuration])
        print(f"| {name} | {count} | {mode or '-'} | {wall:.1f} | {cpu:.1f} | {wall / floors[count]:.2f} |")
    return 0


def main(argv=None):
    return cli.run_main("level-times", run, argv)


if __name__ == "__main__":
    sys.exit(main())
