"""GoogleTest's own XML: the metadata the fixtures record for each test
(properties check, device, device_type, dtype, known_failure), whether an
ordering check saw work pending (ordering_observed, tdc.ordering), what it
measured (properties named measured.<name>, whose value is JSON: a number,
or a matrix {"unit", "rows", "columns", "values"} with null where a cell has
no value) and why it failed or skipped, which ctest's JUnit does not carry.

A results folder's gtest/ is read recursively. A record is keyed by the
`test` property of its <testcase> when present (every ctest entry is a batch
run by tdc_batch, which writes several testcases in one file, each naming
its full result name, e.g. "loopback:Placement.X/loopback_0", and the entry
that ran it, `entry`), else by the file's path under the folder less ".xml"
(one testcase per file, path = ctest name). A file that cannot be
read is an error, never skipped: a lost `check` property changes what the
fault matrix and the verifier conclude.
"""
import os
import re
import shutil
from dataclasses import dataclass, field

from tdc import junit, ordering, results, safeio, schema
from tdc.errors import InputError

METADATA = ("check", "device", "device_type", "dtype", "known_failure")
# A property named so carries a measurement (suites/qualification).
MEASURED = "measured."
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
    entry: str = ""        # the ctest entry that ran it (tdc_batch's `entry` property)
    text: str = ""         # every failure and skip message, whole
    isolation: str = ""    # batch, fallback (re-run alone after its batch died) or check
    seconds: float = 0.0
    measurements: dict = field(default_factory=dict)  # name -> number
    matrices: dict = field(default_factory=dict)      # name -> {"unit", "rows", "columns", "values"}
    ordering_observed: object = None                   # True / False (tdc.ordering), None: not an ordering check

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


def measurements_of(properties, path):
    """({name: number}, {name: matrix}) from the measured.<name> properties;
    InputError for a value that is neither (a damaged result is never read
    as one that measured nothing)."""
    numbers, matrices = {}, {}
    for key, text in properties.items():
        if not key.startswith(MEASURED):
            continue
        name = key[len(MEASURED):]
        where = f"{path}: measurement {key}"
        value = safeio.parse_json(text, where)
        if schema.type_matches(value, "number"):
            numbers[name] = value
            continue
        # The summary's own definition: one rule for what a matrix is.
        matrix = results.schema_of("summary")["$defs"]["matrix"]
        problem = schema.errors(value, matrix) if isinstance(value, dict) else "not a number or a matrix"
        if not problem and (len(value["values"]) != len(value["rows"]) or
                            any(len(row) != len(value["columns"]) for row in value["values"])):
            problem = "its values are not rows x columns"
        if problem:
            raise InputError(f"{where} is {problem if problem.startswith('not') else 'damaged: ' + problem}")
        matrices[name] = value
    return numbers, matrices


def records_of_file(directory, relative):
    """The records of one GoogleTest XML file."""
    path = os.path.join(directory, relative)
    root = safeio.parse_xml(path, "GoogleTest XML file")
    if root.tag not in ("testsuites", "testsuite"):
        raise InputError(f"{path} is not GoogleTest XML (root element <{root.tag}>)")
    cases = [(case, properties_of(case)) for case in root.iter("testcase")]
    fallback = relative[: -len(".xml")]
    unnamed = [c for c, properties in cases if "test" not in properties]
    # Several testcases and none names itself: only the one that ran can be
    # the file's (GoogleTest lists disabled tests as not run).
    if len(unnamed) > 1:
        ran = [c for c in unnamed if c.get("status", "run") == "run"]
        if len(ran) != 1:
            raise InputError(f"{path} holds {len(unnamed)} testcases without a `test` property: "
                             "cannot tell which result is which")
        unnamed = ran
    records = []
    for case, properties in cases:
        if "test" in properties:
            key = properties["test"]
        elif case in unnamed:
            key = fallback
        else:
            continue
        numbers, matrices = measurements_of(properties, path)
        records.append(Record(key=key, status=junit.status_of(case), reason=junit.reason_of(case),
                              path=relative, entry=properties.get("entry", ""),
                              isolation=properties.get("isolation", ""),
                              seconds=junit.seconds_of(case, path), text=junit.text_of(case),
                              properties={k: v for k, v in properties.items() if k in METADATA},
                              measurements=numbers, matrices=matrices,
                              ordering_observed=ordering.flag_of(properties, f"{path}: {key}")))
    return records


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
