"""tdc.pipeline: every run starts from an empty results folder, and never
empties a folder that is not one."""
import os
import time

import pytest

from tdc import pipeline
from tdc.errors import InputError


def test_fresh_folder_is_made_and_marked(tmp_path):
    pipeline.fresh_results(str(tmp_path / "r"))
    assert os.listdir(tmp_path / "r") == [pipeline.MARKER]


def test_an_earlier_runs_files_are_gone(tmp_path):
    results = tmp_path / "r"
    pipeline.fresh_results(str(results))
    (results / "junit.xml").write_text("<testsuite/>")     # an earlier run's
    (results / "gtest").mkdir()
    (results / "gtest" / "A.x.xml").write_text("<x/>")
    pipeline.fresh_results(str(results))
    assert os.listdir(results) == [pipeline.MARKER]


def test_refuses_to_empty_a_folder_it_did_not_make(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="refusing to empty it"):
        pipeline.fresh_results(str(tmp_path))
    assert (tmp_path / "notes.txt").exists()


def test_refuses_a_file_and_a_link(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is not a folder"):
        pipeline.fresh_results(str(tmp_path / "file"))
    os.symlink(tmp_path, tmp_path / "link")
    with pytest.raises(InputError, match="is not a folder"):
        pipeline.fresh_results(str(tmp_path / "link"))


def test_stop_time_has_no_zone():
    # ctest 3.25 ignores a --stop-time with a zone: the budget would not hold.
    text = pipeline.stop_time(time.time() + 60, 2)
    assert len(text) == 8 and text.count(":") == 2


@pytest.mark.parametrize("budget", ["0", "08", "9", "999999999", "abc", "-5", "1e3", "٣٠"])
def test_budget_out_of_range_is_bad_input(capsys, budget):
    assert pipeline.main(["--build-dir", "/nonexistent", "--results", "/nonexistent", "--budget", budget]) == 2
    assert "--budget" in capsys.readouterr().err


def test_no_build_is_unknown_with_a_verdict(capsys, tmp_path):
    status = pipeline.main(["--build-dir", str(tmp_path / "none"), "--results", str(tmp_path / "r"),
                            "--level", "1", "--print-verdict"])
    out = capsys.readouterr().out
    assert status == 2 and '"verdict": "unknown"' in out and "no TDC build" in out
