"""One results model (tdc.results): the statuses, their worst-first order
and the known-failure rule are written there once, and a JUnit outcome is
written by tdc.junit_report alone. A status added to results.TABLE reaches
every output (the summary, the run's JUnit, the fleet matrix and its JUnit,
the run's report, the fleet history, a level's count, ci/verify's
agreement), and no module of ci/tdc keeps a list of its own: the scans
below fail on one, and are shown to."""
import ast
import glob
import json
import os
import re
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT

from tdc import junit, junit_report, levels, results, summarize, verify
from tdc.fleet import junit_out, matrix

TDC = os.path.join(ROOT, "ci", "tdc")
NEW = "flaky"


@pytest.fixture
def new_status(monkeypatch):
    """A fifth status, as one edit of tdc.results would add it: JUnit calls
    it skipped, and it folds between a waiver and a pass."""
    monkeypatch.setitem(results.TABLE, NEW, {"junit": results.SKIPPED, "symbol": "~", "letter": "L"})
    monkeypatch.setattr(results, "STATUSES", tuple(results.TABLE))
    at = results.WORST_FIRST.index(results.PASSED)
    monkeypatch.setattr(results, "WORST_FIRST", results.WORST_FIRST[:at] + (NEW,) + results.WORST_FIRST[at:])
    return NEW


def a_test(name, status, device="cpu", message=""):
    check = name.split("/")[0]
    return {"name": name, "check": check, "device": device, "status": status, "seconds": 0.5,
            "message": message, "twin": False, "scope": "device", "metadata": True}


def a_summary(write):
    """A real summary (summarize.build) of a pass, a failure and a skip, and
    one test of the new status beside them."""
    path = write("junit.xml", '<testsuite name="x">'
                 '<testcase name="A.pass/cpu" classname="A" time="0.5"/>'
                 '<testcase name="A.fail/cpu" classname="A" time="0.5"><failure message="7 differ"/></testcase>'
                 '<testcase name="A.skip/cpu" classname="A" time="0.5"><skipped message="needs two"/></testcase>'
                 '</testsuite>')
    summary = summarize.build(junit.read(path), {}, {}, 2.0, 1)
    summary["tests"].append(a_test("A.new/cpu", NEW, message="passed on retry"))
    summary["totals"] = results.counts(summary["tests"])
    summary["devices"]["cpu"][NEW] += 1
    return summary


def test_the_table_is_whole():
    assert set(results.WORST_FIRST) == set(results.STATUSES) == set(results.TABLE)
    assert {row["junit"] for row in results.TABLE.values()} <= {results.PASSED, results.FAILED, results.SKIPPED}
    assert results.junit_status(results.KNOWN_FAILURE) == results.SKIPPED   # the known-failure rule
    assert len(set(results.letters().values())) == len(results.TABLE)


def test_a_new_status_reaches_the_summary(write, new_status):
    summary = a_summary(write)
    assert summary["totals"][new_status] == 1
    assert all(new_status in counts for counts in [*summary["devices"].values(), *summary["other"].values()])
    header = next(line for line in summarize.console(summary) if line.startswith("device"))
    assert header.split()[1:] == list(results.STATUSES)


def test_a_new_status_reaches_the_runs_junit_as_its_junit_outcome(write, new_status, tmp_path):
    summary = a_summary(write)
    path = str(tmp_path / "junit.xml")
    junit_report.write(path, summary, "tdc")
    read = junit.statuses(junit.read(path))
    assert read == {t["name"]: results.junit_status(t["status"]) for t in summary["tests"]}
    assert read["A.new/cpu"] == results.SKIPPED
    suite = ET.parse(path).getroot().find("testsuite")
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "2")
    problems = []
    verify.check_agreement(junit.read(path), summary["tests"], problems)
    assert problems == []


def test_a_new_status_reaches_the_matrix_and_the_fleets_junit(new_status, tmp_path):
    tests = [a_test("B.x/0", results.PASSED), a_test("B.x/1", new_status, message="passed on retry"),
             a_test("C.y/0", results.SKIPPED), a_test("C.y/1", new_status)]
    cells = results.cells_of(tests)
    assert cells["cpu"]["B.x"] == {"status": new_status, "seconds": 1.0, "tests": 2, "message": "passed on retry"}
    assert cells["cpu"]["C.y"]["status"] == new_status          # worse than a skip, better than a failure
    assert results.worse(new_status, results.FAILED) == results.FAILED
    assert results.cell_counts(cells)[new_status] == 2
    row = matrix.row("n7", "2.13.0")
    assert new_status in row["counts"]
    row.update(trust="verified", cells=cells, counts=results.cell_counts(cells))
    path = str(tmp_path / "fleet.xml")
    writer = junit_out.Writer(path, "tdc fleet")
    writer.add(row)
    writer.close()
    assert junit.statuses(junit.read(path)) == {"B.x": results.SKIPPED, "C.y": results.SKIPPED}
    from tdc.fleet import history
    assert history.results.letters()[new_status] == "L"


def test_a_new_status_reaches_a_levels_count(new_status):
    count = levels.count([a_test("D.z/cpu", new_status)], 1, mustpass=["D.z"])
    assert [t["name"] for t in count.own_skipped] == ["D.z/cpu"] and not count.failed


