#!/usr/bin/env python3
"""Makes a level-1 package from this build (ci/health, ci/package), with the
loopback library loaded as a vendor would load theirs, checks that ci/verify
accepts it and says which devices it covers, then tampers with copies of it,
one way each, and checks that ci/verify rejects each copy with a message
naming the tampering; and that ci/package refuses what must not go into a
package.

  package_tampering.py --build-dir BUILD
A tree with uncommitted changes makes the untampered package fail on "dirty
tree" alone; the other cases still have to add their own message. Cases by
finding (issue "Fail closed, round 3"): 6 (checked nothing), 7 (links,
injection, STATEMENT and MANIFEST, flags, expansion); issue "Results ...": 2
(the run's whole gtest folder, files of another run), 3 (coverage)."""
import argparse
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

from health_budget import BUDGET, TIMEOUT

from tdc import ROOT
from tdc.packaging import MANIFEST, manifest_lines

CI = os.path.join(ROOT, "ci")


def verify(package):
    run = subprocess.run([sys.executable, os.path.join(CI, "verify"), package],
                         capture_output=True, text=True, timeout=300)
    problems = [l[len("problem: "):] for l in run.stdout.splitlines() if l.startswith("problem: ")]
    return run.returncode, problems, run.stdout + run.stderr


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


def edit_text(path, change):
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(change(text))


def own_test(stage, prefix):
    summary = json.load(open(os.path.join(stage, "summary.json")))
    return next(t for t in summary["tests"] if t["name"].startswith(prefix) and not t["twin"]
                and t["device"].endswith(":0"))


def set_status(stage, names, status, message):
    """Turns tests into `status` in both summary.json and junit.xml (they agree)."""
    def change(summary):
        for test in summary["tests"]:
            if test["name"] in names:
                test.update(status=status, message=message)
        summary["failures_by_root_cause"] = [g for g in summary["failures_by_root_cause"]
                                             if g["root_cause"] not in names]
    edit_json(os.path.join(stage, "summary.json"), change)
    junit_status = {"skipped": "notrun", "failed": "fail", "passed": "run"}[status]
    child = {"skipped": "<skipped/>", "failed": '<failure message="x"/>', "passed": ""}[status]

    def rewrite(text):
        for name in names:
            text = re.sub(r'(<testcase name="' + re.escape(name) + r'"[^>]*?)status="[a-z]+"([^>]*?)(/?)>',
                          lambda m: f'{m.group(1)}status="{junit_status}"{m.group(2)}>{child}'
                                    + ("</testcase>" if m.group(3) else ""), text, count=1)
        return text
    edit_text(os.path.join(stage, "junit.xml"), rewrite)


# --- tamperings: each returns whether the tamperer rewrites the MANIFEST ---

def edited_result(stage):
    edit_text(os.path.join(stage, "junit.xml"), lambda t: t.replace('time="', 'time="1', 1))
    return False


def removed_test(stage):
    name = own_test(stage, "Placement.RoundTrip16MiBIsExact")["name"]
    edit_text(os.path.join(stage, "junit.xml"), lambda t: re.sub(
        r'<testcase name="' + re.escape(name) + r'".*?</testcase>\s*', "", t, flags=re.S))
    edit_json(os.path.join(stage, "summary.json"),
              lambda s: s.update(tests=[t for t in s["tests"] if t["name"] != name]))
    for folder, _, files in os.walk(os.path.join(stage, "gtest")):
        for f in files:
            if os.path.relpath(os.path.join(folder, f), os.path.join(stage, "gtest"))[:-4] == name:
                os.remove(os.path.join(folder, f))
    return True


def extra_file(stage):
    open(os.path.join(stage, "notes.txt"), "w").write("not part of a package\n")
    return False


def dirty_tree(stage):
    edit_json(os.path.join(stage, "context.json"), lambda c: c["git"].update(dirty=True))
    return True


def waiver_without_tracker(stage):
    name = own_test(stage, "Placement.ModuleToMovesParametersAndBuffers")["name"]
    set_status(stage, {name}, "skipped", "")
    edit_json(os.path.join(stage, "summary.json"), lambda s: [t.update(
        status="known_failure", message="known failure (suites/known_failures.txt:12): waived without a tracker")
        for t in s["tests"] if t["name"] == name])
    edit_json(os.path.join(stage, "waivers.json"), lambda w: w["waivers"].append(
        {"test": name, "device": "x", "origin": "suites/known_failures.txt:12", "category": None,
         "tracker": None, "message": "m"}))
    return True


