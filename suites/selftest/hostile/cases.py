"""The hostile-input corpus: every entry point against damaged, wrong-typed,
non-UTF-8, not-a-number, huge, linked and duplicated input. Each case says
the entry point, the input, the documented exit status and a regular
expression for its one line: on stderr (bad input: exit 2), or on stdout
where the documented answer is there (a verdict's JSON, ci/verify's
REJECTED report). Run by ../hostile_inputs.py, one ctest entry per entry
point (selftest.hostile.<entry>).

Arguments are templates: {h} this folder, {t} a fresh temporary folder
(where the case's `make` wrote its input), {b} the build, {ci} ci/, and
{results}/{package}: a valid synthetic results folder and its package,
made afresh for the cases that need one."""
import gzip
import io
import json
import os
import shutil
import tarfile
from dataclasses import dataclass, field
from typing import Callable, Optional

UNWRITABLE = "/proc/tdc-hostile"  # not even root can create files here


@dataclass
class Case:
    entry: str                   # health, verify, package, mustpass, summarize, verdict, ...
    name: str
    argv: list                   # after the entry point's command
    exit: int
    line: str                    # regex for the one line
    stream: str = "stderr"       # where the line is: stderr (nothing on stdout) or stdout
    make: Optional[Callable] = None   # make(tmp) writes the input
    env: dict = field(default_factory=dict)
    needs: tuple = ()            # "results", "package", "build"


# --- inputs made at run time (they cannot be committed: huge, links, bytes) ---

def sparse_gigabyte(tmp, name="huge"):
    with open(os.path.join(tmp, name), "wb") as handle:
        handle.truncate(1 << 30)


def gtest_folder(tmp, files):
    """files: {relative path (bytes or str): content}."""
    base = os.path.join(os.fsencode(tmp), b"gtest")
    os.makedirs(base, exist_ok=True)
    for relative, content in files.items():
        path = os.path.join(base, os.fsencode(relative))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if content is None:
            os.makedirs(path)
        else:
            with open(path, "wb") as handle:
                handle.write(content.encode() if isinstance(content, str) else content)


GTEST_OK = ('<testsuites><testsuite name="Placement"><testcase name="X/cpu" classname="Placement" status="run">'
            '<properties><property name="test" value="{test}"/></properties></testcase></testsuite></testsuites>')


def with_gtest(files):
    return lambda tmp: gtest_folder(tmp, files)


def in_results(change):
    """A copy of the synthetic results folder, changed."""
    def make(tmp, results=None):
        target = os.path.join(tmp, "r")
        shutil.copytree(results, target, symlinks=True)
        change(target)
    make.needs_results = True
    return make


def write_json(path, document):
    with open(path, "w") as handle:
        json.dump(document, handle)


def edit_json(path, change):
    with open(path) as handle:
        document = json.load(handle)
    change(document)
    write_json(path, document)


def non_utf8_name(folder):
    gtest = os.path.join(os.fsencode(folder), b"gtest")
    os.makedirs(gtest, exist_ok=True)
    with open(os.path.join(gtest, b"caf\xe9.xml"), "wb") as handle:
        handle.write(b"<testsuites/>")


