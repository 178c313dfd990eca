#!/usr/bin/env python3
"""Checks which binaries carry GoogleTest, by their symbols: the programs and
libraries that are not test suites (tdc_core, device_select, the benchmarks)
must have none, defined or undefined. A suite is the control: if it shows no
GoogleTest symbols either, the method cannot see them and the check fails
instead of passing on nothing.

  links_no_googletest.py --with-googletest SUITE --without-googletest BINARY...
Exit status: 0 as expected, 1 otherwise."""
import argparse
import subprocess
import sys

from selftest_report import finish


def googletest_symbols(path):
    run = subprocess.run(["nm", "-C", path], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"links_no_googletest.py: nm cannot read {path}: {run.stderr.strip()}")
    return [line for line in run.stdout.splitlines() if "testing::" in line]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--with-googletest", required=True)
    parser.add_argument("--without-googletest", nargs="+", required=True)
    args = parser.parse_args()
    problems = []
    if not googletest_symbols(args.with_googletest):
        problems.append(f"the control {args.with_googletest} shows no GoogleTest symbols: nm sees nothing")
    for path in args.without_googletest:
        found = googletest_symbols(path)
        if found:
            problems.append(f"{path} carries GoogleTest ({len(found)} symbols, e.g. {found[0].strip()})")
    return finish(problems, f"{len(args.without_googletest)} binaries carry no GoogleTest; the control does")


if __name__ == "__main__":
    sys.exit(main())