def claimed_level_3(stage):
    edit_json(os.path.join(stage, "context.json"), lambda c: c.update(level=2))
    edit_text(os.path.join(stage, "STATEMENT"), lambda t: t.replace("level: 1", "level: 3"))
    return True


def level_3_without_expect(stage):
    edit_json(os.path.join(stage, "context.json"), lambda c: c.update(level=3, expect=""))
    edit_text(os.path.join(stage, "STATEMENT"), lambda t: t.replace("level: 1", "level: 3"))
    return True


def everything_skipped(stage):  # finding 6
    names = {t["name"] for t in json.load(open(os.path.join(stage, "summary.json")))["tests"]}
    set_status(stage, names, "skipped", "no device")
    return True


def skipped_on_the_only_expected_device(stage):  # finding 6
    name = own_test(stage, "Placement.RoundTrip16MiBIsExact")["name"]
    set_status(stage, {name}, "skipped", "loopback:0 is absent")
    edit_json(os.path.join(stage, "context.json"), lambda c: c.update(expect=c["expect"].split(":")[0] + ":1"))
    return True


def junit_without_testcases(stage):  # finding 6
    edit_text(os.path.join(stage, "junit.xml"), lambda t: re.sub(r"<testcase .*?</testcase>\s*|<testcase [^>]*/>\s*",
                                                                 "", t, flags=re.S))
    return True


def junit_is_html(stage):  # finding 6
    open(os.path.join(stage, "junit.xml"), "w").write("<html><body>results</body></html>\n")
    return True


def duplicate_testcase_first_fails(stage):  # finding 6
    name = own_test(stage, "Placement.RoundTrip16MiBIsExact")["name"]
    edit_text(os.path.join(stage, "junit.xml"), lambda t: t.replace(
        "<testcase ", f'<testcase name="{name}" status="fail"><failure message="corrupt"/></testcase><testcase ', 1))
    return True


def statement_field_twice(stage):  # finding 7
    edit_text(os.path.join(stage, "STATEMENT"), lambda t: t + "product: Other\n")
    return True


def statement_unknown_field(stage):  # finding 7
    edit_text(os.path.join(stage, "STATEMENT"), lambda t: t + "certified: yes\n")
    return True


def manifest_path_twice(stage):  # finding 7
    with open(os.path.join(stage, MANIFEST), "w") as f:
        lines = manifest_lines(stage)
        f.write("".join(lines) + "0" * 64 + "  " + lines[0].split("  ", 1)[1])
    return False


def result_of_another_run(stage):  # issue "Results", finding 2
    """A GoogleTest file of a check this run's summary does not list."""
    os.makedirs(os.path.join(stage, "gtest", "Ghost.Check"), exist_ok=True)
    with open(os.path.join(stage, "gtest", "Ghost.Check", "cpu.xml"), "w") as f:
        f.write('<testsuites><testsuite name="Ghost"><testcase name="Check/cpu" classname="Ghost">'
                '<properties><property name="test" value="Ghost.Check/cpu"/>'
                '<property name="entry" value="ghost@host"/><property name="check" value="Ghost.Check"/>'
                '</properties></testcase></testsuite></testsuites>\n')
    return True


def record_flipped_to_failed(stage):  # issue "Results", finding 2
    """One check's GoogleTest XML says it failed; the summary still says
    passed (a failure hidden, the MANIFEST rewritten to match)."""
    name = own_test(stage, "Placement.RoundTrip16MiBIsExact")["name"]
    for folder, _, files in os.walk(os.path.join(stage, "gtest")):
        for f in files:
            path = os.path.join(folder, f)
            text = open(path).read()
            if f'<property name="test" value="{name}"/>' in text:
                edit_text(path, lambda t: re.sub(r"(<testcase [^>]*?)(/?)>",
                                                 lambda m: m.group(1) + '><failure message="flipped"/>'
                                                 + ("</testcase>" if m.group(2) else ""), t, count=1))
                return True
    raise AssertionError(f"no GoogleTest XML of {name} in the package")


