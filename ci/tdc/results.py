"""The results model: the JSON documents the tools write and read (summary,
verdict, context, waivers, the level-3 gate, and others as they come, e.g.
the fleet matrix), each with `schema_version` and a JSON Schema in
ci/tdc/schemas/<kind>.schema.json.

A reader refuses, with one line: a document of an unknown major version, one
without a version, and one that does not match its schema (a wrong type, an
unknown status). Writers stamp the version and check their own output
against the schema before writing it (a mismatch there is our defect)."""
import json
import os

from tdc import safeio, schema
from tdc.errors import InputError

SCHEMA_VERSION = "1.0"
MAJOR = SCHEMA_VERSION.split(".")[0]
SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")
KINDS = ("summary", "verdict", "context", "waivers", "gate", "matrix")  # matrix: tdc.fleet.matrix
# A test's status in summary.json (tdc.junit's three plus a waived failure).
STATUSES = ("passed", "failed", "skipped", "known_failure")

_schemas = {}


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
