#!/usr/bin/env python3
"""Runs a command that writes GoogleTest XML (a tdc_batch entry, as ctest
runs it) into a folder of its own, TDC_GTEST_DIR, and checks what the
results say: that RESULT failed with a failure message matching REGEX.
The message is read from the results (tdc.gtest), not from the console,
because the results are what a CI system and a person read.

  failure_message.py --result RESULT --message REGEX [--env K=V]... [--reason-past N] -- COMMAND...
--reason-past N: REGEX must match the one-line reason the summary, the
JUnit and the console carry (tdc.junit.reason_of), which must be longer
than N characters and not match when cut at N (a cut at N, as there once
was at 300, would lose what REGEX finds: the fix, issue 35).
Exit status: 0 as expected, 1 not."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from tdc import gtest, junit


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--result", required=True, help="the result's name (Suite.Check/instance)")
    parser.add_argument("--message", required=True, help="a regex its failure message must match")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the command")
    parser.add_argument("--reason-past", type=int, help="match the reason, whole, past this many characters")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, TDC_GTEST_DIR=folder)
        env.update(item.partition("=")[::2] for item in args.env)
        run = subprocess.run(command, env=env, capture_output=True, text=True, errors="replace", timeout=600)
        records = gtest.read_dir(folder)
    record = records.get(args.result)
    problems = []
    if record is None:
        problems.append(f"no result named {args.result!r} (results: {sorted(records)})")
    elif record.status != junit.FAILED:
        problems.append(f"{args.result} {record.status}, expected failed")
    elif args.reason_past is None and not re.search(args.message, record.text):
        problems.append(f"its failure message does not match {args.message!r}: {record.text!r}")
    elif args.reason_past is not None and not (re.search(args.message, record.reason) and
                                               len(record.reason) > args.reason_past and
                                               not re.search(args.message, record.reason[:args.reason_past])):
        problems.append(f"its reason ({len(record.reason)} characters) does not match {args.message!r} "
                        f"past {args.reason_past} characters: {record.reason!r}")
    if problems:
        print("command:", " ".join(command), f"(exit {run.returncode})")
        print("stdout:\n" + run.stdout[-4000:])
        print("stderr:\n" + run.stderr[-4000:])
        for problem in problems:
            print("FAILED:", problem)
        return 1
    print(f"ok: {args.result} failed with: {record.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
