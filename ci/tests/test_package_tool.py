"""ci/package refuses what ci/verify would refuse, and names the file a full
disk stopped (issue 34, finding 12), on a synthetic results folder."""
import os
import tarfile

import pytest
from fleetsim import synthetic_run
from tdc import package as package_tool
from tdc.errors import InputError

BAD_GTEST = ('<testsuites><testsuite name="Placement"><testcase name="ModuleToMovesParametersAndBuffers/cpu" '
             'classname="Placement" status="run"><failure message="a\x01b"/></testcase></testsuite></testsuites>')


@pytest.fixture
def results(tmp_path):
    folder = str(tmp_path / "results")
    synthetic_run.results_folder(folder, "n1")
    return folder


def test_googletest_xml_verify_would_refuse_is_not_packed(results, tmp_path):
    path = os.path.join(results, "gtest", "Placement.ModuleToMovesParametersAndBuffers", "cpu.xml")
    with open(path, "w") as f:
        f.write(BAD_GTEST)
    with pytest.raises(InputError, match=r"cpu\.xml is not well-formed XML"):
        package_tool.run([results, "--product=p", "--submitter=s", f"--out={tmp_path}/out"])
    assert not os.path.exists(tmp_path / "out") or os.listdir(tmp_path / "out") == []


def test_a_junit_file_verify_would_refuse_is_not_packed(results, tmp_path):
    with open(os.path.join(results, "ctest-junit.xml"), "w") as f:
        f.write('<testsuite><testcase name="x\x02" status="run"/></testsuite>')
    with pytest.raises(InputError, match=r"ctest-junit\.xml is not well-formed XML"):
        package_tool.run([results, "--product=p", "--submitter=s", f"--out={tmp_path}/out"])


def test_a_full_disk_names_the_file(results, tmp_path, monkeypatch):
    real = tarfile.open
    monkeypatch.setattr(tarfile, "open", lambda path, mode, **kw: real("/dev/full", mode, **kw))
    with pytest.raises(InputError) as error:
        package_tool.run([results, "--product=p", "--submitter=s", f"--out={tmp_path}/out"])
    assert "cannot write the package " in str(error.value) and ".tar.gz: No space left on device" in str(error.value)


def test_a_good_results_folder_still_packs(results, tmp_path, capsys):
    assert package_tool.run([results, "--product=p", "--submitter=s", f"--out={tmp_path}/out"]) == 0
    assert capsys.readouterr().out.strip().endswith(".tar.gz")
