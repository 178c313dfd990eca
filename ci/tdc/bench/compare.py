"""compare: gates benchmark results against a baseline: two files, or two
results folders (ci/conformance's results/bench: every Google Benchmark JSON
file of the baseline folder is paired with the file of the same name).

  tdc compare OLD NEW [--max-regression 0.10] [--noise-factor 3] [--min-repetitions 10]
             [--allow-partial] [--verbose]
  tdc compare --baseline OLD.json --contender NEW.json [...]

A benchmark regressed when both hold (each side needs --min-repetitions,
default 10, taken interleaved with the other benchmarks: tdc run-benchmarks
runs the programs so, `--benchmark_repetitions=10
--benchmark_enable_random_interleaving=true`; fewer cannot tell a shared
runner's load from a change, and are listed as not compared):
  - its median time grew by more than the allowed fraction: the larger of
    --max-regression (default 0.10) and the noise the runs show themselves,
    --noise-factor (default 3) times the spread of their repetitions
    ((slowest - fastest) / median, of the baseline or the contender, the
    larger), so a benchmark that varies by 30% between repetitions of one
    run is not called regressed for a 40% difference; and
  - even the contender's fastest repetition is slower than the baseline's
    slowest (the two runs do not overlap).
For a transfer a longer time is the same as a lower bandwidth. A benchmark
that did not run in the contender (an error) fails.

Exit status: 0 every benchmark of the baseline was compared and none
regressed; 1 a regression, or a benchmark that did not run; 2 bad input (a
missing, truncated or damaged file, a folder without benchmark files:
one line) or partial coverage (fewer compared than the baseline has;
--allow-partial accepts that and lists what was not compared)."""
import os
import statistics

from tdc import cli, safeio
from tdc.bench import results as bench_results
from tdc.errors import InputError

DEFAULT_MIN_REPETITIONS = 10
DEFAULT_MAX_REGRESSION = 0.10
DEFAULT_NOISE_FACTOR = 3.0


def benchmark_files(folder):
    """{name: path} of the Google Benchmark JSON files in a results folder."""
    found = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not name.endswith(".json") or not os.path.isfile(path):
            continue
        document = safeio.load_json(path, "benchmark results")
        if isinstance(document, dict) and isinstance(document.get("benchmarks"), list):
            found[name] = path
    if not found:
        raise InputError(f"{folder} holds no Google Benchmark JSON file")
    return found


def pairs(old, new):
    """[(label, old file, new file)], and the baseline files without a partner."""
    if os.path.isdir(old) != os.path.isdir(new):
        raise InputError(f"compare a file with a file, a folder with a folder: {old}, {new}")
    if not os.path.isdir(old):
        return [(os.path.basename(new), old, new)], []
    olds, news = benchmark_files(old), benchmark_files(new)
    return ([(name, olds[name], news[name]) for name in olds if name in news],
            sorted(set(olds) - set(news)))


def spread(samples):
    """(slowest - fastest) / median of one run's repetitions."""
    return (max(samples) - min(samples)) / statistics.median(samples)


def judge(old, new, max_regression, noise_factor):
    """(change, allowed, regressed) of one benchmark, from its repetitions.
    A shared runner's load changes between runs; the repetitions of a run
    taken while it changed are spread: that spread is the noise floor."""
    base, mine = old.samples, new.samples
    change = (statistics.median(mine) - statistics.median(base)) / statistics.median(base)
    allowed = max(max_regression, noise_factor * max(spread(base), spread(mine)))
    return change, allowed, change > allowed and min(mine) > max(base)


def compare_file(label, old_path, new_path, args, report):
    old = {r.run_name: r for r in bench_results.load(old_path)[1] if r.seconds and not r.error}
    contender = bench_results.load(new_path)[1]
    new = {r.run_name: r for r in contender if r.seconds and not r.error}
    for r in contender:
        if r.error and r.run_name in old:
            report["errors"].append(f"DID NOT RUN {label}: {r.run_name}: {r.error}")
    report["baseline"] += len(old)
    for name in sorted(old):
        if name not in new:
            if not any(r.run_name == name and r.error for r in contender):
                report["missing"].append(f"{label}: {name}")
            continue
        if min(len(old[name].samples), len(new[name].samples)) < args.min_repetitions:
            report["missing"].append(f"{label}: {name} (fewer than {args.min_repetitions} repetitions)")
            continue
        change, allowed, regressed = judge(old[name], new[name], args.max_regression, args.noise_factor)
        report["compared"] += 1
        line = (f"{label}: {name}: median time {change * 100:+.1f}% "
                f"(allowed +{allowed * 100:.0f}%)")
        if regressed:
            report["regressions"].append("REGRESSION " + line)
        elif args.verbose:
            print("ok " + line)


def parser():
    p = cli.Parser("compare", __doc__)
    p.add_argument("old", nargs="?", help="baseline file or folder")
    p.add_argument("new", nargs="?", help="contender file or folder")
    p.add_argument("--baseline", help="the same as OLD")
    p.add_argument("--contender", help="the same as NEW")
    p.add_argument("--max-regression", type=cli.finite, default=DEFAULT_MAX_REGRESSION,
                   help="largest allowed growth of the median time, a fraction (default 0.10)")
    p.add_argument("--noise-factor", type=cli.finite, default=DEFAULT_NOISE_FACTOR,
                   help="times the runs' own spread that is noise, not change (default 3)")
    p.add_argument("--min-repetitions", type=cli.whole(3, 1000), default=DEFAULT_MIN_REPETITIONS,
                   help="repetitions each side needs to be compared (default 10)")
    p.add_argument("--allow-partial", action="store_true",
                   help="pass although the contender lacks some of the baseline's benchmarks")
    p.add_argument("--verbose", action="store_true", help="print every comparison")
    return p


def run(argv):
    args = parser().parse_args(argv)
    old, new = args.old or args.baseline, args.new or args.contender
    if not old or not new or (args.old and args.baseline) or (args.new and args.contender):
        raise InputError("name the baseline and the contender once each: OLD NEW, or --baseline --contender")
    if args.max_regression < 0 or args.noise_factor < 0:
        raise InputError("--max-regression and --noise-factor must be >= 0")
    for path in (old, new):
        if not os.path.exists(path):
            raise InputError(f"{path} does not exist")
    matched, unmatched = pairs(old, new)
    report = {"baseline": 0, "compared": 0, "regressions": [], "errors": [],
              "missing": [f"{name}: no such file in {new}" for name in unmatched]}
    for label, old_path, new_path in matched:
        compare_file(label, old_path, new_path, args, report)
    for line in report["regressions"] + report["errors"]:
        print(line)
    if report["missing"]:
        print(f"not compared: {len(report['missing'])}: " + "; ".join(report["missing"][:10])
              + ("; ..." if len(report["missing"]) > 10 else ""))
    print(f"baseline gate: {report['compared']} of {report['baseline']} benchmarks compared, "
          f"{len(report['regressions'])} regression(s), {len(report['errors'])} did not run")
    if not report["compared"]:
        raise InputError("compared no benchmark: nothing was checked")
    if report["missing"] and not args.allow_partial:
        raise InputError(f"compared {report['compared']} of the baseline's {report['baseline']} "
                         "benchmarks (--allow-partial to accept)")
    return 1 if report["regressions"] or report["errors"] else 0


def main(argv=None):
    return cli.run_main("compare", run, argv)
