"""A third-party JUnit reader (Debian's python3-junitparser) shows each
failure's reason once tdc.annotate has put it into <failure message>: ctest
leaves it empty (issue "Results a CI system and a person can use", finding 1)."""
import json
import shutil

import junitparser
from conftest import DAMAGED, context_doc

from tdc import annotate, junit, results, summarize


def failure_messages(path):
    messages = {}
    document = junitparser.JUnitXml.fromfile(path)
    suites = [document] if isinstance(document, junitparser.TestSuite) else list(document)
    for suite in suites:
        for case in suite:
            for result in case.result:
                if isinstance(result, (junitparser.Failure, junitparser.Error)):
                    messages[case.name] = result.message
    return messages


def test_every_failure_has_its_reason(tmp_path):
    path = str(tmp_path / "junit.xml")
    shutil.copy(f"{DAMAGED}/root_causes.xml", path)
    before = failure_messages(path)
    assert before and all(m in ("", "Failed", None) for m in before.values())  # what ctest writes
    (tmp_path / "context.json").write_text(json.dumps(context_doc()))
    summary = results.write(str(tmp_path / "summary.json"),
                            summarize.build(junit.read(path), {}, {}, 1.0, 1), "summary")
    assert annotate.main(["--junit", path, "--context", str(tmp_path / "context.json"),
                          "--summary", str(tmp_path / "summary.json")]) == 0
    after = failure_messages(path)
    assert set(after) == set(before)
    assert after["loopback:Placement.ModuleToMovesParametersAndBuffers/loopback_0"] == \
        "Module::to(loopback:0) threw: set_data: incompatible tensor type"
    assert all(after.values())
    # The statuses did not change with the annotation.
    assert junit.statuses(junit.read(path)) == {t["name"]: t["status"] for t in summary["tests"]}