def summary_of_another_run(stage):  # issue "Results", finding 2
    edit_json(os.path.join(stage, "summary.json"), lambda s: s.update(run_id="20000101T000000Z-00000000"))
    return True


CASES = [  # (tampering, message ci/verify must print)
    (edited_result, "edited file: junit.xml does not match its sha256 in MANIFEST"),
    (removed_test, "check Placement.RoundTrip16MiBIsExact has no result on expected device"),
    (extra_file, "extra file: notes.txt is not in MANIFEST"),
    (dirty_tree, "dirty tree: the run was made from a tree with uncommitted changes"),
    (waiver_without_tracker, "waiver without a tracker: "),
    (claimed_level_3, "claimed level 3 but the run was level 2"),
    (level_3_without_expect, "level 3 without TDC_EXPECT proves nothing about any accelerator"),
    (everything_skipped, "nothing was checked: no test passed"),
    (skipped_on_the_only_expected_device, "check Placement.RoundTrip16MiBIsExact did not run on expected device"),
    (junit_without_testcases, "has no testcases: nothing ran"),
    (junit_is_html, "is not a JUnit file (root element <html>)"),
    (duplicate_testcase_first_fails, "appears twice: refused"),
    (statement_field_twice, "STATEMENT gives product twice"),
    (statement_unknown_field, "STATEMENT line 8 is not '<field>: <value>' with a known field"),
    (manifest_path_twice, "MANIFEST lists "),
    (result_of_another_run, "gtest/Ghost.Check/cpu.xml: a result for "),
    (record_flipped_to_failed, "passed; its GoogleTest XML (gtest/"),
    (summary_of_another_run, "summary.json is from run 20000101T000000Z-00000000"),
]


