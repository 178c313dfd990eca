"""A root cause's message is never cut before its fix (issue 35): the
shallow-copy hint of fixtures/src/prerequisite.cpp ends with the
registration to add and where docs/backends.md says how, past the 300
characters a reason was once cut at. It reaches summary.json, the JUnit,
the console and the verdict whole; its dependents are one console line, not
one line each."""
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr

from conftest import junit_text

from tdc import junit, junit_report, summarize, verdict
from test_summarize import build

FIX = ('in TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) and TORCH_LIBRARY_IMPL(aten, AutogradPrivateUse1, m) '
       '(docs/backends.md, "Shallow copies")')
# What placement.cpp's FAIL() says under the loopback's shallow-copy fault.
MESSAGE = ("Module::to(loopback:0) threw: set_data: incompatible tensor type and tensor impl; the backend does "
           "not register _has_compatible_shallow_copy_type for PrivateUse1 and AutogradPrivateUse1, which "
           "Module::to's set_data needs: m.impl(\"_has_compatible_shallow_copy_type\", ...) " + FIX)
ROOT = "loopback:Placement.ModuleToMovesParametersAndBuffers/loopback_0"
DEPENDENTS = [f"loopback:Forward.Check{i}/loopback_0" for i in range(84)]


def failure(message):
    return "<failure message=" + quoteattr(message) + "/>"


def failing_run(write):
    dependent = ("prerequisite failed: Module::to(loopback:0): set_data "
                 "(checked by Placement.ModuleToMovesParametersAndBuffers/loopback_0)")
    cases = [(ROOT, "fail", failure("x.cpp:3\n" + MESSAGE))] + [(n, "fail", failure(dependent)) for n in DEPENDENTS]
    return build(write, junit_text(*cases))


def test_the_message_is_longer_than_the_old_cut():
    # The negative of what follows: a cut at 300 characters, as before, loses the fix.
    assert len(MESSAGE) > 300 and FIX not in MESSAGE[:300]


def test_a_reason_keeps_its_fix():
    case = ET.fromstring("<testcase name='a'>" + failure("x.cpp:3\n" + MESSAGE) + "</testcase>")
    assert junit.reason_of(case) == MESSAGE


def test_a_runaway_reason_is_cut_and_says_so():
    reason = junit.capped("x" * (junit.REASON_LIMIT + 50))
    assert reason.endswith(junit.CUT) and len(reason) == junit.REASON_LIMIT + len(junit.CUT)
    assert junit.capped(MESSAGE) == MESSAGE


def test_summary_junit_and_verdict_keep_it_whole(write, tmp_path):
    summary = failing_run(write)
    group = summary["failures_by_root_cause"][0]
    assert group["root_cause"] == ROOT and group["message"] == MESSAGE and group["dependents"] == DEPENDENTS
    path = str(tmp_path / "out.xml")
    junit_report.write(path, summary, "tdc-level2")
    messages = {c.get("name"): c.find("failure").get("message") for c in ET.parse(path).getroot().iter("testcase")}
    assert messages[ROOT] == MESSAGE
    failing = verdict.failing_of(summary)
    assert failing[0]["message"] == MESSAGE and len(failing[0]["dependents"]) == 84


def test_the_console_ends_the_root_cause_with_its_fix_and_folds_the_dependents(write):
    lines = summarize.console(failing_run(write))
    assert f"FAILED  {ROOT}: {MESSAGE}" in lines
    assert "          and 84 dependents (summary.json)" in lines
    assert not [l for l in lines if "prerequisite of" in l or "Forward.Check" in l]


def test_one_dependent_is_named():
    assert summarize.dependents_line(["A.x/cpu"]) == ["          and 1 dependent: A.x/cpu"]
    assert summarize.dependents_line([]) == []


def test_the_report_grid_and_fleet_matrix_keep_a_root_causes_message(write):
    from tdc import results
    tests = failing_run(write)["tests"]
    cells = results.cells_of(tests)
    assert cells["loopback:0"]["Placement.ModuleToMovesParametersAndBuffers"]["message"] == MESSAGE
    dependent = cells["loopback:0"]["Forward.Check0"]
    assert dependent["root_cause"] and len(dependent["message"]) <= results.MESSAGE_LIMIT
