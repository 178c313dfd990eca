"""harness-overhead: what the harness costs: tdc_bench_transfer's d2d series against the same
dst.copy_(src) in a plain loop (tdc_bare_copy_loop), alternated in one run.

Per size, each alternation runs both programs back to back (the order flips
every time, so a drift in host load does not favour one side), with the
same intra-op threads, the same time per sample (--min-time) and 5 samples
each. The
ratio TDC/bare of median bandwidths is taken per alternation; the table
shows each and their median, and the coefficient of variation (stddev/mean
of the samples) per series. Goal: median ratio >= 0.97 at every size.
Reported, never asserted: timing is not a pass/fail test.

Exit status: 0 when both programs ran (whatever the ratios), 1 when one
failed, 2 on bad arguments or a build without the programs.
"""
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

from tdc import cli, discovery_env
from tdc.bench import results as bench_results
from tdc.bench import table as report_table

GOAL = 0.97
FULL_SIZES = [4 << 10 << (2 * i) for i in range(9)]   # 4 KiB .. 256 MiB, powers of 4
QUICK_SIZES = [4 << 10, 256 << 10, 16 << 20]


class Failed(Exception):
    pass


def cv(samples):
    return statistics.pstdev(samples) / statistics.mean(samples) if len(samples) > 1 else None


def run_tdc(exe, plugin, sizes, min_time, env, work, tag):
    out = os.path.join(work, f"tdc_{tag}.json")
    size_re = "|".join(str(s) for s in sizes)
    cmd = [exe, *plugin, f"--benchmark_filter=^transfer/d2d/(cpu|[a-z]+:0)/({size_re})/",
           f"--benchmark_min_time={min_time}", "--benchmark_repetitions=5",
           f"--benchmark_out={out}", "--benchmark_out_format=json"]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        raise Failed(f"{' '.join(cmd)} exited {run.returncode}: {run.stderr.strip()[-300:]}")
    context, results = bench_results.load(out)
    with open(out) as f:
        raw = json.load(f)["benchmarks"]
    series = {}
    for r in results:
        samples = [e["bytes_per_second"] for e in raw
                   if e.get("run_name") == r.run_name and e.get("run_type") == "iteration"]
        series[(r.device, r.size)] = samples
    return context.get("tdc.intra_op_threads"), series


def run_bare(exe, plugin, devices, sizes, min_time, env):
    cmd = [exe, *plugin, *[f"--device={d}" for d in devices], f"--min-time={min_time}",
           "--repetitions=5", *[str(s) for s in sizes]]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        raise Failed(f"{' '.join(cmd)} exited {run.returncode}: {run.stderr.strip()[-300:]}")
    data = json.loads(run.stdout)
    series = {(d, int(s)): samples for d, by_size in data["d2d"].items()
              for s, samples in by_size.items()}
    return str(data["intra_op_threads"]), series


