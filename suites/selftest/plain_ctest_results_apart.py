#!/usr/bin/env python3
"""A plain ctest run writes its GoogleTest XML to <build>/ctest-gtest, never
into <build>/results/, the folder ci/conformance's run leaves (issue
"Results ...", finding 2: a plain run after ci/conformance mixed 356 XML
files of its own into that run's package).

  plain_ctest_results_apart.py --build-dir BUILD
Exit status: 0 as expected, 1 not."""
import argparse
import os
import subprocess
import sys

ENTRY = r"^placement\.level1"  # the placement suite's level-1 entries: short, with GoogleTest XML


def files_of(folder):
    """{path: (size, mtime_ns)} of every file under folder."""
    found = {}
    for top, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            try:
                info = os.stat(path)
            except FileNotFoundError:
                continue
            found[path] = (info.st_size, info.st_mtime_ns)
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    args = parser.parse_args()
    build = os.path.abspath(args.build_dir)
    theirs, ours = os.path.join(build, "results"), os.path.join(build, "ctest-gtest")
    before_theirs, before_ours = files_of(theirs), files_of(ours)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TDC_")}
    run = subprocess.run(["ctest", "--test-dir", build, "-R", ENTRY], env=env, capture_output=True, text=True,
                         timeout=600)
    problems = []
    if run.returncode != 0:
        problems.append(f"ctest -R '{ENTRY}' exited {run.returncode}: {run.stdout[-600:]}{run.stderr[-300:]}")
    written = {p for p, v in files_of(ours).items() if before_ours.get(p) != v and p.endswith(".xml")}
    touched = sorted(p for p, v in files_of(theirs).items() if before_theirs.get(p) != v)
    print(f"plain ctest wrote {len(written)} GoogleTest XML file(s) under {ours}, "
          f"changed {len(touched)} file(s) under {theirs}")
    if not written:
        problems.append(f"no GoogleTest XML of the run under {ours}")
    if touched:
        problems.append(f"plain ctest wrote into ci/conformance's results folder: {touched[:3]}")
    for problem in problems:
        print("FAILED:", problem)
    if not problems:
        print("ok: plain ctest keeps its GoogleTest XML apart from ci/conformance's results")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
