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
only its own lines), and end with the run's verdict (issue 35): "LEVEL 1
FAILED: ... (exit 1); report: .../report.html; no package: ci/verify would
refuse it (...)", after the results line and, the run having no TDC_EXPECT,
the caveat's line; nowhere may the log invite the failed run to package
itself. The check of the last line fails on the log without it. The
verdict JSON (--verdict) and the report's header carry the caveat too; with
TDC_EXPECT set (the failing-seed run) none of them does.

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
CAVEAT = "No TDC_EXPECT: this proves nothing about which accelerators should be present"


def page_problems(page, seed, verdict):
    """What a person reading report.html alone would miss (issue 35): the
    banner with its verdict and level, the seed's four lines as the log
    printed them, the thresholds section. [one line each]"""
    problems = []
    banner = re.search(r'<div class="banner banner-(pass|fail)" id="banner">\s*<b id="verdict">(PASS|FAIL)</b>'
                       r'.*?id="banner-level">(level \d)</span>', page, re.S)
    if not banner or banner.group(2) != verdict or banner.group(3) != "level 1":
        problems.append(f"the page has no {verdict} banner for level 1")
    for key in SEED_KEYS:
        if f'<tr class="seed-line"><th class="mono">{key}</th><td class="mono">{seed.get(key)}</td></tr>' not in page:
            problems.append(f"the page lacks the seed's line {key}={seed.get(key)}")
    if 'id="thresholds-line"' not in page:
        problems.append("the page has no thresholds section")
    return problems


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
    if not any(re.match(r"results in .*\(.*report\.html.*\)", line) for line in lines[-3:]):
        problems.append("the log's results line does not list report.html among the results")
    problems += last_line_problems(lines, results)
    return problems


def last_line_problems(lines, results):
    """The run's last line is its verdict, a failed one, pointing at its report, with no invitation."""
    last = lines[-1] if lines else ""
    verdict = re.match(r"LEVEL 1 FAILED: (\d+) checks? failed on (.+?)(; .* failed)? \(exit 1\); "
                       r"report: (\S+); no package: ci/verify would refuse it \((.+)\)$", last)
    problems = []
    if not verdict:
        problems.append(f"the log's last line is not the run's failed verdict: {last[:300]!r}")
    elif verdict.group(4) != os.path.join(results, "report.html") or "failed check" not in verdict.group(5):
        problems.append(f"the last line names another report, or not why the package would be refused: {last!r}")
    if len(lines) < 2 or lines[-2] != CAVEAT:
        problems.append(f"the line before the last is not the missing expectation's caveat: {lines[-2:-1]}")
    if any("package: ci/package" in line or "package with ci/package" in line for line in lines):
        problems.append("the log invites a failed run to package itself")
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
                                  f"--build-dir={build_dir}", f"--verdict={tmp}/verdict.json"], env=env, stdout=log,
                                 stderr=subprocess.STDOUT, timeout=1200)
        with open(log_path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        verdict = json.load(open(f"{tmp}/verdict.json")) if os.path.isfile(f"{tmp}/verdict.json") else {}
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
    # No TDC_EXPECT: the verdict JSON and the report's header say what the run does not prove.
    if verdict.get("caveat") != CAVEAT:
        problems.append(f"the verdict JSON's caveat is {verdict.get('caveat')!r}, expected {CAVEAT!r}")
    if f'id="caveat"><b>{CAVEAT}</b>' not in page:
        problems.append("the report's header does not say that the run had no TDC_EXPECT")
    # The report reads on its own: banner, seed lines, thresholds; a page
    # without them (an older report) must fail the same check.
    problems += page_problems(page, seed_report(text), "FAIL")
    bare = re.sub(r'<div class="banner.*?</div>\s*</div>|<table id="seed-table">.*?</table>|id="thresholds-line"',
                  "", page, flags=re.S)
    if len(page_problems(bare, seed_report(text), "FAIL")) < 6:
        problems.append("the page check passed a page without its banner, seed lines and thresholds")

    # A seed that fails (an expected device this host lacks) is a result of
    # the run, not its end: the level still runs and leaves its report.
    failing = dict(env, TDC_EXPECT="mps:1", TDC_KNOWN_FAILURES="")
    failing.pop("TDC_BENCH", None)
    with tempfile.TemporaryDirectory() as tmp:
        seed_run = subprocess.run([os.path.join(ROOT, "ci", "conformance"), "--level=1", "--bench=off",
                                   f"--build-dir={build_dir}", f"--verdict={tmp}/verdict.json"], env=failing,
                                  capture_output=True, text=True, errors="replace", timeout=1200)
        seed_verdict = json.load(open(f"{tmp}/verdict.json")) if os.path.isfile(f"{tmp}/verdict.json") else {}
    # The negative of the caveat: with TDC_EXPECT set, none of them says it.
    seed_page = os.path.join(results, "report.html")
    seed_text = open(seed_page, encoding="utf-8").read() if os.path.isfile(seed_page) else ""
    if "caveat" not in seed_verdict or seed_verdict["caveat"] is not None or CAVEAT in seed_text \
            or CAVEAT in seed_run.stdout + seed_run.stderr:
        problems.append(f"with TDC_EXPECT=mps:1 the caveat is still said (verdict {seed_verdict.get('caveat')!r})")
    expectation_row = "DeviceExpectation.IsPresent/mps_at_least_1"
    if seed_run.returncode != 1:
        problems.append(f"with a failing seed (TDC_EXPECT=mps:1) ci/conformance exited {seed_run.returncode}, expected 1")
    elif not os.path.isfile(seed_page) or expectation_row not in open(seed_page, encoding="utf-8").read():
        problems.append(f"with a failing seed the level left no report.html naming {expectation_row}")

    # The negative of the last line's check: the log without its last line.
    cut = [line for line in text.splitlines() if line.strip()][:-1]
    if not last_line_problems(cut, results):
        problems.append("the last line's check passed a log that does not end with the verdict")
    seed_last = [line for line in seed_run.stdout.splitlines() if line.strip()][-1:]
    if not (seed_last and seed_last[0].startswith("LEVEL 1 FAILED: ") and "mps_at_least_1" in seed_last[0]
            and "the seed (device_select" in seed_last[0]):
        problems.append(f"with a failing seed the last line is not a failed verdict naming the "
                        f"expectation and the seed: {seed_last}")

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