def run(argv):
    parser = cli.Parser("harness_overhead", __doc__)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--alternations", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="4 KiB, 256 KiB, 16 MiB only")
    parser.add_argument("--min-time", type=float, default=0.05, help="seconds per sample")
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads, both sides")
    parser.add_argument("--out", help="markdown file to write the table to")
    args = parser.parse_args(argv)
    if args.alternations < 1 or args.min_time <= 0 or args.threads < 1:
        print("harness_overhead: --alternations, --min-time and --threads must be positive",
              file=sys.stderr)
        return 2
    bin_dir = os.path.join(args.build_dir, "bin")
    tdc, bare = (os.path.join(bin_dir, p) for p in ("tdc_bench_transfer", "tdc_bare_copy_loop"))
    for exe in (tdc, bare):
        if not os.access(exe, os.X_OK):
            print(f"harness_overhead: not built: {exe}", file=sys.stderr)
            return 2
    loopback = os.path.join(args.build_dir, "lib", "libtdc_loopback.so")
    plugin = [f"--backend-lib={loopback}"] if os.path.exists(loopback) else []
    env = dict(discovery_env.minus(os.environ, ("TDC_BACKEND_LIBS", "TDC_DEVICES", *discovery_env.LOOPBACK_BEHAVIOUR)),
               OMP_NUM_THREADS=str(args.threads))
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    load_before = os.getloadavg()

    # Per size, the two programs alternate back to back (the order flips
    # every time), so each pair of runs is seconds apart: on a shared host
    # the load changes over minutes, and a pair far apart measures that.
    runs = {}  # size -> [(tdc series, bare series)] per alternation
    devices = None
    try:
        with tempfile.TemporaryDirectory() as work:
            for size in sizes:
                runs[size] = []
                for i in range(args.alternations):
                    order = ("tdc", "bare") if i % 2 == 0 else ("bare", "tdc")
                    if devices is None:
                        order = ("tdc", "bare")  # TDC's JSON names the devices
                    got = {}
                    for side in order:
                        if side == "tdc":
                            threads, got["tdc"] = run_tdc(tdc, plugin, [size], args.min_time, env,
                                                          work, f"{size}_{i}")
                            devices = devices or sorted({d for d, _ in got["tdc"]})
                        else:
                            bare_threads, got["bare"] = run_bare(bare, plugin, devices, [size],
                                                                 args.min_time, env)
                    if threads != bare_threads:
                        raise Failed(f"intra-op threads differ: TDC {threads}, bare {bare_threads}")
                    runs[size].append((got["tdc"], got["bare"]))
                print(f"{bench_results.human_bytes(size)}: {args.alternations} alternations done",
                      file=sys.stderr)
    except (Failed, bench_results.BadResults, ValueError, KeyError) as error:
        print(f"harness_overhead: {bench_results.one_line(error)}", file=sys.stderr)
        return 1

    rows, missed = [], []
    for device in devices:
        for size in sizes:
            key = (device, size)
            pairs = runs[size]
            if any(key not in t or key not in b for t, b in pairs):
                missed.append(f"{device} {bench_results.human_bytes(size)}: not measured")
                continue
            ratios = [statistics.median(t[key]) / statistics.median(b[key]) for t, b in pairs]
            median_ratio = statistics.median(ratios)
            tdc_gbps = statistics.median([statistics.median(t[key]) for t, _ in pairs]) / 1e9
            bare_gbps = statistics.median([statistics.median(b[key]) for _, b in pairs]) / 1e9
            tdc_cv = statistics.median([cv(t[key]) for t, _ in pairs])
            bare_cv = statistics.median([cv(b[key]) for _, b in pairs])
            met = median_ratio >= GOAL
            if not met:
                missed.append(f"{device} {bench_results.human_bytes(size)}: {median_ratio:.3f}")
            rows.append([device, "d2d", bench_results.human_bytes(size), f"{tdc_gbps:.2f}",
                         f"{bare_gbps:.2f}", " / ".join(f"{r:.3f}" for r in ratios),
                         f"**{median_ratio:.3f}**", "met" if met else "MISSED",
                         f"{tdc_cv * 100:.1f}%", f"{bare_cv * 100:.1f}%"])

    load_after = os.getloadavg()
    header = (f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on "
              f"{platform.node()} ({os.cpu_count()} CPUs, {platform.machine()}), "
              f"{args.threads} intra-op thread(s), {args.alternations} alternations, 5 samples "
              f"of >= {args.min_time} s per series and run; load average {load_before[0]:.1f} "
              f"before, {load_after[0]:.1f} after.")
    footer = ("\nMissed: " + "; ".join(missed) + "\n") if missed else "\nGoal met at every size.\n"
    report_table.emit(header, ["device", "pattern", "size", "TDC GB/s", "bare GB/s",
                               "TDC/bare per alternation", "median", f"goal >= {GOAL}",
                               "CV TDC", "CV bare"],
                      "lllrrlrlrr", rows, args.out, footer)
    return 0


def main(argv=None):
    return cli.run_main("harness_overhead", run, argv)
