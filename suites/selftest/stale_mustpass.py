#!/usr/bin/env python3
"""tdc mustpass --check fails, naming both sides, when a committed list lacks
a check the suites have and lists one they do not.

  stale_mustpass.py --build-dir BUILD"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        lists = os.path.join(tmp, "mustpass")
        shutil.copytree(os.path.join(ROOT, "suites", "mustpass"), lists)
        path = os.path.join(lists, "level2.txt")
        lines = open(path).read().splitlines()
        dropped = next(l for l in lines if l and not l.startswith("#"))
        open(path, "w").write("\n".join([l for l in lines if l != dropped] + ["Ghost.NeverWritten", ""]))
        run = subprocess.run([sys.executable, "-m", "tdc", "mustpass",
                              f"--build-dir={args.build_dir}", "--check", f"--mustpass-dir={lists}"],
                             capture_output=True, text=True, timeout=600)
    print(run.stdout, run.stderr)
    wanted = [f"level 2: suites have {dropped}, not in", "lists Ghost.NeverWritten, which no suite has"]
    missing = [w for w in wanted if w not in run.stdout]
    if run.returncode != 1 or missing:
        print(f"FAILED: exit {run.returncode}, expected 1; missing messages: {missing}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
