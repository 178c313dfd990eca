"""The results model: a test's statuses and what each means to every output,
and the JSON documents the tools write and read (summary, verdict, context,
waivers, the level-3 gate, and others as they come, e.g. the fleet matrix),
each with `schema_version` and a JSON Schema in
ci/tdc/schemas/<kind>.schema.json.

The statuses (STATUSES, in the order tables show them): passed, failed,
skipped, and known_failure (a failure a waiver in suites/known_failures.txt
marked). The known-failure rule: a known failure counts as skipped wherever
only JUnit's three outcomes exist (junit_status: the JUnit file, ctest's
view, a level's count of skipped checks). The fleet matrix folds a check's
instances on a device into its worst status (WORST_FIRST). Every tool takes
these from here; the schemas list them too, and ci/tests/test_statuses.py
holds the two together and fails on a status list written anywhere else.

A reader refuses, with one line: a document of an unknown major version, one
without a version, and one that does not match its schema (a wrong type, an
unknown status). Writers stamp the version and check their own output
against the schema before writing it (a mismatch there is our defect)."""
import json
import os

from tdc import names, safeio, schema
from tdc.errors import InputError

SCHEMA_VERSION = "1.0"
MAJOR = SCHEMA_VERSION.split(".")[0]
SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")
KINDS = ("summary", "verdict", "context", "waivers", "gate", "matrix")  # matrix: tdc.fleet.matrix

PASSED, FAILED, SKIPPED, KNOWN_FAILURE = "passed", "failed", "skipped", "known_failure"
# A test's status in summary.json, in the order tables show them, with what
# JUnit (tdc.junit, tdc.junit_report: passed, failed, skipped) calls it, the
# report's symbol and the fleet history's letter (tdc.fleet.history).
TABLE = {
    PASSED: {"junit": PASSED, "symbol": "✓", "letter": "P"},
    FAILED: {"junit": FAILED, "symbol": "✗", "letter": "F"},
    SKIPPED: {"junit": SKIPPED, "symbol": "–", "letter": "S"},
    KNOWN_FAILURE: {"junit": SKIPPED, "symbol": "W", "letter": "K"},   # the known-failure rule
}
STATUSES = tuple(TABLE)
# The fleet matrix's fold: a cell is the worst of its instances' statuses.
WORST_FIRST = (FAILED, KNOWN_FAILURE, PASSED, SKIPPED)

_schemas = {}


def junit_status(status):
    """passed, failed or skipped: what JUnit, which has no waiver, calls
    status (an unknown status stays itself, agreeing with nothing)."""
    return TABLE[status]["junit"] if status in TABLE else status


def worse(a, b):
    """The worse of two statuses (WORST_FIRST)."""
    return a if WORST_FIRST.index(a) <= WORST_FIRST.index(b) else b


def counts(tests=()):
    """{status: how many of tests have it}, every status present."""
    found = dict.fromkeys(STATUSES, 0)
    for test in tests:
        found[test["status"]] += 1
    return found


def symbols():
    return {status: row["symbol"] for status, row in TABLE.items()}


def letters():
    return {status: row["letter"] for status, row in TABLE.items()}


def schema_path(kind):
    return os.path.join(SCHEMAS, f"{kind}.schema.json")


def schema_of(kind):
    if kind not in _schemas:
        with open(schema_path(kind), encoding="utf-8") as handle:
            _schemas[kind] = json.load(handle)
    return _schemas[kind]


def check_version(document, where):
    version = document.get("schema_version")
    if version is None:
        raise InputError(f"{where} has no schema_version (made by an older TDC?): refused")
    if not isinstance(version, str) or version.split(".")[0] != MAJOR:
        raise InputError(f"{where} has schema_version {version!r}; this TDC reads "
                         f"{MAJOR}.x: refused")


def validate(document, kind, where):
    """InputError naming the first place `document` differs from its schema."""
    if not isinstance(document, dict):
        raise InputError(f"{where} is a JSON {safeio.json_type(document)}, expected an object")
    check_version(document, where)
    problem = schema.errors(document, schema_of(kind))
    if problem:
        raise InputError(f"{where} is not a valid {kind} document: {problem}")
    return document


def parse(text, kind, where):
    return validate(safeio.parse_json(text, where), kind, where)


