#!/usr/bin/env python3
"""Gates a benchmark run against a baseline with Google Benchmark's compare.py.

A benchmark regresses when its median time per iteration grew by more than
--max-regression (for a transfer that is the same as its bandwidth falling)
and, where both runs have at least MIN_UTEST_REPETITIONS repetitions, the
Mann-Whitney U test that compare.py runs says the difference is significant
(p < --alpha). compare.py itself always exits 0, so its JSON dump is read
here.

Fails closed. Exit status:
  0  every benchmark of the baseline was compared and none regressed;
  1  a benchmark regressed, or did not run in the contender (error);
  2  bad input (a missing, truncated or damaged file: one line naming it) or
     partial coverage: nothing compared, or fewer benchmarks compared than
     the baseline has (--allow-partial accepts that and lists the missing).
What was not compared, and a U test that could not run, are always printed.

compare.py needs numpy and scipy. Where no interpreter has them the gate
falls back to comparing medians here (no U test) and says so.
"""
import argparse
import importlib.util
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
    # This interpreter is asked in process: importing scipy just to probe
    # costs seconds, and many times that on a loaded CI host.
    if all(importlib.util.find_spec(m) for m in ("numpy", "scipy")):
        return sys.executable
    for candidate in (shutil.which("python3"), "/usr/bin/python3"):
        if not candidate or os.path.realpath(candidate) == os.path.realpath(sys.executable):
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
            said = (run.stderr.strip() or run.stdout.strip()).splitlines()
            reason = said[-1] if said else "no message and no result"
            raise RuntimeError(f"{compare} failed (exit {run.returncode}): {reason}")
        try:
            with open(dump) as f:
                return json.load(f), run.stdout
        except ValueError as error:
            raise RuntimeError(f"{compare} wrote no usable result: {bench_results.one_line(error)}")


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


def gate_from_medians(old, new, max_regression):
    for name, r in new.items():
        if name in old:
            change = (r.seconds - old[name].seconds) / old[name].seconds
            if change > max_regression:
                yield name, change, None


def timed(results):
    """{run name: result} of the benchmarks that ran."""
    return {r.run_name: r for r in results if r.seconds and not r.error}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--contender", required=True)
    parser.add_argument("--max-regression", type=float, default=0.10,
                        help="largest allowed growth of the median time, as a fraction")
    parser.add_argument("--alpha", type=float, default=0.05, help="U-test significance level")
    parser.add_argument("--allow-partial", action="store_true",
                        help="pass although the contender lacks some of the baseline's benchmarks")
    parser.add_argument("--verbose", action="store_true", help="print compare.py's table")
    args = parser.parse_args()
    if args.max_regression < 0 or not 0 < args.alpha < 1:
        print("compare_baseline: --max-regression must be >= 0 and --alpha in (0, 1)", file=sys.stderr)
        return 2
    try:
        old = timed(bench_results.load(args.baseline)[1])
        contender = bench_results.load(args.contender)[1]
    except bench_results.BadResults as error:
        print(f"compare_baseline: {error}", file=sys.stderr)
        return 2
    new = timed(contender)
    errored = {r.run_name: r.error for r in contender if r.error and r.run_name in old}
    if not set(old) & set(new):
        print(f"baseline gate: 0 of {len(old)} benchmarks compared (no benchmark ran in both)")
        print("compare_baseline: compared no benchmark: nothing was checked", file=sys.stderr)
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
        compared = {d["name"][: -len("_median")] for d in diff
                    if d.get("aggregate_name") == "median" and d["name"].endswith("_median")}
        compared &= set(old) & set(new)
        unpaired = [n for n in compared
                    if min(old[n].repetitions, new[n].repetitions) < MIN_UTEST_REPETITIONS]
        if unpaired:
            print(f"not U-tested (< {MIN_UTEST_REPETITIONS} repetitions on a side, median only): "
                  f"{len(unpaired)} benchmark(s)")
    else:
        missing_tool = "compare.py (apt-get install libbenchmark-tools)" if not compare else \
            "a python3 with numpy and scipy"
        print(f"compare_baseline: no {missing_tool}; comparing medians without a U test")
        regressions = list(gate_from_medians(old, new, args.max_regression))
        compared = set(old) & set(new)

    for name, change, pvalue in regressions:
        significance = f", U-test p={pvalue:.4f}" if pvalue is not None else ""
        print(f"REGRESSION {name}: median time +{change * 100:.1f}% "
              f"(allowed +{args.max_regression * 100:.0f}%{significance})")
    for name, error in sorted(errored.items()):
        print(f"DID NOT RUN {name}: {error}")
    missing = sorted(set(old) - compared - set(errored))
    if missing:
        print(f"not compared: {len(missing)} of the baseline's {len(old)} benchmark(s): "
              + ", ".join(missing[:10]) + (", ..." if len(missing) > 10 else ""))
    print(f"baseline gate: {len(compared)} of {len(old)} benchmarks compared, "
          f"{len(regressions)} regression(s), {len(errored)} did not run")
    if not compared:
        print("compare_baseline: compared no benchmark: nothing was checked", file=sys.stderr)
        return 2
    if missing and not args.allow_partial:
        print(f"compare_baseline: compared {len(compared)} of the baseline's {len(old)} benchmarks "
              f"(--allow-partial to accept)", file=sys.stderr)
        return 2
    return 1 if regressions or errored else 0


if __name__ == "__main__":
    sys.exit(main())
