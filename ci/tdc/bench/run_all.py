"""run-benchmarks: the benchmark step of CI: runs tdc_bench_transfer and tdc_bench_forward
(on this host's devices, and again with the loopback backend loaded when
BUILD/lib has it), with --with-collectives tdc_bench_collectives too (level 3's
bandwidth sweep: a world of rank processes per device type, so not at every
level), measures the cold start, checks bench/thresholds.json and plots the
bandwidth. Everything lands in --out; a short summary is printed.

Exit status: 0 when all ran and passed; 1 on a verification failure, a
threshold violation or a program that failed; 2 on bad arguments.
"""
import glob
import os
import subprocess
import sys
import time

from tdc import ROOT, cli, verbs
from tdc.bench import results as bench_results

# The measured programs: each writes <name less tdc_bench_>_<run tag>.json
# (transfer_host.json, collectives_loopback.json), which the threshold
# check here and the level-3 qualification gate read (results_files).
PROGRAMS = ("tdc_bench_transfer", "tdc_bench_forward")
COLLECTIVES = "tdc_bench_collectives"


def results_file(out_dir, program, tag):
    return os.path.join(out_dir, f"{program.replace('tdc_bench_', '')}_{tag}.json")


def results_files(out_dir):
    """Every measured program's results in out_dir, of every run tag."""
    return sorted(path for program in PROGRAMS + (COLLECTIVES,)
                  for path in glob.glob(results_file(out_dir, program, "*")))


def run_logged(cmd, env, log):
    started = time.monotonic()
    with open(log, "w") as f:
        code = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
    what = cmd[3] if cmd[1:3] == ["-m", "tdc"] else os.path.basename(cmd[0])  # a verb, or a program
    print(f"  {what}: exit {code}, "
          f"{time.monotonic() - started:.1f} s (log: {log})")
    return code


