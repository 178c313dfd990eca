"""compare-noise: how often tdc compare calls unchanged code regressed: runs the
benchmark programs back to back, in pairs, on this host's devices and the
loopback's, and counts the benchmarks each rule calls regressed. The rules:
`median` (the median alone grew by more than --max-regression: the rule
before the noise floor) and `tdc compare`'s (tdc.bench.compare.judge). With
--delay-us, the second run of each pair has every loopback copy delayed: the
comparison must then call them regressed.

  python3 -m tdc compare-noise --build-dir BUILD [--pairs 3] [--delay-us 0] [--quick] [--repetitions 10]
Prints one line per pair and the totals; exit 0 (a measurement, not a gate),
2 bad input."""
import os
import subprocess
import tempfile

from tdc import cli, discovery_env
from tdc.errors import InputError
from tdc.bench import compare
from tdc.bench import results as bench_results


def run_programs(build_dir, out_dir, tag, delay_us, quick, repetitions):
    env = discovery_env.minus(os.environ, ("TDC_BACKEND_LIBS", "TDC_DEVICES", "TDC_EXPECT",
                                             *discovery_env.LOOPBACK_BEHAVIOUR))
    env["OMP_NUM_THREADS"] = "1"
    if delay_us:
        env["TDC_LOOPBACK_DELAY_US"] = str(delay_us)
    loopback = os.path.join(build_dir, "lib", "libtdc_loopback.so")
    found = []
    for program in ("tdc_bench_transfer", "tdc_bench_forward"):
        out = os.path.join(out_dir, f"{program}_{tag}.json")
        command = [os.path.join(build_dir, "bin", program), f"--backend-lib={loopback}",
                   f"--benchmark_out={out}", "--benchmark_out_format=json",
                   f"--benchmark_repetitions={repetitions}", "--benchmark_enable_random_interleaving=true"] + \
            (["--tdc-quick"] if quick else [])
        run = subprocess.run(command, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            raise InputError(f"{program} exited {run.returncode}: {run.stderr.strip()[-200:]}")
        found.append(out)
    return found


def count(old_path, new_path, max_regression, noise_factor):
    old = {r.run_name: r for r in bench_results.load(old_path)[1] if r.seconds and len(r.samples) >= 3}
    new = {r.run_name: r for r in bench_results.load(new_path)[1] if r.seconds and len(r.samples) >= 3}
    # The median rule is the one from before (no repetitions needed).
    by_median = by_rule = compared = 0
    for name in old.keys() & new.keys():
        compared += 1
        by_median += (new[name].seconds - old[name].seconds) / old[name].seconds > max_regression
        by_rule += compare.judge(old[name], new[name], max_regression, noise_factor)[2]
    return compared, by_median, by_rule


def run(argv):
    p = cli.Parser("compare-noise", __doc__)
    p.add_argument("--build-dir", required=True, help="a built tree with the benchmark programs")
    p.add_argument("--pairs", type=cli.whole(1, 100), default=3, help="back-to-back pairs of runs (default 3)")
    p.add_argument("--delay-us", type=cli.whole(0, 1_000_000), default=0,
                   help="delay every loopback copy of each pair's second run by this (default 0)")
    p.add_argument("--quick", action="store_true", help="the programs' quick set (CI's)")
    p.add_argument("--repetitions", type=cli.whole(3, 1000), default=10,
                   help="interleaved repetitions per run (default 10, as tdc run-benchmarks)")
    p.add_argument("--max-regression", type=cli.finite, default=compare.DEFAULT_MAX_REGRESSION,
                   help="as tdc compare's (default 0.10)")
    p.add_argument("--noise-factor", type=cli.finite, default=compare.DEFAULT_NOISE_FACTOR,
                   help="as tdc compare's (default 3)")
    args = p.parse_args(argv)
    totals = {"compared": 0, "median": 0, "rule": 0}
    flagged_files = {"median": 0, "rule": 0, "files": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for pair in range(args.pairs):
            first = run_programs(args.build_dir, tmp, f"{pair}a", 0, args.quick, args.repetitions)
            second = run_programs(args.build_dir, tmp, f"{pair}b", args.delay_us, args.quick, args.repetitions)
            for old, new in zip(first, second):
                compared, by_median, by_rule = count(old, new, args.max_regression, args.noise_factor)
                name = os.path.basename(old).rsplit("_", 1)[0]
                print(f"pair {pair + 1} {name}: {compared} compared, regressed by the median alone: "
                      f"{by_median}, by tdc compare: {by_rule}")
                totals["compared"] += compared
                totals["median"] += by_median
                totals["rule"] += by_rule
                flagged_files["files"] += 1
                flagged_files["median"] += by_median > 0
                flagged_files["rule"] += by_rule > 0
    load = os.getloadavg()[0]
    print(f"total: {totals['compared']} comparisons, delay {args.delay_us} us; called regressed by the median "
          f"alone: {totals['median']} ({flagged_files['median']} of {flagged_files['files']} files red), by "
          f"tdc compare: {totals['rule']} ({flagged_files['rule']} of {flagged_files['files']} files red); "
          f"load average {load:.1f}")
    return 0


def main(argv=None):
    return cli.run_main("compare-noise", run, argv)
