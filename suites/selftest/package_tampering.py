#!/usr/bin/env python3
"""Makes a level-1 package from this build (ci/health, ci/package), checks
that ci/verify accepts it, then tampers with copies of it, one way each, and
checks that ci/verify rejects each copy with a message naming the tampering.

  package_tampering.py --build-dir BUILD
A tree with uncommitted changes makes the untampered package fail on "dirty
tree" alone; the other cases still have to add their own message."""
import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "ci"))
from tdc_package import MANIFEST, manifest_lines  # noqa: E402


def verify(package):
    run = subprocess.run([sys.executable, os.path.join(ROOT, "ci", "verify"), package],
                         capture_output=True, text=True, timeout=120)
    problems = [l[len("problem: "):] for l in run.stdout.splitlines() if l.startswith("problem: ")]
    return run.returncode, problems, run.stdout


def unpack(package, into):
    with tarfile.open(package) as tar:
        tar.extractall(into)
    return os.path.join(into, os.listdir(into)[0])


def repack(stage, package, remanifest):
    if remanifest:  # a careful tamperer rewrites the manifest too
        with open(os.path.join(stage, MANIFEST), "w") as f:
            f.write("".join(manifest_lines(stage)))
    with tarfile.open(package, "w:gz") as tar:
        tar.add(stage, arcname=os.path.basename(stage))


def edit_json(path, change):
    with open(path) as f:
        data = json.load(f)
    change(data)
    with open(path, "w") as f:
        json.dump(data, f, indent=2)


def edited_result(stage):
    path = os.path.join(stage, "junit.xml")
    text = open(path).read()
    open(path, "w").write(text.replace('status="fail"', 'status="run"', 1) if 'status="fail"' in text
                          else text.replace('time="', 'time="1', 1))
    return False


def first_test(stage, prefix):
    summary = json.load(open(os.path.join(stage, "summary.json")))
    return next(t["name"] for t in summary["tests"] if t["name"].startswith(prefix) and t["device"] == "cpu")


def removed_test(stage):
    name = first_test(stage, "Placement.RoundTrip16MiBIsExact")
    path = os.path.join(stage, "junit.xml")
    text = open(path).read()
    text = re.sub(r'<testcase name="' + re.escape(name) + r'".*?</testcase>\s*', "", text, flags=re.S)
    open(path, "w").write(text)
    edit_json(os.path.join(stage, "summary.json"),
              lambda s: s.update(tests=[t for t in s["tests"] if t["name"] != name]))
    return True


def extra_file(stage):
    open(os.path.join(stage, "notes.txt"), "w").write("not part of a package\n")
    return False


def dirty_tree(stage):
    edit_json(os.path.join(stage, "context.json"), lambda c: c["git"].update(dirty=True))
    return True


def waiver_without_tracker(stage):
    name = first_test(stage, "Placement.ModuleToMovesParametersAndBuffers")
    message = "known failure (suites/known_failures.txt:12): waived without a tracker"

    def waive(summary):
        for test in summary["tests"]:
            if test["name"] == name:
                test.update(status="known_failure", message=message)
    edit_json(os.path.join(stage, "summary.json"), waive)
    path = os.path.join(stage, "junit.xml")
    text = open(path).read()
    text = re.sub(r'(<testcase name="' + re.escape(name) + r'"[^>]*?)status="run"([^>]*?)(/?)>',
                  lambda m: m.group(1) + 'status="notrun"' + m.group(2) + ">" + "<skipped/>" +
                  ("</testcase>" if m.group(3) else ""), text, count=1)
    open(path, "w").write(text)
    edit_json(os.path.join(stage, "waivers.json"),
              lambda w: w.append({"test": name, "origin": "suites/known_failures.txt:12", "tracker": None}))
    return True


def claimed_level_3(stage):
    edit_json(os.path.join(stage, "context.json"), lambda c: c.update(level=2))
    path = os.path.join(stage, "STATEMENT")
    statement = open(path).read()
    open(path, "w").write(statement.replace("level: 1", "level: 3"))
    return True


CASES = [  # (tampering, message ci/verify must print)
    (edited_result, "edited file: junit.xml does not match its sha256 in MANIFEST"),
    (removed_test, "check Placement.RoundTrip16MiBIsExact has no result on expected device cpu"),
    (extra_file, "extra file: notes.txt is not in MANIFEST"),
    (dirty_tree, "dirty tree: the run was made from a tree with uncommitted changes"),
    (waiver_without_tracker, "waiver without a tracker: Placement.ModuleToMovesParametersAndBuffers"),
    (claimed_level_3, "claimed level 3 but the run was level 2"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    args = parser.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "results")
        health = subprocess.run([os.path.join(ROOT, "ci", "health"), f"--build-dir={args.build_dir}",
                                 f"--out={results}", "--budget=280"], capture_output=True, text=True, timeout=600)
        if health.returncode != 0:
            print(f"FAILED: ci/health exited {health.returncode}: {health.stdout}{health.stderr}")
            return 1
        made = subprocess.run([os.path.join(ROOT, "ci", "package"), results, "--product=self-test",
                               "--submitter=tdc self-test", f"--out={tmp}"],
                              capture_output=True, text=True, timeout=120)
        if made.returncode != 0:
            print(f"FAILED: ci/package exited {made.returncode}: {made.stderr}")
            return 1
        package = made.stdout.strip()
        code, base_problems, report = verify(package)
        dirty_here = [p for p in base_problems if p.startswith("dirty tree")]
        if base_problems != dirty_here or (code == 0) == bool(dirty_here):
            failures.append(f"untampered package: exit {code}, problems {base_problems}")
        print(f"untampered: exit {code}" + (" (this tree is dirty)" if dirty_here else ""))
        for tamper, message in CASES:
            stage = unpack(package, os.path.join(tmp, tamper.__name__))
            repack(stage, os.path.join(tmp, tamper.__name__ + ".tar.gz"), tamper(stage))
            code, problems, report = verify(os.path.join(tmp, tamper.__name__ + ".tar.gz"))
            named = any(p.startswith(message) for p in problems)
            print(f"{tamper.__name__}: exit {code}, {'named' if named else 'NOT named'}: {message}")
            if code != 1 or not named:
                failures.append(f"{tamper.__name__}: exit {code}, problems: {problems}")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
