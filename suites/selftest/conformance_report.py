#!/usr/bin/env python3
"""ci/conformance leaves the run's report.html, also when the run fails, and
a log file it writes to keeps every line: a real level-1 run of this build
with a stale waiver (TDC_KNOWN_FAILURES=waivers/waives_a_passing_test.txt: a
waived test passes, the level fails, exit 1) and its benchmark step, its
stdout and stderr redirected to a regular file as `ci/conformance > run.log
2>&1` (Slurm, cron, nohup) redirects them.

The results folder must hold a report.html with a row for every test of its
summary.json, each with its status, and summary.json's counts
(tdc.report.check); the same check must fail on a copy of that folder
without report.html (the report step skipped) and with a test's row cut out
of the page. The log must keep the line written to it before the run, the
seed's four lines and the per-device table, hold no NUL byte (issue 29: the
benchmark step's `>/dev/stdout` truncated the file, leaving NUL bytes and
only its own lines), and end with the run's last line.

The benchmark programs only list their benchmarks (Google Benchmark's
BENCHMARK_LIST_TESTS=true): the step runs and prints as it always does, in
seconds, and fails (its results are empty), which the run's report says.

  conformance_report.py --build-dir=BUILD
Exit 0 passed, 1 a check failed. It runs ci/conformance on BUILD (a no-op
build) and replaces BUILD/results: ctest runs it alone (RUN_SERIAL)."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from check_run import SEED_KEYS, seed_report
from tdc import ROOT
from tdc.report import check
from tdc.summarize import table

HERE = os.path.dirname(os.path.abspath(__file__))
STALE_WAIVER = os.path.join(HERE, "waivers", "waives_a_passing_test.txt")
STALE_ROW = 'data-name="Forward.SeedModelMatchesFloat64Reference/cpu_float32" data-status="failed"'
# What a job script wrote to its log before ci/conformance ran.
EARLIER = "job: before ci/conformance (this line must stay)\n"


def log_problems(text, results):
    """What the run's log lost: [one line each]."""
    problems = []
    if "\0" in text:
        holes = re.findall("\0+", text)
        problems.append(f"the log holds {sum(map(len, holes))} NUL bytes in {len(holes)} run(s): "
                        "a step reopened the log and truncated it")
    if not text.startswith(EARLIER):
        problems.append("the log lost the line written to it before ci/conformance ran")
    seed = seed_report(text)
    if set(seed) != set(SEED_KEYS) or len(set(seed.values())) != 1:
        problems.append(f"the log does not hold the seed's four lines (found {seed})")
    with open(os.path.join(results, "summary.json"), encoding="utf-8") as f:
        rows = table(json.load(f)["devices"], "device")
    missing = [row for row in rows if row not in text.splitlines()]
    if missing:
        problems.append(f"the log does not hold the per-device table (e.g. {missing[0].strip()!r})")
    if "\n==> benchmarks (quick)\n" not in text:
        problems.append("the log does not say the benchmarks ran")
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or not re.match(r"results in .*\(.*report\.html.*\)", lines[-1]):
        problems.append(f"the log's last line does not list report.html among the results: "
                        f"{lines[-1][:200] if lines else 'empty'!r}")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build_dir)
    results = os.path.join(build_dir, "results")
    env = dict(os.environ, TDC_KNOWN_FAILURES=STALE_WAIVER, TDC_NO_PROVISION="1", TDC_JOBS="2",
               TDC_BENCH="quick", BENCHMARK_LIST_TESTS="true")
    for name in ("TDC_QUIET", "TDC_EXPECT"):  # the whole console, and a seed that passes
        env.pop(name, None)
    with tempfile.TemporaryDirectory() as tmp:
        log_path = os.path.join(tmp, "run.log")
        # As the shell's `> run.log 2>&1` opens it (no O_APPEND), a line already in it.
        with open(log_path, "w", encoding="utf-8") as log:
            log.write(EARLIER)
            log.flush()
            run = subprocess.run([os.path.join(ROOT, "ci", "conformance"), "--level=1", "--bench=quick",
                                  f"--build-dir={build_dir}"], env=env, stdout=log,
                                 stderr=subprocess.STDOUT, timeout=1200)
        with open(log_path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    tail = text.replace("\0", "")[-3000:]
    problems = []
    if run.returncode != 1:
        problems.append(f"ci/conformance exited {run.returncode}, expected 1 (a waived test passed)")
    if not os.path.isfile(os.path.join(results, "summary.json")):
        print("\n".join(problems + [f"no summary.json in {results}", tail]))
        return 1
    problems += check.problems(results)
    problems += log_problems(text, results)
    page = open(os.path.join(results, "report.html"), encoding="utf-8").read() \
        if os.path.isfile(os.path.join(results, "report.html")) else ""
    if STALE_ROW not in page:
        problems.append("the page has no failed Forward.SeedModelMatchesFloat64Reference/cpu_float32 row")

    # A seed that fails (an expected device this host lacks) is a result of
    # the run, not its end: the level still runs and leaves its report.
    failing = dict(env, TDC_EXPECT="mps:1", TDC_KNOWN_FAILURES="")
    failing.pop("TDC_BENCH", None)
    seed_run = subprocess.run([os.path.join(ROOT, "ci", "conformance"), "--level=1", "--bench=off",
                               f"--build-dir={build_dir}"], env=failing, capture_output=True, text=True,
                              errors="replace", timeout=1200)
    expectation_row = "DeviceExpectation.IsPresent/mps_at_least_1"
    seed_page = os.path.join(results, "report.html")
    if seed_run.returncode != 1:
        problems.append(f"with a failing seed (TDC_EXPECT=mps:1) ci/conformance exited {seed_run.returncode}, expected 1")
    elif not os.path.isfile(seed_page) or expectation_row not in open(seed_page, encoding="utf-8").read():
        problems.append(f"with a failing seed the level left no report.html naming {expectation_row}")

    # Negatives: the check must fail without the step, and on a page that lost a row.
    with tempfile.TemporaryDirectory() as tmp:
        skipped = os.path.join(tmp, "skipped")
        shutil.copytree(results, skipped)
        if os.path.exists(os.path.join(skipped, "report.html")):
            os.unlink(os.path.join(skipped, "report.html"))
        if not any("has no report.html" in p for p in check.problems(skipped)):
            problems.append("the check passed a results folder without report.html")
        if page:
            cut = re.sub(r'<tr class="test" data-name="[^"]*".*?</tr>', "", page, count=1, flags=re.S)
            with open(os.path.join(skipped, "report.html"), "w", encoding="utf-8") as f:
                f.write(cut)
            if not any("are not rows of report.html" in p for p in check.problems(skipped)):
                problems.append("the check passed a page with a test's row cut out")
    for problem in problems:
        print(f"FAIL: {problem}")
    if problems:
        print(tail)
        return 1
    print(f"ci/conformance exit 1 (a stale waiver), and 1 with a failing seed whose level still left its report; "
          f"{results}/report.html lists every test of "
          "summary.json; the check fails without the page and on a page missing a row; the run's "
          f"log file ({len(text)} bytes) kept the earlier line, the seed's four lines, the device "
          "table and its last line, and no NUL byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
