#!/usr/bin/env python3
"""Gates a benchmark run against a baseline with Google Benchmark's compare.py.

A benchmark regresses when its median time per iteration grew by more than
--max-regression (for a transfer that is the same as its bandwidth falling)
and, where both runs have at least MIN_UTEST_REPETITIONS repetitions, the
Mann-Whitney U test that compare.py runs says the difference is significant
(p < --alpha). compare.py itself always exits 0, so its JSON dump is read
here. Prints one line per regression and exits 1 if there is any; exit 2 on
unusable input.

compare.py needs numpy and scipy. Where no interpreter has them the gate
falls back to comparing medians here (no U test) and says so.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_results  # noqa: E402

# Below five repetitions per side a two-sided U test cannot reach p < 0.05 with
# any useful margin; the median alone decides there.
MIN_UTEST_REPETITIONS = 5

COMPARE_CANDIDATES = (
    os.environ.get("TDC_GBENCH_COMPARE", ""),
    "/usr/share/benchmark/compare.py",          # Debian/Ubuntu libbenchmark-tools
    "/usr/local/share/benchmark/compare.py",
    shutil.which("compare.py") or "",
)


def find_compare():
    return next((c for c in COMPARE_CANDIDATES if c and os.path.isfile(c)), None)


def python_with_scipy():
    for candidate in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if not candidate:
            continue
        probe = subprocess.run([candidate, "-c", "import numpy, scipy.stats"],
                               capture_output=True)
        if probe.returncode == 0:
            return candidate
    return None


def run_compare(compare, python, baseline, contender):
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "diff.json")
        run = subprocess.run(
            [python, compare, "--no-color", "-a", "--dump_to_json", dump,
             "benchmarks", baseline, contender],
            capture_output=True, text=True)
        if run.returncode != 0 or not os.path.exists(dump):
            raise RuntimeError(f"compare.py failed ({run.returncode}): {run.stderr.strip()[-500:]}")
        with open(dump) as f:
            return json.load(f), run.stdout


def gate_from_compare(diff, max_regression, alpha):
    """Yields (name, change, pvalue or None) for each regression."""
    utests = {d["name"]: d.get("utest") or {} for d in diff if d.get("run_type") != "aggregate"}
    for d in diff:
        if d.get("aggregate_name") != "median" or not d.get("measurements"):
            continue
        base_name = d["name"][: -len("_median")] if d["name"].endswith("_median") else d["name"]
        change = d["measurements"][0]["time"]
        if change <= max_regression:
            continue
        utest = utests.get(base_name, {})
        reps = min(utest.get("nr_of_repetitions", 0), utest.get("nr_of_repetitions_other", 0))
        pvalue = utest.get("time_pvalue") if reps >= MIN_UTEST_REPETITIONS else None
        if pvalue is not None and pvalue >= alpha:
            continue  # a large but not significant change: noise
        yield base_name, change, pvalue


def gate_from_medians(baseline, contender, max_regression):
    old = {r.run_name: r for r in bench_results.load(baseline)[1] if r.seconds}
    for r in bench_results.load(contender)[1]:
        if r.seconds and r.run_name in old:
            change = (r.seconds - old[r.run_name].seconds) / old[r.run_name].seconds
            if change > max_regression:
                yield r.run_name, change, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--contender", required=True)
    parser.add_argument("--max-regression", type=float, default=0.10,
                        help="largest allowed growth of the median time, as a fraction")
    parser.add_argument("--alpha", type=float, default=0.05, help="U-test significance level")
    parser.add_argument("--verbose", action="store_true", help="print compare.py's table")
    args = parser.parse_args()
    for path in (args.baseline, args.contender):
        if not os.path.isfile(path):
            print(f"compare_baseline: cannot read {path}", file=sys.stderr)
            return 2

    compare, python = find_compare(), python_with_scipy()
    if compare and python:
        try:
            diff, table = run_compare(compare, python, args.baseline, args.contender)
        except RuntimeError as error:
            print(f"compare_baseline: {error}", file=sys.stderr)
            return 2
        if args.verbose:
            print(table)
        regressions = list(gate_from_compare(diff, args.max_regression, args.alpha))
        compared = sum(1 for d in diff if d.get("aggregate_name") == "median")
    else:
        missing = "compare.py (apt-get install libbenchmark-tools)" if not compare else \
            "a python3 with numpy and scipy"
        print(f"compare_baseline: no {missing}; comparing medians without a U test")
        regressions = list(gate_from_medians(args.baseline, args.contender, args.max_regression))
        compared = len(bench_results.load(args.contender)[1])

    for name, change, pvalue in regressions:
        significance = f", U-test p={pvalue:.4f}" if pvalue is not None else ""
        print(f"REGRESSION {name}: median time +{change * 100:.1f}% "
              f"(allowed +{args.max_regression * 100:.0f}%{significance})")
    print(f"baseline gate: {compared} benchmarks compared, {len(regressions)} regression(s)")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
