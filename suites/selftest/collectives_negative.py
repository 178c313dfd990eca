#!/usr/bin/env python3
"""Runs the collectives suite with a planted fault and checks that every
collective the fault breaks is caught, by its line, or else that the backend
does not declare it and the rank proved so (a SKIP line ending "(confirmed:
it throws)": the rank ran it and it threw). No version table: what a build's
gloo lacks is tdc/compat/gloo.h's statement, proved by the run itself.

  collectives_negative.py --expect LINE [--expect LINE ...] [--env K=V ...] -- COMMAND...

LINE is "collective check failed: RESULT <collective> <dtype> ...". The
command must exit 1 when at least one LINE was a failure, else 0.
Exit status: 0 the fault was caught (or proved undeclared) everywhere, 1 not,
2 bad arguments."""
import argparse
import os
import re
import subprocess
import sys

RESULT = re.compile(r"RESULT (\S+) (\S+) ")


def undeclared(stdout, collective, dtype):
    """The proved SKIP line of `collective` in `dtype` (or of the whole dtype), or None."""
    family = re.sub(r"_root[0-9]+$", "", collective)
    for name in (collective, family, "every_collective"):
        for line in stdout.splitlines():
            if line.startswith(f"SKIP {name} {dtype}: ") and line.endswith("(confirmed: it throws)"):
                return line
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--expect", action="append", required=True)
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        print("collectives_negative: no command", file=sys.stderr)
        return 2
    env = dict(os.environ)
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    run = subprocess.run(command, env=env, capture_output=True, text=True, errors="replace", timeout=600)
    problems, caught = [], 0
    for line in args.expect:
        match = RESULT.search(line)
        if not match:
            print(f"collectives_negative: --expect {line!r} is no RESULT line", file=sys.stderr)
            return 2
        if line in run.stdout:
            caught += 1
            print(f"caught: {line}")
            continue
        proof = undeclared(run.stdout, match.group(1), match.group(2))
        if proof:
            print(f"undeclared, proved: {proof}")
        else:
            problems.append(f"neither caught nor proved undeclared: {line}")
    want = 1 if caught else 0
    if run.returncode != want:
        problems.append(f"exit status {run.returncode}, expected {want}")
    for problem in problems:
        print("FAILED:", problem)
    if problems:
        print(run.stdout[-6000:])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
