#!/usr/bin/env python3
"""Runs one command and checks how it ended: exit status, the seed's four
report lines, and what it printed. Used by the self-tests that cannot be
GoogleTest assertions because they are about a whole process."""
import argparse
import os
import re
import subprocess
import sys

SEED_KEYS = ("selected_device", "model_device", "input_device", "output_device")


def seed_report(stdout):
    values = {}
    for line in stdout.splitlines():
        key, _, value = line.partition("=")
        if key in SEED_KEYS:
            values[key] = value
    return values


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit", type=int, required=True, help="expected exit status")
    parser.add_argument("--seed-report", nargs="?", const="", default=None,
                        help="stdout has the seed's four lines, all equal (to the value, if given)")
    parser.add_argument("--stdout-has", action="append", default=[])
    parser.add_argument("--stderr-line", help="regex one stderr line must match")
    parser.add_argument("--one-line", action="store_true",
                        help="stderr must be exactly one non-empty line")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the command")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command

    env = dict(os.environ)
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    problems = []
    if run.returncode != args.exit:
        problems.append(f"exit status {run.returncode}, expected {args.exit}")
    if args.seed_report is not None:
        values = seed_report(run.stdout)
        if set(values) != set(SEED_KEYS):
            problems.append(f"seed report lines missing: {sorted(set(SEED_KEYS) - set(values))}")
        elif len(set(values.values())) != 1:
            problems.append(f"seed report disagrees: {values}")
        elif args.seed_report and values["selected_device"] != args.seed_report:
            problems.append(f"selected {values['selected_device']}, expected {args.seed_report}")
    for text in args.stdout_has:
        if text not in run.stdout:
            problems.append(f"stdout lacks {text!r}")
    stderr_lines = [line for line in run.stderr.splitlines() if line.strip()]
    if args.stderr_line and not any(re.search(args.stderr_line, l) for l in stderr_lines):
        problems.append(f"no stderr line matches {args.stderr_line!r}")
    if args.one_line and len(stderr_lines) != 1:
        problems.append(f"stderr has {len(stderr_lines)} lines, expected exactly one")
    if problems:
        print("command:", " ".join(command))
        print("stdout:\n" + run.stdout)
        print("stderr:\n" + run.stderr)
        for problem in problems:
            print("FAILED:", problem)
        return 1
    print("ok:", " ".join(command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
