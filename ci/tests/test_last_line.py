"""tdc.last_line: a run's last line is its verdict, says where its report
is, and never invites a package ci/verify would refuse."""
import json
import os

import pytest

from tdc import last_line, levels, results


def folder(tmp_path, tests, expect="cpu", dirty=False, report=False):
    context = {"expect": expect, "git": {"commit": "abc", "dirty": dirty, "dirty_files": ["M a.cpp"] if dirty else []}}
    summary = {"tests": tests, "context": context}
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    if report:
        (tmp_path / "report.html").write_text("<html>")
    return str(tmp_path)


def result(name, status, device="cpu"):
    return {"name": name, "status": status, "device": device, "scope": "device"}


@pytest.fixture(autouse=True)
def unchecked(monkeypatch):
    # The line reads what the run wrote; these summaries are only what it reads.
    real = results.read
    monkeypatch.setattr(results, "read", lambda path, kind, what=None:
                        json.load(open(path)) if os.path.exists(path) else real(path, kind, what))


@pytest.fixture(autouse=True)
def level_lists(monkeypatch):
    # Each level's list is what these summaries hold (A.x), unless a test says otherwise.
    lists = {1: ["A.x"], 2: ["A.x"], 3: ["A.x"]}
    monkeypatch.setattr(levels, "read_mustpass", lambda level, directory=None: lists.get(level))
    return lists


def test_a_passed_run(tmp_path):
    path = folder(tmp_path, [result("A.x/cpu", "passed"), result("A.x/loopback_0", "passed", "loopback:0")], report=True)
    assert last_line.compose(path, 2, 0) == [
        f"LEVEL 2 PASSED: 2 checks passed on cpu, loopback:0 (exit 0); report: {path}/report.html; "
        f"package: ci/package {path} --product=... --submitter=..."]


def test_a_failed_run_names_its_devices_and_is_not_invited(tmp_path):
    tests = [result(f"A.x{i}/loopback_{i % 2}", "failed", f"loopback:{i % 2}") for i in range(34)]
    line, = last_line.compose(folder(tmp_path, tests + [result("A.x/cpu", "passed")]), 2, 1)
    assert line.startswith("LEVEL 2 FAILED: 34 checks failed on loopback:0, loopback:1 (exit 1); ")
    assert line.endswith("no package: ci/verify would refuse it (34 failed checks)") and "ci/package" not in line


def test_a_failed_step_and_level_3s_rules(tmp_path):
    line = last_line.compose(folder(tmp_path, [result("A.x/cpu", "passed")], expect=""), 3, 1,
                             ["the benchmarks (bench)"])
    assert line[0].startswith("No TDC_EXPECT")
    assert line[1].startswith("LEVEL 3 FAILED: 1 check passed on cpu; the benchmarks (bench) failed (exit 1)")
    assert "level 3 without TDC_EXPECT" in line[1] and "level 3 with a failed step" in line[1]


def test_a_dirty_tree_is_refused(tmp_path):
    line = last_line.compose(folder(tmp_path, [result("A.x/cpu", "passed")], dirty=True), 1, 0)[-1]
    assert line.startswith("LEVEL 1 PASSED") and line.endswith("would refuse it (dirty tree (M a.cpp))")


def test_bad_input_and_no_summary(tmp_path):
    line = last_line.compose(folder(tmp_path, [result("TdcConfiguration.x", "failed", "host")]), 2, 2)[-1]
    assert line.startswith("LEVEL 2 ERROR: ") and "no package: a setting or an input is bad" in line
    # No readable summary: ERROR and exit 2, whatever status the caller gave.
    line, = last_line.compose(str(tmp_path / "none"), 1, 0)
    assert line.startswith("LEVEL 1 ERROR: no usable summary (") and line.endswith("(exit 2)"), line
    assert last_line.main(["--results", str(tmp_path / "none"), "--level=1", "--status=0"]) == 2


def test_an_installed_run_names_the_installed_verbs(tmp_path, monkeypatch):
    from tdc import source
    monkeypatch.setattr(source, "is_checkout", lambda root=None: False)
    path = folder(tmp_path, [result("A.x/cpu", "passed")])
    line, = last_line.compose(path, 1, 0)
    assert f"report: none (tdc run-report --results {path} makes one)" in line
    assert line.endswith(f"package: tdc package {path} --product=... --submitter=...")


def test_a_verdict_worse_than_the_checks_says_why(tmp_path):
    # Every check passed, yet the level is not healthy (a check of its list has no result).
    path = folder(tmp_path, [result("A.x/cpu", "passed")])
    verdict = tmp_path / "verdict.json"
    verdict.write_text(json.dumps({"verdict": "unhealthy", "message": "1 of its 2 checks have no result"}))
    line, = last_line.compose(path, 1, 1, (), str(verdict))
    assert line.startswith("LEVEL 1 FAILED: 1 check passed on cpu; unhealthy: 1 of its 2 checks have no result (exit 1)")
    verdict.write_text(json.dumps({"verdict": "healthy", "message": "fine"}))   # the negative
    assert "healthy" not in last_line.compose(path, 1, 0, (), str(verdict))[0]


def test_a_run_without_a_suite_of_its_level_is_not_invited(tmp_path, level_lists):
    # A level-2 run whose selection left the collectives out (-- -LE collectives):
    # every check passed, and ci/verify would refuse it (missing check); the negative
    # of test_a_passed_run.
    level_lists[2] = ["A.x", "Allreduce.EveryOpMatchesHostReference", "Barrier.HoldsEarlyRanksUntilTheLastArrives"]
    line, = last_line.compose(folder(tmp_path, [result("A.x/cpu", "passed")]), 2, 0)
    assert line.startswith("LEVEL 2 PASSED: 1 check passed on cpu (exit 0); ") and "ci/package" not in line, line
    assert line.endswith("no package: ci/verify would refuse it (2 checks of level 2 without a result "
                         "(e.g. Allreduce.EveryOpMatchesHostReference))"), line
    del level_lists[2]   # no list to hold the run to: refused too
    line, = last_line.compose(folder(tmp_path, [result("A.x/cpu", "passed")]), 2, 0)
    assert "would refuse it (no list of level 2's checks (" in line and "ci/package" not in line, line
