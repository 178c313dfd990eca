#!/usr/bin/env python3
"""ci/conformance leaves the run's report.html, also when the run fails: a
real level-1 run of this build with TDC_EXPECT=mps:1 (a device this host
lacks: the seed and DeviceExpectation fail, exit 1), whose results folder
must hold a report.html with a row for every test of its summary.json, each
with its status, and summary.json's counts (tdc.report.check). The same
check must fail on a copy of that folder without report.html (the report
step skipped) and with a test's row cut out of the page.

  conformance_report.py --build-dir=BUILD
Exit 0 passed, 1 a check failed. It runs ci/conformance on BUILD (a no-op
build) and replaces BUILD/results: ctest runs it alone (RUN_SERIAL)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from tdc import ROOT
from tdc.report import check


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build_dir)
    results = os.path.join(build_dir, "results")
    env = dict(os.environ, TDC_EXPECT="mps:1", TDC_NO_PROVISION="1", TDC_JOBS="2")
    run = subprocess.run([os.path.join(ROOT, "ci", "conformance"), "--level=1", "--bench=off", "--quiet",
                          f"--build-dir={build_dir}"], env=env, capture_output=True, text=True, timeout=1200)
    problems = []
    if run.returncode != 1:
        problems.append(f"ci/conformance exited {run.returncode}, expected 1 (TDC_EXPECT=mps:1 fails)")
    if not os.path.isfile(os.path.join(results, "summary.json")):
        print("\n".join(problems + [f"no summary.json in {results}", run.stderr[-3000:]]))
        return 1
    problems += check.problems(results)
    if not re.search(r"^results in .*\(.*report\.html.*\)", run.stderr, re.M):
        problems.append("the last line does not list report.html among the results")
    page = open(os.path.join(results, "report.html"), encoding="utf-8").read() \
        if os.path.isfile(os.path.join(results, "report.html")) else ""
    if 'data-name="DeviceExpectation.IsPresent/mps_at_least_1" data-status="failed"' not in page:
        problems.append("the page has no failed DeviceExpectation.IsPresent/mps_at_least_1 row")

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
        print(run.stderr[-3000:])
        return 1
    print(f"ci/conformance exit 1 (expected device missing); {results}/report.html lists every test of "
          "summary.json; the check fails without the page and on a page missing a row")
    return 0


if __name__ == "__main__":
    sys.exit(main())
