"""tdc.results and its schemas: every document carries schema_version; a
reader refuses an unknown major version and a wrong type with one line; the
schemas agree with Debian's python3-jsonschema on real outputs."""
import json
import os

import jsonschema
import pytest
from conftest import DAMAGED

from tdc import junit, results, safeio, schema, summarize
from tdc.errors import InputError


def a_summary():
    return results.stamp(summarize.build(junit.read(f"{DAMAGED}/root_causes.xml"), {}, {}, 1.5, 1))


def test_summary_is_valid_for_both_validators():
    document = a_summary()
    assert schema.errors(document, results.schema_of("summary")) is None
    jsonschema.Draft202012Validator(results.schema_of("summary")).validate(document)


@pytest.mark.parametrize("kind", results.KINDS)
def test_schemas_are_schemas(kind):
    jsonschema.Draft202012Validator.check_schema(results.schema_of(kind))


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(schema_version="2.0"), "this TDC reads 1.x"),
    (lambda d: d.pop("schema_version"), "has no schema_version"),
    (lambda d: d.update(tests="all of them"), ".tests: a string, expected array"),
    (lambda d: d["tests"][0].update(status="fine"), "is not one of"),
    (lambda d: d["tests"][0].update(seconds=-1), "is below 0"),
    (lambda d: d.update(extra=1), "unknown key 'extra'"),
    (lambda d: d.update(context=[]), ".context: a list, expected object"),
])
def test_reader_refuses(write, change, message):
    document = a_summary()
    change(document)
    path = write("summary.json", json.dumps(document))
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(".", r"\.")):
        results.read(path, "summary")
    assert not jsonschema.Draft202012Validator(results.schema_of("summary")).is_valid(document) \
        or "schema_version" in message


def test_reader_refuses_nan_and_lists(write):
    with pytest.raises(InputError, match="NaN is not a JSON number"):
        results.read(write("s.json", '{"schema_version": "1.0", "wall_seconds": NaN}'), "summary")
    with pytest.raises(InputError, match="expected an object"):
        results.read(write("l.json", "[]"), "summary")


def test_writer_checks_its_own_output(tmp_path):
    with pytest.raises(AssertionError, match="invalid summary"):
        results.write(str(tmp_path / "s.json"), {"tests": "x"}, "summary")


def test_write_into_a_missing_folder_is_one_line(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        safeio.write_json(str(tmp_path / "nowhere" / "s.json"), {})


def test_validator_refuses_keywords_it_does_not_check():
    with pytest.raises(ValueError, match="unsupported"):
        schema.errors({}, {"type": "object", "oneOf": []})


def test_schema_files_are_the_ones_in_the_repo():
    assert sorted(os.listdir(results.SCHEMAS)) == sorted(f"{k}.schema.json" for k in results.KINDS)
