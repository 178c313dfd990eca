#!/usr/bin/env python3
"""A batch that crashes or hangs partway loses no verdict (issue "Level 2 in
seconds"): runs one tdc_batch entry, as ctest runs it, over every listed
check of a suite under a loopback fault, then reads the results (tdc.gtest)
and checks that
  - each listed check has exactly one result;
  - each check a --broken regex matches (in full) failed with a message
    matching its regex (the signal or the timeout, and the check that was
    running: @TEST@ in it stands for the result's own name);
  - every other check passed: the ones before the crash in the batch keep
    their pass, the ones after it ran one process each (isolation
    "fallback") and got their own verdict;
  - --want-isolation ISOLATION:STATUS,...: at least one result with each
    (batch:passed,fallback:passed: the fault struck partway, the checks
    before it kept their passes and the fallback really ran).

  batch_keeps_every_verdict.py --list-from SUITE --instances REGEX
      --broken CHECKS=REGEX... [--want-isolation batch:passed,...] [--env K=V]...
      -- TDC_BATCH [ARGS]... -- SUITE
Exit status: 0 as expected, 1 not, 2 bad input."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from tdc import gtest, junit


def listed_tests(suite, env, instances):
    """The suite's tests (Suite.Check/instance) whose instance matches."""
    run = subprocess.run([suite, "--gtest_list_tests"], env=env, capture_output=True, text=True,
                         errors="replace", timeout=300)
    if run.returncode != 0:
        raise SystemExit(f"batch_keeps_every_verdict: {suite} --gtest_list_tests exited {run.returncode}: "
                         f"{run.stderr.strip()[-400:]}")
    tests, suite_name = [], None
    for line in run.stdout.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite_name = line.strip().rstrip(".")
        elif suite_name:
            instance = line.split("#")[0].strip()
            if re.search(instances, instance):
                tests.append(f"{suite_name}.{instance}")
    return tests


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--list-from", required=True, help="the suite binary to list the checks of")
    parser.add_argument("--instances", required=True, help="a regex over instance names to keep")
    parser.add_argument("--broken", action="append", default=[], help="CHECKS=REGEX: the checks CHECKS (a regex) match must fail so")
    parser.add_argument("--want-isolation", default="", help="ISOLATION:STATUS,... each shown by a result")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the runs")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    broken = {}
    for item in args.broken:
        check, sep, regex = item.partition("=")
        if not sep:
            print(f"batch_keeps_every_verdict: --broken {item!r}: expected CHECK=REGEX", file=sys.stderr)
            return 2
        broken[check] = regex
    env = dict(os.environ)
    env.update(item.partition("=")[::2] for item in args.env)
    listing_env = dict(env)
    listing_env.pop("TDC_LOOPBACK_FAULT", None)  # the list is the healthy backend's
    tests = listed_tests(args.list_from, listing_env, args.instances)
    problems = []
    if not tests:
        problems.append(f"{args.list_from} lists no test matching {args.instances!r}")
    with tempfile.TemporaryDirectory() as folder:
        tests_file = os.path.join(folder, "tests.txt")
        with open(tests_file, "w") as f:
            f.write("\n".join(tests) + "\n")
        xml_dir = os.path.join(folder, "gtest")
        os.makedirs(xml_dir)
        run_env = dict(env, TDC_GTEST_DIR=xml_dir)
        full = [part.replace("@TESTS@", tests_file) for part in command]
        run = subprocess.run(full, env=run_env, capture_output=True, text=True, errors="replace", timeout=900)
        records = gtest.read_dir(xml_dir)

    lines = []
    for test in tests:
        record = records.get(test)
        check = test.split("/")[0]
        rule = next((regex for pattern, regex in broken.items() if re.fullmatch(pattern, check)), None)
        if record is None:
            problems.append(f"{test}: no result")
            continue
        isolation = record.isolation or "?"
        lines.append(f"  {record.status:<7} {isolation:<8} {test}: {record.reason[:160] if record.reason else ''}")
        if rule is not None:
            rule = rule.replace("@TEST@", re.escape(test))
            if record.status != junit.FAILED:
                problems.append(f"{test}: {record.status}, expected failed")
            elif not re.search(rule, record.text):
                problems.append(f"{test}: its failure does not match {rule!r}: {record.text[:300]!r}")
        elif record.status != junit.PASSED:
            problems.append(f"{test}: {record.status}, expected passed (it was not the broken check): "
                            f"{record.text[:300]!r}")
    for pattern in broken:
        if not any(re.fullmatch(pattern, test.split("/")[0]) for test in tests):
            problems.append(f"--broken {pattern}: matches none of the listed tests")
    extra = sorted(set(records) - set(tests))
    if extra:
        problems.append(f"results for tests not asked for: {extra}")
    for wanted in filter(None, args.want_isolation.split(",")):
        isolation, _, status = wanted.partition(":")
        if not any(records[t].isolation == isolation and records[t].status == (status or records[t].status)
                   for t in tests if t in records):
            problems.append(f"no result {status or 'of any status'} ran with isolation {isolation!r}: "
                            "the fault did not strike partway, or the fallback did not run")

    print("\n".join(lines))
    if problems:
        print("command:", " ".join(full), f"(exit {run.returncode})")
        print("stderr:\n" + run.stderr[-3000:])
        for problem in problems:
            print("FAILED:", problem)
        return 1
    if run.returncode == 0 and broken:
        print("FAILED: the entry exited 0 although a check failed")
        return 1
    print(f"ok: {len(tests)} checks, each with its own verdict ({len(broken)} broken)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
