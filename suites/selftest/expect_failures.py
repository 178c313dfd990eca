#!/usr/bin/env python3
"""Runs a suite against a deliberately broken device or guard and checks that
it fails, and fails in the checks meant to catch that breakage.

  expect_failures.py --gtest BINARY [--env K=V] --must-fail GLOB... [--only]
  expect_failures.py --ctest BUILD_DIR --label L [--env K=V] --must-fail GLOB... [--only]

--must-fail: each glob must match at least one failed test.
--only:      every failed test must match one of the globs (nothing else broke).
--must-pass: each glob must match at least one test that passed (the run kept
             its other results).
--must-skip: each glob must match at least one skipped test (e.g. a waived one).
Prints the failed tests, one a line, for the docs' fault table."""
import argparse
import fnmatch
import os
import subprocess
import sys
import tempfile
import time

from tdc import gtest, junit, summarize


def run_gtest(binary, env, gtest_filter=None):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.xml")
        command = [binary, f"--gtest_output=xml:{report}"]
        if gtest_filter:
            command.append(f"--gtest_filter={gtest_filter}")
        run = subprocess.run(command, env=env, capture_output=True, text=True, errors="replace",
                             timeout=1800)
        if not os.path.exists(report):
            return run.returncode, None, run.stdout + run.stderr
        return run.returncode, gtest.statuses_of_report(report), run.stdout + run.stderr


def run_ctest(build_dir, label, env, checks=None, outputs=None, exclude_label=None, records=None,
              summary=None):
    """Runs ctest's entries of `label` (only the checks TDC_CHECKS=`checks`
    selects) with their GoogleTest XML in a folder of this run's own, and
    returns (exit status, {result: status}, ctest's output): one result per
    check per device, as the run's summary has them (an entry is a batch
    of checks). outputs: a dict to fill with each result's failure text;
    records: a dict to fill with the run's GoogleTest records (tdc.gtest);
    summary: a dict to fill with the run's summary (tdc.summarize.build)."""
    with tempfile.TemporaryDirectory() as tmp:
        junit_path, gtest_dir = os.path.join(tmp, "junit.xml"), os.path.join(tmp, "gtest")
        os.makedirs(gtest_dir)
        command = ["ctest", "--test-dir", build_dir, "-L", label, "-j2", "--output-junit", junit_path]
        if exclude_label:
            command += ["-LE", exclude_label]
        run_env = dict(env, TDC_GTEST_DIR=gtest_dir)
        if checks:
            run_env["TDC_CHECKS"] = checks
        run = subprocess.run(command, env=run_env, capture_output=True, text=True, errors="replace", timeout=3600)
        if not os.path.exists(junit_path):
            return run.returncode, None, run.stdout + run.stderr
        cases = junit.read(junit_path)
        found = gtest.read_dir(gtest_dir)
    if records is not None:
        records.update(found)
    if summary is not None:
        summary.update(summarize.build(cases, found, {}, None, None))
    verdicts = {}
    for case, record in summarize.results_of(cases, found):
        verdicts[case.name] = case.status
        if outputs is not None:
            outputs[case.name] = record.text if record is not None else case.output
    return run.returncode, verdicts, run.stdout + run.stderr


def main():
    parser = argparse.ArgumentParser()
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--gtest")
    source.add_argument("--ctest")
    parser.add_argument("--label", default="conformance")
    parser.add_argument("--gtest-filter", help="with --gtest: run only these tests")
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--must-fail", action="append", default=[])
    parser.add_argument("--must-pass", action="append", default=[])
    parser.add_argument("--must-skip", action="append", default=[])
    parser.add_argument("--only", action="store_true")
    args = parser.parse_args()

    env = dict(os.environ)
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    if args.gtest:
        code, verdicts, output = run_gtest(args.gtest, env, args.gtest_filter)
    else:
        code, verdicts, output = run_ctest(args.ctest, args.label, env)

    problems = []
    if verdicts is None:
        print(output)
        print("FAILED: the run left no report")
        return 1
    failed = sorted(name for name, verdict in verdicts.items() if verdict == "failed")
    passed = [name for name, verdict in verdicts.items() if verdict == "passed"]
    skipped = [name for name, verdict in verdicts.items() if verdict == "skipped"]
    if code == 0:
        problems.append("the run passed; it should have failed")
    for glob in args.must_fail:
        if not fnmatch.filter(failed, glob):
            problems.append(f"no failed test matches {glob!r}")
    for glob in args.must_pass:
        if not fnmatch.filter(passed, glob):
            problems.append(f"no passed test matches {glob!r}")
    for glob in args.must_skip:
        if not fnmatch.filter(skipped, glob):
            problems.append(f"no skipped test matches {glob!r}")
    if args.only:
        for name in failed:
            if not any(fnmatch.fnmatch(name, glob) for glob in args.must_fail):
                problems.append(f"{name} failed too, unexpectedly")
    print(f"{len(failed)} failed of {len(verdicts)}:")
    for name in failed:
        print("  " + name)
    if problems:
        print(output[-6000:])
        for problem in problems:
            print("FAILED:", problem)
        return 1
    print("ok: failed where expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