def test_a_new_status_reaches_the_runs_report(write, new_status, tmp_path):
    pytest.importorskip("jinja2", reason="the report needs Debian's python3-jinja2")
    pytest.importorskip("matplotlib", reason="the report needs Debian's python3-matplotlib")
    from tdc.report import check, run as run_report
    folder = tmp_path / "run"
    folder.mkdir()
    summary = a_summary(write)
    (folder / "summary.json").write_text(json.dumps(summary))
    (folder / "context.json").write_text(json.dumps({"host": "n7"}))
    view = run_report.view(str(folder))
    assert view["statuses"] == results.STATUSES and view["totals"][new_status] == 1 and not view["problems"]
    run_report.write_run_report(str(folder))
    page = (folder / "report.html").read_text()
    assert f'id="count-{new_status}"' in page and f'data-status="{new_status}"' in page
    assert check.problems(str(folder)) == []


def test_the_schemas_list_every_status():
    """The schemas are data the self-tests also read with python3-jsonschema,
    so they spell the statuses out: every list there that names most of them
    names all of them."""
    def lists(node):
        if isinstance(node, dict):
            yield list(node)
            for value in node.values():
                yield from lists(value)
        elif isinstance(node, list):
            yield node
            for value in node:
                yield from lists(value)
    checked = 0
    for kind in results.KINDS:
        for found in lists(results.schema_of(kind)):
            named = {s for s in found if isinstance(s, str) and s in results.TABLE}
            if len(named) >= 3:
                checked += 1
                assert named == set(results.STATUSES), f"{results.schema_path(kind)}: {found}"
    assert checked >= 6   # summary's test, totals and device; matrix's status, totals and counts


# --- the scans: no status list, known-failure rule or JUnit outcome outside its module

STATUS_NAMES = {"passed", "failed", "skipped", "known_failure"}
OUTCOME_TAGS = {"failure", "skipped", "error"}
# An outcome element as text: with attributes, self-closing, or its end tag
# (a usage line's "<passed> <failed> <skipped>" is none of them).
OUTCOME_TEXT = re.compile(r"<(failure|skipped|error)[\s/]|</(failure|skipped|error)>")
# gtest.py reads the fixtures' GoogleTest property of that name (the waiver's
# mark on a record), not a summary status.
PROPERTY_NAMED_LIKE_A_STATUS = {"gtest.py"}


def docstrings(tree):
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def scan(source, name):
    """[why] for each place in source that writes what only tdc.results
    (statuses, the known-failure rule) or tdc.junit_report (an outcome
    element) may write."""
    tree = ast.parse(source)
    skip = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)) and name != "results.py":
            items = node.keys if isinstance(node, ast.Dict) else node.elts
            named = {i.value for i in items if isinstance(i, ast.Constant) and i.value in STATUS_NAMES}
            if len(named) >= 3:
                found.append(f"{name}:{node.lineno}: a list of statuses (tdc.results.STATUSES)")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            if node.value == results.KNOWN_FAILURE and name not in ("results.py",) + tuple(PROPERTY_NAMED_LIKE_A_STATUS):
                found.append(f"{name}:{node.lineno}: the known-failure status by name (tdc.results)")
            if name != "junit_report.py" and OUTCOME_TEXT.search(node.value):
                found.append(f"{name}:{node.lineno}: a JUnit outcome written as text (tdc.junit_report)")
        if isinstance(node, ast.Call) and name != "junit_report.py" and getattr(node.func, "attr", None) == "SubElement" \
                and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                and node.args[1].value in OUTCOME_TAGS | {"testcase"}:
            found.append(f"{name}:{node.lineno}: a JUnit <{node.args[1].value}> written (tdc.junit_report)")
    return found


def test_no_module_of_tdc_keeps_its_own_statuses_rule_or_junit_writer():
    found = []
    for path in sorted(glob.glob(os.path.join(TDC, "**", "*.py"), recursive=True)):
        with open(path, encoding="utf-8") as handle:
            found += [f"{os.path.relpath(os.path.dirname(path), TDC)}/{p}"
                      for p in scan(handle.read(), os.path.basename(path))]
    assert found == []


@pytest.mark.parametrize("source, why", [
    ('COLUMNS = ("passed", "failed", "skipped", "known_failure")', "a list of statuses"),
    ('ORDER = {"failed": 0, "known_failure": 1, "passed": 2}', "a list of statuses"),
    ('skipped = status in ("skipped", "known_failure")', "the known-failure status by name"),
    ('ET.SubElement(case, "failure", message=m)', "a JUnit <failure> written"),
    ('ET.SubElement(case, "skipped")', "a JUnit <skipped> written"),
    ('inner = f"<skipped message={m}/>"', "a JUnit outcome written as text"),
    ('inner = f"<failure>{m}</failure>"', "a JUnit outcome written as text"),
])
def test_the_scan_finds_a_copy(source, why):
    assert [p for p in scan(source, "copy.py") if why in p], scan(source, "copy.py")


def test_the_scan_leaves_the_owners_and_prose_alone():
    assert scan('"""A <failure> is a failure."""\nSTATUSES = ("passed", "failed", "skipped")', "results.py") == []
    assert scan('ET.SubElement(case, "failure")', "junit_report.py") == []
    assert scan('HELP = "prints <passed> <failed> <skipped>"', "summarize.py") == []