def unreadable_packages(package, tmp):
    """Packages ci/verify must refuse as unreadable (exit 2, one line), before extracting."""
    data = open(package, "rb").read()
    raw = gzip.decompress(data)
    made = {}
    made["truncated gzip"] = (data[: len(data) // 2], "ends before its gzip stream does: truncated")
    made["CRC error"] = (data[:-8] + bytes([data[-8] ^ 0xFF]) + data[-7:], "not a valid gzip stream")
    made["trailing garbage"] = (data + b"garbage", "has data after the end of its gzip stream")
    # A duplicate member whose first junit.xml fails (finding 6).
    top = tarfile.open(fileobj=io.BytesIO(raw)).getnames()[0].split("/")[0]
    first = tarfile.TarInfo(f"{top}/junit.xml")
    failing = b'<testsuite><testcase name="x" status="fail"><failure message="broken"/></testcase></testsuite>'
    first.size = len(failing)
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        tar.addfile(_dir(top))
        tar.addfile(first, io.BytesIO(failing))
        with tarfile.open(fileobj=io.BytesIO(raw)) as original:
            for m in original.getmembers():
                if m.name != top:
                    tar.addfile(m, original.extractfile(m) if m.isfile() else None)
    made["duplicate member, the first junit.xml failing"] = (gzip.compress(out.getvalue()), "twice")
    # A symbolic link to /etc/passwd among the GoogleTest XML (finding 7).
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        with tarfile.open(fileobj=io.BytesIO(raw)) as original:
            for m in original.getmembers():
                tar.addfile(m, original.extractfile(m) if m.isfile() else None)
        link = tarfile.TarInfo(f"{top}/gtest/passwd.xml")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    made["symbolic link to /etc/passwd"] = (gzip.compress(out.getvalue()), "a link, device or FIFO")
    # 4 GB of members in a small file: refused by the sizes, before extracting (finding 7).
    bomb = tarfile.TarInfo(f"{top}/bench/zeros.log")
    bomb.size = 4 << 30
    made["members that say 4 GB"] = (gzip.compress(_dir(top).tobuf() + bomb.tobuf() + bytes(1 << 20)),
                                     "refused unextracted")
    paths = {}
    for what, (content, message) in made.items():
        path = os.path.join(tmp, re.sub(r"\W+", "_", what) + ".tar.gz")
        with open(path, "wb") as f:
            f.write(content)
        paths[what] = (path, message)
    return paths


def _dir(name):
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    return info


def package_cases(results, tmp):
    """ci/package refusals (finding 7): (what, extra arguments, message)."""
    os.symlink("/etc/passwd", os.path.join(results, "gtest", "passwd.xml"))
    return [("a symbolic link among the results", [], "is a symbolic link: refused"),
            ("a newline in --submitter", ["--submitter=B\nproduct: Other"], "holds a newline"),
            ("a newline in --compatibility", ["--compatibility=1\nlevel: 3"], "holds a newline"),
            ("an empty --product", ["--product="], "--product is empty"),
            ("--level=3 on a level-1 run", ["--level=3"], "a package cannot claim more"),
            ("--gtest-dir=/nonexistent", ["--gtest-dir=/nonexistent"], "--gtest-dir=/nonexistent does not exist")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    args = parser.parse_args()
    build = os.path.abspath(args.build_dir)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "results")
        env = dict(os.environ, TDC_BACKEND_LIBS=os.path.join(build, "lib", "libtdc_loopback.so"),
                   TDC_EXPECT="privateuseone:2")
        env.pop("TDC_DEVICES", None)
        health = subprocess.run([os.path.join(CI, "health"), f"--build-dir={build}", f"--out={results}",
                                 f"--budget={BUDGET}"], env=env, capture_output=True, text=True, timeout=TIMEOUT)
        if health.returncode != 0:
            print(f"FAILED: ci/health exited {health.returncode}: {health.stdout}{health.stderr}")
            return 1
        made = subprocess.run([os.path.join(CI, "package"), results, "--product=self-test",
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
        if code == 0 and not re.search(r"devices covered: \w+:0, \w+:1 \(TDC_EXPECT=privateuseone:2\)", report):
            failures.append(f"VERIFIED does not name the devices and expectation it covered: {report}")
        print(f"untampered: exit {code}" + (" (this tree is dirty)" if dirty_here else f": {report.strip()}"))
        # The package holds all of the run's GoogleTest XML, recursively.
        in_results = sum(len(f) for _, _, f in os.walk(os.path.join(results, "gtest")))
        with tarfile.open(package) as tar:
            in_package = sum(1 for n in tar.getnames() if "/gtest/" in n and n.endswith(".xml"))
        print(f"GoogleTest XML: {in_package} in the package, {in_results} in the results")
        if in_package != in_results or in_package == 0:
            failures.append(f"the package holds {in_package} of the run's {in_results} GoogleTest XML files")

        for tamper, message in CASES:
            stage = unpack(package, os.path.join(tmp, tamper.__name__))
            repack(stage, os.path.join(tmp, tamper.__name__ + ".tar.gz"), tamper(stage))
            code, problems, report = verify(os.path.join(tmp, tamper.__name__ + ".tar.gz"))
            named = any(p.startswith(message) or message in p for p in problems)
            print(f"{tamper.__name__}: exit {code}, {'named' if named else 'NOT named'}: {message}")
            if code != 1 or not named:
                failures.append(f"{tamper.__name__}: exit {code}, problems: {problems}")
        for what, (path, message) in unreadable_packages(package, tmp).items():
            code, _, report = verify(path)
            lines = [l for l in report.splitlines() if l.strip()]
            ok = code == 2 and len(lines) == 1 and message in lines[0] and "Traceback" not in report
            print(f"{what}: exit {code}, {'refused' if ok else 'NOT refused'}: {lines[-1:] }")
            if not ok:
                failures.append(f"{what}: exit {code}, {report.strip()[-300:]}")
        for what, extra, message in package_cases(results, tmp):
            run = subprocess.run([os.path.join(CI, "package"), results, "--product=self-test",
                                  "--submitter=tdc self-test", f"--out={tmp}/refused", *extra],
                                 capture_output=True, text=True, timeout=120)
            lines = [l for l in run.stderr.splitlines() if l.strip()]
            ok = run.returncode == 2 and len(lines) == 1 and message in lines[0]
            print(f"ci/package, {what}: exit {run.returncode}, {'refused' if ok else 'NOT refused'}: {lines}")
            if not ok:
                failures.append(f"ci/package, {what}: exit {run.returncode}: {run.stdout}{run.stderr}")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
