"""tdc.gtest: GoogleTest XML read recursively, keyed by the `test` property or
the path, and never a read error skipped."""
import os
import time

import pytest
from conftest import gtest_text

from tdc import gtest
from tdc.errors import InputError


def test_keyed_by_path_recursively(write, tmp_path):
    write("gtest/Placement.X/cpu.xml", gtest_text("Placement.X/cpu", {"check": "Placement.X", "device": "cpu"}))
    write("gtest/loopback:Forward.Y/loopback_1_float32.xml",
          gtest_text("Forward.Y/loopback_1_float32", {"check": "Forward.Y", "device": "loopback:1", "dtype": "float32"}))
    records = gtest.read_dir(str(tmp_path / "gtest"))
    assert sorted(records) == ["Placement.X/cpu", "loopback:Forward.Y/loopback_1_float32"]
    assert records["loopback:Forward.Y/loopback_1_float32"].properties == \
        {"check": "Forward.Y", "device": "loopback:1", "dtype": "float32"}


def test_keyed_by_test_property_in_a_batch(write, tmp_path):
    cases = "".join(
        f'<testcase name="X/loopback_{i}" status="run" classname="Placement"><properties>'
        f'<property name="test" value="loopback:Placement.X/loopback_{i}"/>'
        f'<property name="device" value="loopback:{i}"/></properties></testcase>' for i in (0, 1))
    write("gtest/batch/placement.xml", f"<testsuites><testsuite>{cases}</testsuite></testsuites>")
    records = gtest.read_dir(str(tmp_path / "gtest"))
    assert sorted(records) == ["loopback:Placement.X/loopback_0", "loopback:Placement.X/loopback_1"]
    assert records["loopback:Placement.X/loopback_1"].properties["device"] == "loopback:1"


def test_failure_and_skip_reasons(write, tmp_path):
    write("g/A.x.xml", gtest_text("A.x", child='<failure message="a.cpp:1&#10;copy differs at 3" type=""/>'))
    write("g/A.y.xml", gtest_text("A.y", {"known_failure": "1"}, '<skipped message="a.cpp:2&#10;known failure (w.txt:2): no"/>'))
    records = gtest.read_dir(str(tmp_path / "g"))
    assert (records["A.x"].status, records["A.x"].reason) == ("failed", "copy differs at 3")
    assert records["A.y"].known_failure and records["A.y"].reason == "known failure (w.txt:2): no"


@pytest.mark.parametrize("make, message", [
    (lambda w: w("g/A.x.xml", "<testsuites><testsuite><testcase"), "not well-formed"),
    (lambda w: os.makedirs(os.path.join(os.path.dirname(w("g/keep.txt", "")), "Folder.xml")), "is a folder"),
    (lambda w: w("g/one.xml", gtest_text("A.x", {"test": "T"})) and w("g/two.xml", gtest_text("A.y", {"test": "T"})),
     "has two results"),
])
def test_never_skips_a_read_error(write, tmp_path, make, message):
    make(write)
    with pytest.raises(InputError, match=message):
        gtest.read_dir(str(tmp_path / "g"))


def test_refuses_a_name_that_is_not_utf8(tmp_path):
    folder = tmp_path / "g"
    folder.mkdir()
    with open(os.path.join(os.fsencode(str(folder)), b"caf\xe9.xml"), "wb") as handle:
        handle.write(gtest_text("A.x").encode())
    with pytest.raises(InputError, match="not UTF-8"):
        gtest.read_dir(str(folder))


def test_missing_folder_is_an_error(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        gtest.read_dir(str(tmp_path / "nowhere"))


def test_statuses_of_a_whole_report(write):
    path = write("report.xml", '<testsuites><testsuite name="S"><testcase name="a/cpu" classname="S" status="run">'
                               '<error message="x"/></testcase><testcase name="b" classname="S" status="run"/>'
                               '</testsuite></testsuites>')
    assert gtest.statuses_of_report(path) == {"S.a/cpu": "failed", "S.b": "passed"}


@pytest.mark.parametrize("value", ["soon", "[1, 2]", "&quot;ten&quot;", "NaN",
                                   "{&quot;unit&quot;:&quot;GB/s&quot;,&quot;rows&quot;:[&quot;a&quot;],"
                                   "&quot;columns&quot;:[&quot;a&quot;],&quot;values&quot;:[[1, 2]]}"])
def test_a_damaged_measurement_is_an_error(write, tmp_path, value):
    write("gtest/A.x.xml", gtest_text("A.x", {"measured.sustained_seconds": value}))
    with pytest.raises(InputError, match="measurement measured.sustained_seconds"):
        gtest.read_dir(str(tmp_path / "gtest"))
