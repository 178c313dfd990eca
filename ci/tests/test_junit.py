"""tdc.junit: the one status rule, and a reader that refuses what it cannot trust."""
import xml.etree.ElementTree as ET

import pytest
from conftest import BILLION_LAUGHS, DAMAGED, junit_text

from tdc import junit
from tdc.errors import InputError


@pytest.mark.parametrize("xml, status", [
    ('<testcase name="a" status="run"/>', "passed"),
    ('<testcase name="a" status="fail"/>', "failed"),
    ('<testcase name="a" status="run"><failure message=""/></testcase>', "failed"),
    ('<testcase name="a" status="run"><error message="boom"/></testcase>', "failed"),   # vendor_recipe ignored it
    ('<testcase name="a" status="notrun"><skipped/></testcase>', "skipped"),
    ('<testcase name="a" status="disabled"/>', "skipped"),
    ('<testcase name="a" status="run" result="skipped"><skipped message="x"/></testcase>', "skipped"),
    ('<testcase name="a" status="run" result="suppressed"/>', "skipped"),
    ('<testcase name="a" status="notrun"><failure/><skipped/></testcase>', "failed"),   # failed wins
])
def test_one_status_rule(xml, status):
    assert junit.status_of(ET.fromstring(xml)) == status


def test_reads_ctest_junit():
    cases = junit.read(f"{DAMAGED}/root_causes.xml")
    assert [c.status for c in cases] == ["failed", "failed", "failed", "passed"]
    # ctest's generic "Failed" says nothing: the output's first line does.
    assert cases[2].reason == ""
    assert "Module::to(loopback:0) threw" in cases[2].output


def test_reason_skips_location_and_generic_words():
    case = ET.fromstring('<testcase name="a"><failure message="x.cpp:3&#10;Failed&#10;the copy differs at 7"/></testcase>')
    assert junit.reason_of(case) == "the copy differs at 7"


def test_reason_runs_on_after_a_colon():
    case = ET.fromstring('<testcase name="a"><failure message="x.cpp:3&#10;Expected equality of these values:&#10;  a&#10;    Which is: 1"/></testcase>')
    assert junit.reason_of(case) == "Expected equality of these values: a Which is: 1"


@pytest.mark.parametrize("name, content, message", [
    ("truncated.xml", '<testsuite><testcase name="a"', "not well-formed XML"),
    ("empty.xml", "<testsuite/>", "has no testcases: nothing ran"),
    ("page.html", "<html><body>hi</body></html>", "is not a JUnit file"),
    ("latin1.xml", b'<testsuite><testcase name="caf\xe9"/></testsuite>', "is not UTF-8"),
    ("laughs.xml", BILLION_LAUGHS, "declares a DTD or entities"),
    ("twice.xml", junit_text(("a", "fail", "<failure/>"), ("a", "run", "")), "appears twice"),
    ("nameless.xml", '<testsuite><testcase time="1"/></testsuite>', "a testcase has no name"),
    ("abc.xml", '<testsuite><testcase name="a" time="abc"/></testsuite>', "time='abc', not a number"),
    ("nan.xml", '<testsuite><testcase name="a" time="nan"/></testsuite>', "not a finite duration"),
    ("negative.xml", '<testsuite><testcase name="a" time="-1"/></testsuite>', "not a finite duration"),
])
def test_refuses_with_one_line(write, name, content, message):
    with pytest.raises(InputError) as error:
        junit.read(write(name, content))
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_refuses_a_gigabyte_unread(sparse_gigabyte):
    with pytest.raises(InputError, match="refused unread"):
        junit.read(sparse_gigabyte)


def test_refuses_a_directory(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        junit.read(str(tmp_path))