def run(argv):
    parser = cli.Parser("run_all", __doc__)
    parser.add_argument("--build-dir", required=True, help="a built tree (bin/tdc_bench_*)")
    parser.add_argument("--out", required=True, help="the folder for the results")
    parser.add_argument("--quick", action="store_true", help="reduced sizes and cases (CI)")
    parser.add_argument("--with-loopback", action="store_true",
                        help="also run with BUILD/lib/libtdc_loopback.so loaded, if built")
    parser.add_argument("--with-collectives", action="store_true",
                        help="also run tdc_bench_collectives (level 3 does)")
    parser.add_argument("--thresholds", default=os.path.join(ROOT, "bench", "thresholds.json"),
                        help="per-device thresholds (default bench/thresholds.json)")
    parser.add_argument("--plot-python", default=sys.executable,
                        help="a python with matplotlib for the bandwidth plot (Debian's: /usr/bin/python3)")
    parser.add_argument("--threads", type=cli.whole(0, 1024), default=1,
                        help="intra-op threads (OMP_NUM_THREADS) for the programs; 0 keeps "
                             "LibTorch's default. One keeps shared CI hosts comparable.")
    parser.add_argument("--cold-start-runs", type=cli.whole(1, 1000), default=None,
                        help="cold starts to measure (default 3 quick, 10 full)")
    parser.add_argument("--repetitions", type=cli.whole(1, 1000), default=10,
                        help="repetitions of each benchmark, interleaved with the others, so that a "
                             "shared runner's load shows as spread (tdc compare needs 10; default 10)")
    args = parser.parse_args(argv)

    bin_dir = os.path.join(args.build_dir, "bin")
    measured = list(PROGRAMS) + ([COLLECTIVES] if args.with_collectives else [])
    programs = {p: os.path.join(bin_dir, p) for p in measured + ["tdc_cold_start"]}
    missing = [p for p in programs.values() if not os.access(p, os.X_OK)]
    if missing:
        print(f"run_all: not built: {', '.join(missing)}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)

    env = dict(os.environ)
    if args.threads > 0:
        env["OMP_NUM_THREADS"] = str(args.threads)

    # (tag, extra arguments, the run's own settings that replace the user's).
    # The host run is the user's: their backend libraries, devices and
    # expectation (a vendor's level 3 benchmarks the vendor's device).
    runs = [("host", [], {})]
    loopback = os.path.join(args.build_dir, "lib", "libtdc_loopback.so")
    if args.with_loopback:
        if os.path.exists(loopback):
            # The build's own reference run, like the loopback twins: only the
            # loopback, whatever the user loaded or expects; cpu was covered
            # by the host run.
            runs.append(("loopback", [f"--backend-lib={loopback}"],
                         {"TDC_BACKEND_LIBS": None, "TDC_DEVICES": None, "TDC_EXPECT": None}))
        else:
            print(f"run_all: {loopback} not built; skipping the loopback run")

    failed, results = [], []
    quick = ["--tdc-quick"] if args.quick else []
    quick += [f"--benchmark_repetitions={args.repetitions}", "--benchmark_enable_random_interleaving=true"]
    for tag, extra, own_settings in runs:
        run_env = dict(env)
        for name, value in own_settings.items():
            if value is None:
                run_env.pop(name, None)
            else:
                run_env[name] = value
        skip_cpu = ["--benchmark_filter=-/cpu/"] if tag != "host" else []
        for program in measured:
            out = results_file(args.out, program, tag)
            cmd = [programs[program], *quick, *extra, *skip_cpu,
                   f"--benchmark_out={out}", "--benchmark_out_format=json"]
            code = run_logged(cmd, run_env, os.path.join(args.out, f"{program}_{tag}.log"))
            if code != 0:
                failed.append(f"{program} ({tag}) exited {code}")
            if os.path.exists(out):
                results.append(out)
        runs_n = args.cold_start_runs or (3 if args.quick else 10)
        cold_start, cold_env = verbs.child("cold-start", env=run_env)
        code = run_logged([*cold_start, "--exe", programs["tdc_cold_start"], "--runs", str(runs_n),
                           "--out", os.path.join(args.out, f"cold_start_{tag}.json"), "--", *extra],
                          cold_env, os.path.join(args.out, f"cold_start_{tag}.log"))
        if code != 0:
            failed.append(f"cold start ({tag}) exited {code}")

    thresholds, tool_env = verbs.child("check-thresholds", env=env)
    code = run_logged([*thresholds, "--require-thresholds", "--thresholds", args.thresholds, *results],
                      tool_env, os.path.join(args.out, "thresholds.txt"))
    if code != 0:
        failed.append("threshold check failed")
    transfers = [r for r in results if os.path.basename(r).startswith("transfer_")]
    if transfers:
        plot_log = os.path.join(args.out, "plot.log")
        plot, plot_env = verbs.child("plot-bandwidth", python=args.plot_python, env=env)
        code = run_logged([*plot, *transfers, "--out", os.path.join(args.out, "bandwidth.svg")], plot_env,
                          plot_log)
        if code != 0:  # every result is kept; only the picture is missing, and that is said
            said = [line for line in open(plot_log, errors="replace").read().splitlines() if line.strip()]
            print(f"  bandwidth plot NOT made: {said[-1] if said else f'exit {code}'}")

    print_summary(results, args.out)
    for line in failed:
        print(f"FAILED: {line}")
    return 1 if failed else 0


def print_summary(results, out_dir):
    rows = bench_results.load_all(results)
    transfers = [r for r in rows if r.family == "transfer" and r.bytes_per_second]
    best = {}
    for r in transfers:
        key = (r.device, r.pattern)
        if key not in best or r.bytes_per_second > best[key].bytes_per_second:
            best[key] = r
    print("summary: peak median bandwidth per device and pattern")
    for (device, pattern), r in sorted(best.items()):
        spread = f", CV {r.cv * 100:.1f}%" if r.cv is not None else ""
        print(f"  {device:26s} {pattern:11s} {r.bytes_per_second / 1e9:8.2f} GB/s "
              f"at {bench_results.human_bytes(r.size)}{spread}")
    seeds = [r for r in rows if r.family in ("forward", "latency") and r.pattern == "seed_float32"
             and r.seconds]
    for r in seeds:
        what = "per forward, batched" if r.family == "forward" else "latency per call"
        spread = f", CV {r.cv * 100:.1f}%" if r.cv is not None else ""
        print(f"  {r.device:26s} seed forward {r.seconds * 1e6:8.1f} us (median, {what}{spread})")
    errors = [r for r in rows if r.error]
    for r in errors:
        print(f"  ERROR {r.run_name}: {r.error}")
    threshold_report = os.path.join(out_dir, "thresholds.txt")
    if os.path.exists(threshold_report):
        with open(threshold_report) as f:
            for line in f:
                print(f"  {line.rstrip()}")


def main(argv=None):
    return cli.run_main("run_all", run, argv)
