#!/usr/bin/env python3
"""ci/check_waivers.py --memo keeps a passing verdict only while its inputs
are unchanged: the same waiver file, edited in place to hold a typo, must be
asked about again and fail, and a failing verdict is never kept.

  waiver_memo.py --passing FILE --dead FILE -- CHECK_WAIVERS_ARGS..."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def check(arguments, waivers, memo):
    env = dict(os.environ, TDC_KNOWN_FAILURES=waivers)
    run = subprocess.run([sys.executable, os.path.join(ROOT, "ci", "check_waivers.py"), *arguments,
                          f"--memo={memo}"], env=env, capture_output=True, text=True, timeout=600)
    return run.returncode, run.stdout + run.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--passing", required=True)
    parser.add_argument("--dead", required=True)
    parser.add_argument("arguments", nargs="+")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        waivers, memo = os.path.join(tmp, "waivers.txt"), os.path.join(tmp, "memo")
        shutil.copyfile(args.passing, waivers)
        steps = [("first pass asks", 0, "matched no test", "(kept"),
                 ("second pass is kept", 0, "(kept", None)]
        for name, status, wanted, unwanted in steps:
            code, output = check(args.arguments, waivers, memo)
            if code != status or wanted not in output or (unwanted and unwanted in output):
                print(f"FAIL {name}: exit {code}\n{output}")
                return 1
            print(f"ok   {name}")
        shutil.copyfile(args.dead, waivers)  # same path and size class, new text
        for name in ("the edited file is asked about again", "a failure is never kept"):
            code, output = check(args.arguments, waivers, memo)
            if code != 1 or "waiver matched no test" not in output or "(kept" in output:
                print(f"FAIL {name}: exit {code}\n{output}")
                return 1
            print(f"ok   {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