def read(path, kind, what=None):
    """The document at path, validated; InputError (one line) otherwise."""
    what = what or f"{kind} file"
    return parse(safeio.read_text(path, what), kind, f"{what} {path}")


def stamp(document):
    """The document with schema_version first."""
    return {"schema_version": SCHEMA_VERSION, **{k: v for k, v in document.items()
                                                 if k != "schema_version"}}


def write(path, document, kind):
    """Stamps, validates (our own output: a failure is a defect, not bad
    input, so it is raised as such) and writes atomically."""
    document = stamp(document)
    problem = schema.errors(document, schema_of(kind))
    if problem:
        raise AssertionError(f"tdc wrote an invalid {kind} document: {problem}")
    safeio.write_json(path, document, f"{kind} file")
    return document


# --- What a run's documents say, for every reader (the run's report, the
# fleet matrix): tolerant of an older or partial document, since a package
# from another TDC is read too; what is not there is left out.

MESSAGE_LIMIT = 300   # a cell's skip, waiver or dependent's message; a root cause's is whole


def check_of(test):
    """A summary test's check: its metadata's, else what its name says."""
    return test.get("check") or names.check_name(test.get("name", ""))


def cells_of(tests):
    """{device: {check: cell}} from summary.json's tests: a cell folds the
    check's instances on that device into the worst status (WORST_FIRST),
    their summed seconds and count; a failed cell adds failed (instances),
    message and root_cause (None for a root cause, else the prerequisite
    every failure named), a skipped or waived one its message."""
    cells, messages = {}, {}
    for test in tests:
        if not isinstance(test, dict) or not isinstance(test.get("name"), str):
            continue
        status = test.get("status")
        if status not in STATUSES:
            continue
        device = str(test.get("device") or "host")
        check = check_of(test)
        cell = cells.setdefault(device, {}).setdefault(check, {
            "status": status, "seconds": 0.0, "tests": 0, "failed": 0, "message": "", "root_cause": None})
        cell["tests"] += 1
        cell["seconds"] += float(test.get("seconds") or 0)
        cell["status"] = worse(status, cell["status"])
        said = messages.setdefault((device, check), {})
        if status == FAILED:
            cell["failed"] += 1
            prerequisite = test.get("prerequisite")
            # A dependent only while every failure names a prerequisite.
            said["roots"] = said.get("roots", 0) + (0 if prerequisite else 1)
            said.setdefault("prerequisite", str(prerequisite) if prerequisite else None)
            # A root cause's message whole (its fix is often last: issue 35);
            # a dependent's says only which prerequisite failed.
            message = str(test.get("message") or "")
            said.setdefault(FAILED, (message if not prerequisite else message[:MESSAGE_LIMIT])
                            or f"{test['name']} failed (no message recorded)")
        elif status != PASSED:
            said.setdefault(status, str(test.get("message") or "")[:MESSAGE_LIMIT])
    for (device, check), said in messages.items():
        cell = cells[device][check]
        cell["seconds"] = round(cell["seconds"], 3)
        if cell["status"] == FAILED:
            cell["message"] = said[FAILED]
            cell["root_cause"] = None if said["roots"] else said["prerequisite"]
        else:  # kept small: at 1,000 hosts most cells are passed ones
            del cell["failed"], cell["root_cause"], cell["message"]
            if cell["status"] != PASSED:
                cell["message"] = said.get(cell["status"], "")
    return cells


def cell_counts(cells):
    """{status: how many cells} of cells_of's {device: {check: cell}}."""
    return counts(cell for by_check in cells.values() for cell in by_check.values())


def devices_of(context):
    """{device: {"name", "driver", "type"}} from context.json's device lists."""
    found = {}
    for key in ("devices", "loopback_devices"):
        block = context.get(key)
        if not isinstance(block, dict) or not isinstance(block.get("devices"), list):
            continue
        for device in block["devices"]:
            if isinstance(device, dict) and isinstance(device.get("device"), str):
                found.setdefault(device["device"], {
                    "name": str(device.get("name") or ""), "driver": str(device.get("driver") or ""),
                    "type": device["device"].split(":")[0]})
    return found


def libtorch_of(context):
    """The LibTorch version context.json recorded, '' when none."""
    block = context.get("devices")
    return str(block.get("libtorch_version") or "") if isinstance(block, dict) else ""