def tar_gz(tmp, members, name="p.tar.gz", compress=gzip.compress):
    """members: (name, bytes | None for a folder | ('link', target))."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT, encoding="utf-8",
                      errors="surrogateescape") as tar:
        for member, data in members:
            info = tarfile.TarInfo(member)
            if data is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif isinstance(data, tuple):
                info.type, info.linkname = tarfile.SYMTYPE, data[1]
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    with open(os.path.join(tmp, name), "wb") as handle:
        handle.write(compress(out.getvalue()))


def package_members(package):
    with tarfile.open(package) as tar:
        return [(m.name, None if m.isdir() else tar.extractfile(m).read()) for m in tar.getmembers()]


def from_package(change):
    """A copy of the synthetic package, its members changed by change(members)."""
    def make(tmp, package=None):
        tar_gz(tmp, change(package_members(package)))
    make.needs_package = True
    return make


def replace_member(suffix, data):
    return lambda members: [(n, data if n.endswith(suffix) else d) for n, d in members]


def fake_suite(tmp, stdout=b"", status=0):
    path = os.path.join(tmp, "suite")
    with open(path, "wb") as handle:
        handle.write(b"#!/bin/sh\nprintf '" + stdout + b"'\nexit " + str(status).encode() + b"\n")
    os.chmod(path, 0o755)


ONE_LINE_SUMMARY = {"tests": "a string"}


def summary_doc(tmp, change):
    """A valid summary (of {h}/passing.xml) written to {t}/s.json, changed."""
    from tdc import junit, results, summarize
    document = results.stamp(summarize.build(junit.read(os.path.join(os.path.dirname(__file__), "passing.xml")),
                                             {}, {}, 1.0, 1))
    change(document)
    write_json(os.path.join(tmp, "s.json"), document)


def _header(name, size):
    info = tarfile.TarInfo(name)
    info.size = size
    return info.tobuf(format=tarfile.GNU_FORMAT)


def _context():
    from tdc import results
    return results.stamp({"run_id": "20260101T000000Z-0123abcd", "host": "node1", "devices": {},
                          "environment": {}, "expect": "", "git": {"commit": None, "dirty": False, "dirty_files": []},
                          "suite_version": "0+0", "level": 1, "command_line": ""})


def _damaged_gzip(how):
    def change(tmp, package=None):
        data = open(package, "rb").read()
        if how == "truncated":
            data = data[: len(data) // 2]
        elif how == "crc":
            data = data[:-8] + bytes([data[-8] ^ 0xFF]) + data[-7:]
        else:
            data += b"garbage after the stream"
        with open(os.path.join(tmp, "p.tar.gz"), "wb") as handle:
            handle.write(data)
    change.needs_package = True
    return change


CASES = [
    # --- summarize: JUnit, GoogleTest XML, context, flags ---
    Case("summarize", "truncated JUnit", ["--junit={h}/truncated.xml"], 2, r"truncated\.xml is not well-formed XML"),
    Case("summarize", "JUnit without testcases", ["--junit={h}/no_testcases.xml"], 2, "has no testcases: nothing ran"),
    Case("summarize", "an HTML file as JUnit", ["--junit={h}/page.html"], 2, r"is not a JUnit file \(root element <html>\)"),
    Case("summarize", "a 1 GB JUnit file", ["--junit={t}/huge"], 2, "refused unread", make=sparse_gigabyte),
    Case("summarize", "a JUnit file that is not UTF-8", ["--junit={h}/latin1.xml"], 2, "is not UTF-8"),
    Case("summarize", "billion laughs", ["--junit={h}/billion_laughs.xml"], 2, "declares a DTD or entities"),
    Case("summarize", "a testcase twice, the first failing", ["--junit={h}/duplicate_testcase.xml"], 2, "appears twice"),
    Case("summarize", "a testcase without a name", ["--junit={h}/nameless_testcase.xml"], 2, "a testcase has no name"),
    Case("summarize", "time=\"abc\"", ["--junit={h}/time_abc.xml"], 2, "time='abc', not a number"),
    Case("summarize", "time=\"nan\"", ["--junit={h}/time_nan.xml"], 2, "not a finite duration"),
    Case("summarize", "--seconds nan", ["--junit={h}/passing.xml", "--seconds", "nan"], 2, "not a finite number"),
    Case("summarize", "--seconds inf", ["--junit={h}/passing.xml", "--seconds", "inf"], 2, "not a finite number"),
    Case("summarize", "--seconds -1", ["--junit={h}/passing.xml", "--seconds=-1"], 2, "is not negative"),
    Case("summarize", "--out in a missing folder", ["--junit={h}/passing.xml", "--out={t}/no/such/folder/s.json"], 2,
         "folder .* does not exist"),
    Case("summarize", "--out unwritable", ["--junit={h}/passing.xml", f"--out={UNWRITABLE}/s.json"], 2, "cannot write"),
    Case("summarize", "--junit a folder", ["--junit={h}"], 2, "is a directory"),
    Case("summarize", "context a list", ["--junit={h}/passing.xml", "--context={h}/list.json"], 2, "expected an object"),
    Case("summarize", "context with NaN", ["--junit={h}/passing.xml", "--context={h}/nan.json"], 2,
         "NaN is not a JSON number"),
    Case("summarize", "context not UTF-8", ["--junit={h}/passing.xml", "--context={h}/latin1.json"], 2, "is not UTF-8"),
    Case("summarize", "context of schema 2.0", ["--junit={h}/passing.xml", "--context={h}/version2.json"], 2,
         "this TDC reads 1.x"),
    Case("summarize", "GoogleTest XML truncated", ["--junit={h}/passing.xml", "--gtest-dir={t}/gtest"], 2,
         "not well-formed XML", make=with_gtest({"A.x.xml": "<testsuites><testsuite"})),
    Case("summarize", "a folder named *.xml", ["--junit={h}/passing.xml", "--gtest-dir={t}/gtest"], 2,
         "is a folder, not a GoogleTest XML file", make=with_gtest({"Placement.X.xml": None})),
    Case("summarize", "a GoogleTest file name that is not UTF-8", ["--junit={h}/passing.xml", "--gtest-dir={t}/gtest"], 2,
         "a file name is not UTF-8", make=with_gtest({b"caf\xe9.xml": "<testsuites/>"})),
    Case("summarize", "two results for one test", ["--junit={h}/passing.xml", "--gtest-dir={t}/gtest"], 2,
         "has two results", make=with_gtest({"a.xml": GTEST_OK.format(test="T"), "b.xml": GTEST_OK.format(test="T")})),
    Case("summarize", "a 1 GB GoogleTest XML file", ["--junit={h}/passing.xml", "--gtest-dir={t}/gtest"], 2,
         "refused unread", make=lambda t: (os.makedirs(f"{t}/gtest"), sparse_gigabyte(f"{t}/gtest", "A.x.xml"))),
    Case("summarize", "ordering_observed neither yes nor no", ["--junit={h}/passing.xml", "--gtest-dir={t}/gtest"], 2,
         "property ordering_observed='maybe', expected yes or no",
         make=with_gtest({"a.xml": GTEST_OK.format(test="T").replace(
             "</properties>", '<property name="ordering_observed" value="maybe"/></properties>')})),
    Case("summarize", "--gtest-dir missing", ["--junit={h}/passing.xml", "--gtest-dir={t}/none"], 2, "does not exist"),

    # --- verdict: its answer is the JSON on stdout; bad flags are one stderr line ---
    Case("verdict", "summary a list", ["--summary={h}/list.json"], 2, '"verdict": "unknown".*expected an object',
         "stdout"),
    Case("verdict", "summary a string", ["--summary={h}/string.json"], 2, '"verdict": "unknown"', "stdout"),
    Case("verdict", "summary truncated", ["--summary={h}/truncated.json"], 2, '"unknown".*not valid JSON', "stdout"),
    Case("verdict", "summary with NaN", ["--summary={h}/nan.json"], 2, '"unknown".*NaN is not a JSON number', "stdout"),
    Case("verdict", "summary of schema 2.0", ["--summary={h}/version2.json"], 2, '"unknown".*reads 1.x', "stdout"),
    Case("verdict", "summary not UTF-8", ["--summary={h}/latin1.json"], 2, '"unknown".*not UTF-8', "stdout"),
    Case("verdict", "a 1 GB summary", ["--summary={t}/huge"], 2, '"unknown".*refused unread', "stdout",
         make=sparse_gigabyte),
    Case("verdict", "tests a string", ["--summary={t}/s.json"], 2, '"unknown".*tests: a string', "stdout",
         make=lambda t: summary_doc(t, lambda d: d.update(tests="all"))),
    Case("verdict", "a test of an unknown status", ["--summary={t}/s.json"], 2, '"unknown".*is not one of', "stdout",
         make=lambda t: summary_doc(t, lambda d: d["tests"][0].update(status="fine"))),
    Case("verdict", "a failed test, no root-cause groups", ["--summary={t}/s.json"], 1,
         '"verdict": "unhealthy".*Placement', "stdout",
         make=lambda t: summary_doc(t, lambda d: d["tests"][0].update(status="failed", message="broken"))),
    Case("verdict", "context of the wrong type", ["--summary={t}/s.json"], 2, '"unknown".*context: a list', "stdout",
         make=lambda t: summary_doc(t, lambda d: d.update(context=[]))),
    Case("verdict", "--out unwritable", ["--summary={h}/list.json", f"--out={UNWRITABLE}/v.json"], 2, "cannot write"),
    Case("verdict", "--out a folder", ["--summary={h}/list.json", "--out={t}"], 2, "is a directory"),
    Case("verdict", "--level 5", ["--summary={h}/list.json", "--level=5"], 2, r"out of range \(1\.\.3\)"),

    # --- health ---
    Case("health", "--budget=0 (timeout 0 is no limit)", ["--build-dir={b}", "--budget=0"], 2,
         r"out of range \(10\.\.86400\)", needs=("build",)),
    Case("health", "--budget=08 (bash: value too great for base)", ["--build-dir={t}", "--budget=08"], 2,
         r"8 is out of range \(10\.\.86400\)"),
    Case("health", "--budget=09", ["--build-dir={t}", "--budget=09"], 2, r"out of range \(10\.\.86400\)"),
    Case("health", "--budget=999999999", ["--build-dir={b}", "--budget=999999999"], 2,
         r"out of range \(10\.\.86400\)", needs=("build",)),
    Case("health", "--budget=abc", ["--build-dir={t}", "--budget=abc"], 2, "is not a whole number"),
    Case("health", "--budget=-5", ["--build-dir={t}", "--budget=-5"], 2, "is not a whole number"),
    Case("health", "an unknown flag", ["--frobnicate"], 2, "unknown argument '--frobnicate'"),
    Case("health", "no build", ["--build-dir={t}/none"], 2, '"verdict": "unknown".*no TDC build', "stdout"),
    Case("health", "--out a file", ["--build-dir={b}", "--out={h}/passing.xml"], 2, '"unknown".*is not a folder',
         "stdout", needs=("build",)),
    Case("health", "--out someone's folder", ["--build-dir={b}", "--out={t}/mine"], 2,
         '"unknown".*refusing to empty it', "stdout", needs=("build",),
         make=lambda t: (os.makedirs(f"{t}/mine"), open(f"{t}/mine/thesis.tex", "w").write("years of work"))),
    Case("health", "--verdict unwritable", ["--build-dir={t}/none", f"--verdict={UNWRITABLE}/v.json"], 2,
         "cannot write"),

    # --- the pipeline itself ---
    Case("run", "--results a file", ["--build-dir={b}", "--results={h}/passing.xml"], 2, "is not a folder",
         needs=("build",)),
    Case("run", "--budget 0", ["--build-dir={b}", "--results={t}/r", "--budget=0"], 2, "out of range"),
    Case("run", "--level 4", ["--build-dir={b}", "--results={t}/r", "--level=4"], 2, "out of range"),

    # --- package ---
    Case("package", "context.json a list", ["{t}/r", "--product=p", "--submitter=s", "--out={t}"], 2,
         "expected an object", make=in_results(lambda r: write_json(f"{r}/context.json", []))),
    Case("package", "tests a string", ["{t}/r", "--product=p", "--submitter=s", "--out={t}"], 2,
         r"\.tests: a string", make=in_results(lambda r: edit_json(f"{r}/summary.json", lambda d: d.update(tests="x")))),
    Case("package", "summary with NaN", ["{t}/r", "--product=p", "--submitter=s", "--out={t}"], 2,
         "NaN is not a JSON number",
         make=in_results(lambda r: open(f"{r}/summary.json", "w").write('{"schema_version": "1.0", "x": NaN}'))),
    Case("package", "a file name that is not UTF-8", ["{t}/r", "--product=p", "--submitter=s", "--out={t}"], 2,
         "a file name is not UTF-8", make=in_results(non_utf8_name)),
    Case("package", "a folder named *.xml", ["{t}/r", "--product=p", "--submitter=s", "--out={t}"], 2,
         "is a folder, not a GoogleTest XML file", make=in_results(lambda r: os.makedirs(f"{r}/gtest/Folder.xml"))),
    Case("package", "gtest/passwd.xml -> /etc/passwd", ["{t}/r", "--product=p", "--submitter=s", "--out={t}"], 2,
         "is a symbolic link: refused",
         make=in_results(lambda r: os.symlink("/etc/passwd", f"{r}/gtest/passwd.xml"))),
    Case("package", "junit.xml -> /etc/passwd", ["{t}/r", "--product=p", "--submitter=s", "--out={t}"], 2,
         "is a symbolic link: refused",
         make=in_results(lambda r: (os.remove(f"{r}/junit.xml"), os.symlink("/etc/passwd", f"{r}/junit.xml")))),
    Case("package", "--out a file", ["{results}", "--product=p", "--submitter=s", "--out={h}/passing.xml"], 2,
         "is a file, not a folder", needs=("results",)),
    Case("package", "--out unwritable", ["{results}", "--product=p", "--submitter=s", f"--out={UNWRITABLE}/x"], 2,
         "cannot create", needs=("results",)),
    Case("package", "a newline in --submitter", ["{results}", "--product=p", "--submitter=B\nproduct: Other"], 2,
         "holds a newline or control character", needs=("results",)),
    Case("package", "a newline in --product", ["{results}", "--product=A\nlevel: 3", "--submitter=s"], 2,
         "holds a newline or control character", needs=("results",)),
    Case("package", "a newline in --compatibility", ["{results}", "--product=p", "--submitter=s",
                                                     "--compatibility=x\nsubmitter: y"], 2,
         "holds a newline or control character", needs=("results",)),
    Case("package", "an empty --product", ["{results}", "--product=", "--submitter=s"], 2, "--product is empty",
         needs=("results",)),
    Case("package", "--level=3 on a level-1 run", ["{results}", "--product=p", "--submitter=s", "--level=3"], 2,
         "a package cannot claim more", needs=("results",)),
    Case("package", "--gtest-dir=/nonexistent", ["{results}", "--product=p", "--submitter=s",
                                                 "--gtest-dir=/nonexistent"], 2, "does not exist", needs=("results",)),
    Case("package", "summary and context of different runs", ["{t}/r", "--product=p", "--submitter=s", "--out={t}"], 2,
         "are from different runs",
         make=in_results(lambda r: edit_json(f"{r}/summary.json", lambda d: d.update(run_id="20000101T000000Z-00000000")))),
    Case("package", "not a results folder", ["{t}", "--product=p", "--submitter=s", "--out={t}"], 2,
         "context file .* does not exist"),

    # --- verify: unreadable packages are one stderr line; a readable one's problems are REJECTED on stdout ---
    Case("verify", "truncated .tar.gz (EOFError before)", ["{t}/p.tar.gz"], 2,
         "ends before its gzip stream does: truncated", make=_damaged_gzip("truncated")),
    Case("verify", "a gzip CRC error", ["{t}/p.tar.gz"], 2, "not a valid gzip stream", make=_damaged_gzip("crc")),
    Case("verify", "trailing garbage", ["{t}/p.tar.gz"], 2, "data after the end of its gzip stream",
         make=_damaged_gzip("trailing")),
    Case("verify", "not gzip", ["{h}/passing.xml"], 2, "not a valid gzip stream"),
    Case("verify", "a folder", ["{h}"], 2, "cannot be read"),
    Case("verify", "missing", ["{t}/none.tar.gz"], 2, "cannot be read"),
    Case("verify", "'..' in a member", ["{t}/p.tar.gz"], 2, "escapes the package",
         make=lambda t: tar_gz(t, [("pkg", None), ("pkg/../../etc/cron.d/x", b"x")])),
    Case("verify", "an absolute member", ["{t}/p.tar.gz"], 2, "escapes the package",
         make=lambda t: tar_gz(t, [("pkg", None), ("/etc/passwd", b"x")])),
    Case("verify", "a symbolic link member", ["{t}/p.tar.gz"], 2, "a link, device or FIFO",
         make=from_package(lambda m: m + [(m[0][0] + "/gtest/passwd.xml", ("link", "/etc/passwd"))])),
    Case("verify", "a member name that is not UTF-8", ["{t}/p.tar.gz"], 2, "not UTF-8",
         make=lambda t: tar_gz(t, [("pkg", None), ("pkg/caf\udce9.xml", b"x")])),
    Case("verify", "a member twice, the first junit.xml failing", ["{t}/p.tar.gz"], 2, "twice",
         make=from_package(lambda m: [m[0], (m[0][0] + "/junit.xml",
                                             b'<testsuite><testcase name="x" status="fail"/></testsuite>')] + m[1:])),
    Case("verify", "two top folders", ["{t}/p.tar.gz"], 2, "one top folder",
         make=lambda t: tar_gz(t, [("a", None), ("b", None)])),
    Case("verify", "a member that says 4 GB", ["{t}/p.tar.gz"], 2, "refused unextracted",
         make=lambda t: open(f"{t}/p.tar.gz", "wb").write(gzip.compress(
             _header("pkg/bench/zeros.log", 4 << 30) + bytes(1 << 16)))),
    Case("verify", "a STATEMENT that is not UTF-8", ["{t}/p.tar.gz"], 1, r"problem: STATEMENT is missing or damaged \(.*not UTF-8",
         "stdout", make=from_package(replace_member("/STATEMENT", b"product: caf\xe9\n"))),
    Case("verify", "context.json a list", ["{t}/p.tar.gz"], 1, r"problem: context\.json is missing or damaged \(.*expected an object",
         "stdout", make=from_package(replace_member("/context.json", b"[]"))),
    Case("verify", "summary.json with NaN", ["{t}/p.tar.gz"], 1, r"problem: summary\.json is missing or damaged \(.*NaN",
         "stdout", make=from_package(replace_member("/summary.json", b'{"schema_version": "1.0", "a": NaN}'))),
    Case("verify", "waivers.json a string", ["{t}/p.tar.gz"], 1, r"problem: waivers\.json is missing or damaged",
         "stdout", make=from_package(replace_member("/waivers.json", b'"none"'))),
    Case("verify", "junit.xml billion laughs", ["{t}/p.tar.gz"], 1, "problem: junit.xml is missing or damaged .*DTD",
         "stdout", make=from_package(replace_member("/junit.xml", open(os.path.join(
             os.path.dirname(__file__), "billion_laughs.xml"), "rb").read()))),
    Case("verify", "an unknown flag", ["{h}/passing.xml", "--frobnicate"], 2, "unrecognized arguments: --frobnicate"),

    # --- mustpass ---
    Case("mustpass", "a list that is not UTF-8", ["--build-dir={b}", "--check", "--mustpass-dir={t}/m"], 2,
         "is not UTF-8", needs=("build",),
         make=lambda t: (os.makedirs(f"{t}/m"), shutil.copy(os.path.join(os.path.dirname(__file__),
                                                                             "latin1_mustpass.txt"), f"{t}/m/level1.txt"))),
    Case("mustpass", "--write to an unwritable place", ["--build-dir={b}", "--write", f"--mustpass-dir={UNWRITABLE}"], 2,
         "cannot create", needs=("build",)),
    Case("mustpass", "not a build", ["--build-dir={t}", "--check"], 2, "is not a configured build"),
    Case("mustpass", "neither --write nor --check", ["--build-dir={t}"], 2, "one of the arguments --write --check"),

    # --- the bench gates ---
    Case("check-thresholds", "a NaN time", ["{t}/r.json"], 2, "NaN is not a JSON number",
         make=lambda t: open(f"{t}/r.json", "w").write('{"benchmarks": [{"name": "transfer/d2d/cpu/4096", "real_time": NaN}]}')),
    Case("check-thresholds", "a negative time", ["{t}/r.json"], 2, "not a finite non-negative number",
         make=lambda t: open(f"{t}/r.json", "w").write('{"benchmarks": [{"name": "transfer/d2d/cpu/4096", "real_time": -3}]}')),
    Case("check-thresholds", "an infinite bandwidth", ["{t}/r.json"], 2, "Infinity is not a JSON number",
         make=lambda t: open(f"{t}/r.json", "w").write(
             '{"benchmarks": [{"name": "transfer/d2d/cpu/4096", "real_time": 1, "bytes_per_second": Infinity}]}')),
    Case("check-thresholds", "a string bandwidth", ["{t}/r.json"], 2, "bytes_per_second is 'fast'",
         make=lambda t: open(f"{t}/r.json", "w").write(
             '{"benchmarks": [{"name": "transfer/d2d/cpu/4096", "real_time": 1, "bytes_per_second": "fast"}]}')),
    Case("check-thresholds", "a device name that is a list", ["{t}/r.json"], 2, "is list, expected a string",
         make=lambda t: open(f"{t}/r.json", "w").write(
             '{"context": {"tdc.device.cpu.name": ["A"]}, "benchmarks": []}')),
    Case("check-thresholds", "results a list", ["{h}/list.json"], 2, "not a Google Benchmark JSON file"),
    Case("check-thresholds", "truncated results", ["{h}/truncated.json"], 2, "not valid JSON"),
    Case("check-thresholds", "1 GB of results", ["{t}/huge"], 2, "refused unread", make=sparse_gigabyte),
    Case("check-thresholds", "results not UTF-8", ["{h}/latin1.json"], 2, "is not UTF-8"),
    Case("check-thresholds", "thresholds with NaN", ["--thresholds={h}/nan.json", "{h}/list.json"], 2,
         "not a Google Benchmark JSON file|NaN"),
    Case("compare", "--max-regression nan", ["{h}/list.json", "{h}/list.json", "--max-regression", "nan"], 2,
         "not a finite number"),
    Case("compare", "--max-regression inf", ["{h}/list.json", "{h}/list.json", "--max-regression=inf"], 2,
         "not a finite number"),
    Case("compare", "--noise-factor -1", ["{h}/list.json", "{h}/list.json", "--noise-factor=-1"], 2, "must be >= 0"),
    Case("compare", "a folder against a file", ["{h}", "{h}/list.json"], 2, "a folder with a folder"),
    Case("compare", "a folder without benchmark files", ["{t}", "{t}"], 2, "holds no Google Benchmark JSON file"),
    Case("compare", "truncated baseline", ["{h}/truncated.json", "{h}/truncated.json"], 2, "not valid JSON"),
    Case("compare", "NaN in the baseline", ["{h}/nan.json", "{h}/nan.json"], 2, "NaN is not a JSON number"),
    Case("compare", "a missing file", ["{t}/a.json", "{t}/b.json"], 2, "does not exist"),

    # --- the waiver check's Python side ---
    Case("check-waivers", "a suite binary that does not exist", ["--run=/nonexistent/tdc_forward"], 2,
         "cannot run /nonexistent/tdc_forward"),
    Case("check-waivers", "--memo unwritable", ["--run={t}/suite", f"--memo={UNWRITABLE}/memo"], 2, "cannot create",
         make=lambda t: fake_suite(t, b"w.txt:2\\tmatched\\n")),
    Case("check-waivers", "a suite that prints bytes that are not UTF-8", ["--run={t}/suite"], 0,
         "0 matched no test", "stdout", make=lambda t: fake_suite(t, b"caf\\351.txt:2\\tmatched\\n")),
    Case("check-waivers", "a damaged memo is asked again", ["--run={t}/suite", "--memo={t}/memo"], 0,
         "0 matched no test$", "stdout",
         make=lambda t: (fake_suite(t, b"w.txt:2\\tmatched\\n"), open(f"{t}/memo", "wb").write(b"caf\xe9\n"))),
    Case("check-waivers", "no --run", [], 2, "the following arguments are required: --run"),

    # --- annotate, context ---
    Case("annotate", "truncated JUnit", ["--junit={h}/truncated.xml", "--context={t}/c.json"], 2, "not well-formed",
         make=lambda t: write_json(f"{t}/c.json", _context())),
    Case("annotate", "context a list", ["--junit={h}/passing.xml", "--context={h}/list.json"], 2, "expected an object"),
    Case("context", "not a build", ["--build-dir={t}", "--out={t}/c.json"], 2, "is not a configured build"),

    # --- fleet-plan: the CI templates' host x build list ---
    Case("fleet-plan", "truncated list", ["{h}/truncated.json", "--github-matrix"], 2, "truncated.json"),
    Case("fleet-plan", "a list that is not UTF-8", ["{h}/latin1.json", "--github-matrix"], 2, "is not UTF-8"),
    Case("fleet-plan", "a 1 GB list", ["{t}/huge", "--gitlab-matrix"], 2, "refused unread", make=sparse_gigabyte),
    Case("fleet-plan", "a list of strings", ["{t}/l.json", "--github-matrix"], 2, "entry 0 is a JSON string",
         make=lambda t: write_json(f"{t}/l.json", ["gpu-node-01"])),
    Case("fleet-plan", "a host name that is an escape sequence", ["{t}/l.json", "--github-matrix"], 2,
         "is not a host name", make=lambda t: write_json(f"{t}/l.json", [
             {"host": "n1\x1b]0;owned\x07", "kind": "cpu", "builds": ["system"]}])),
    Case("fleet-plan", "a build that is a shell command", ["{t}/l.json", "--github-matrix"], 2, "is not a LibTorch",
         make=lambda t: write_json(f"{t}/l.json", [{"host": "n1", "kind": "cpu", "builds": ["$(reboot)"]}])),
    Case("fleet-plan", "a host twice", ["{t}/l.json", "--github-matrix"], 2, "is listed twice",
         make=lambda t: write_json(f"{t}/l.json", [{"host": "n1", "kind": "cpu", "builds": ["system"]}] * 2)),
    Case("fleet-plan", "--tasks unwritable", ["{t}/l.json", f"--tasks={UNWRITABLE}/t.json", "--packages={t}"], 2,
         "cannot write tasks file", make=lambda t: write_json(f"{t}/l.json", [
             {"host": "n1", "kind": "cpu", "builds": ["system"]}])),
]
