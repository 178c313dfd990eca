"""GoogleTest's own XML: the metadata the fixtures record for each test
(properties check, device, device_type, dtype, known_failure) and why it
failed or skipped, which ctest's JUnit does not carry.

A results folder's gtest/ is read recursively. A record is keyed by the
`test` property of its <testcase> when present (a batched run writes several
testcases in one file, each naming its full ctest-style name, e.g.
"loopback:Placement.X/loopback_0"), else by the file's path under the folder
less ".xml" (one testcase per file, path = ctest name). A file that cannot be
read is an error, never skipped: a lost `check` property changes what the
fault matrix and the verifier conclude.
"""
import os
import re
import shutil
from dataclasses import dataclass

from tdc import junit, safeio
from tdc.errors import InputError

METADATA = ("check", "device", "device_type", "dtype", "known_failure")
# How many XML files a results folder may hold (a level-3 run on 8 devices
# writes about 1,000).
FILE_LIMIT = 100_000


@dataclass
class Record:
    key: str
    properties: dict       # the metadata properties present
    status: str            # junit.status_of's rule
    reason: str            # the failure or skip message, one line
    path: str              # the file, relative to the folder
    seconds: float = 0.0

    @property
    def known_failure(self):
        return "known_failure" in self.properties


def xml_files(directory):
    """Every *.xml under directory, relative, sorted; InputError for a name
    that is not UTF-8 or a folder named *.xml."""
    found = []
    for folder, subfolders, names in os.walk(directory, onerror=_raise):
        subfolders.sort()
        for name in sorted(names) + [d for d in subfolders if d.endswith(".xml")]:
            relative = os.path.relpath(os.path.join(folder, name), directory)
            try:
                relative.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError(f"{directory}: a file name is not UTF-8: {relative.encode('utf-8', 'surrogateescape')!r}")
            if name.endswith(".xml"):
                if os.path.isdir(os.path.join(folder, name)):
                    raise InputError(f"{directory}: {relative} is a folder, not a GoogleTest XML file")
                found.append(relative)
        if len(found) > FILE_LIMIT:
            raise InputError(f"{directory} holds more than {FILE_LIMIT} XML files: refused")
    return found


def _raise(error):
    raise InputError(f"cannot read {error.filename}: {error.strerror}")


def properties_of(case):
    return {p.get("name"): p.get("value") or "" for p in case.iter("property") if p.get("name")}


def records_of_file(directory, relative):
    """The records of one GoogleTest XML file."""
    path = os.path.join(directory, relative)
    root = safeio.parse_xml(path, "GoogleTest XML file")
    if root.tag not in ("testsuites", "testsuite"):
        raise InputError(f"{path} is not GoogleTest XML (root element <{root.tag}>)")
    cases = list(root.iter("testcase"))
    fallback = relative[: -len(".xml")]
    unnamed = [c for c in cases if "test" not in properties_of(c)]
    # Several testcases and none names itself: only the one that ran can be
    # the file's (GoogleTest lists disabled tests as not run).
    if len(unnamed) > 1:
        ran = [c for c in unnamed if c.get("status", "run") == "run"]
        if len(ran) != 1:
            raise InputError(f"{path} holds {len(unnamed)} testcases without a `test` property: "
                             "cannot tell which result is which")
        unnamed = ran
    records = []
    for case in cases:
        properties = properties_of(case)
        if "test" in properties:
            key = properties["test"]
        elif case in unnamed:
            key = fallback
        else:
            continue
        records.append(Record(key=key, status=junit.status_of(case), reason=junit.reason_of(case),
                              path=relative, seconds=junit.seconds_of(case, path),
                              properties={k: v for k, v in properties.items() if k in METADATA}))
    return records


def file_stem(entry):
    """The file name tdc_batch gives an entry's XML: 'loopback:placement@loopback_0'
    -> 'loopback_placement@loopback_0' (fixtures/batch/main.cpp, file_stem)."""
    return re.sub(r"[^A-Za-z0-9._@+-]", "_", entry)


def owners(records, entries):
    """{ctest entry: [record keys]} for the records that are not an entry of
    their own: a batched entry ("placement@cpu") runs many checks and writes
    their XML as <stem>.xml, <stem>.<n>.xml, <stem>.stale.xml. A record is
    owned by the entry with the longest stem its file name starts with."""
    names = set(entries)
    stems = sorted(((file_stem(e), e) for e in names), key=lambda pair: -len(pair[0]))
    owned = {}
    for key, record in records.items():
        if key in names:
            continue
        base = os.path.basename(record.path)
        for stem, entry in stems:
            if base == stem + ".xml" or base.startswith(stem + "."):
                owned.setdefault(entry, []).append(key)
                break
    return owned


def full_name(case):
    """GoogleTest writes name="X/cpu" classname="Suite": the test is Suite.X/cpu."""
    suite = case.get("classname")
    return f"{suite}.{case.get('name')}" if suite else case.get("name")


def statuses_of_report(path):
    """{Suite.Test: status} of one GoogleTest XML report of a whole binary's
    run (--gtest_output=xml:PATH), by junit.status_of's rule."""
    root = safeio.parse_xml(path, "GoogleTest XML report")
    if root.tag not in ("testsuites", "testsuite"):
        raise InputError(f"{path} is not GoogleTest XML (root element <{root.tag}>)")
    found = {}
    for case in root.iter("testcase"):
        name = full_name(case)
        if not case.get("name") or name in found:
            raise InputError(f"{path}: a testcase without a name, or {name!r} twice")
        found[name] = junit.status_of(case)
    return found


def read_dir(directory):
    """{key: Record} for every GoogleTest XML file under directory; {} when
    directory is None. InputError (one line) when the folder is missing, a
    file is damaged, or two records share a key."""
    if directory is None:
        return {}
    if not os.path.isdir(directory):
        raise InputError(f"GoogleTest folder {directory} does not exist")
    records = {}
    for relative in xml_files(directory):
        for record in records_of_file(directory, relative):
            if record.key in records:
                raise InputError(f"{directory}: {record.key!r} has two results "
                                 f"({records[record.key].path} and {record.path}): refused")
            records[record.key] = record
    return records


def has_files(folder):
    return any(files for _, _, files in os.walk(folder))


# Where the suites write GoogleTest XML until they honour TDC_GTEST_DIR.
SHARED_FOLDER = os.path.join("results", "gtest")


def run_records(gtest_dir, build_dir, names, since):
    """The records of one run whose TDC_GTEST_DIR was gtest_dir.

    SEAM(TDC_GTEST_DIR): until the suites honour TDC_GTEST_DIR (the lead's
    change to fixtures/src/gtest_main.cpp and cmake/TdcTesting.cmake) their
    XML lands in <build>/results/gtest, shared by every run of the build.
    When gtest_dir is empty after the run, only the files written since the
    run started (`since`, a time.time()), for entries of this run (`names`),
    are copied from there into gtest_dir, so that gtest_dir is the run's own
    folder either way. Delete this branch when the suites write to
    TDC_GTEST_DIR."""
    shared = os.path.join(build_dir, SHARED_FOLDER)
    if not has_files(gtest_dir) and os.path.isdir(shared) and \
            os.path.realpath(shared) != os.path.realpath(gtest_dir):
        for relative in xml_files(shared):
            source = os.path.join(shared, relative)
            if relative[: -len(".xml")] in names and os.stat(source).st_mtime >= since:
                target = os.path.join(gtest_dir, relative)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(source, target)
    return read_dir(gtest_dir)
