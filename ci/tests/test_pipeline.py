"""tdc.pipeline: every run starts from an empty results folder, and never
empties a folder that is not one."""
import os
import time

import pytest

from tdc import levels, pipeline, source
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


LOG = """Test project /b
      Start 1: A.x/cpu
 1/3 Test #1: A.x/cpu ..........................   Passed    0.31 sec
 2/3 Test #2: loopback:A.x/loopback_0 ..........***Timeout  16.02 sec
"""


def test_a_killed_ctest_keeps_what_ended():
    from tdc import junit, summarize
    root = pipeline.salvage_junit(LOG, "r/ctest.log", 50)
    cases = junit.cases_of_root(root, "r/ctest-junit.xml")
    assert junit.statuses(cases) == {"A.x/cpu": "passed", "loopback:A.x/loopback_0": "failed"}
    from tdc import ctest
    summary = summarize.build(cases, {}, {}, 50.0, 1, ctest.outcomes(LOG), ["A.x/cpu", "loopback:A.x/loopback_0",
                                                                           "B.y/cpu"], "the budget ran out")
    by_name = {t["name"]: t for t in summary["tests"]}
    assert by_name["loopback:A.x/loopback_0"]["message"].startswith("timed out after 16.0 s")
    assert by_name["B.y/cpu"]["message"] == "not run: the budget ran out"


def test_a_killed_ctest_that_reported_nothing_is_unknown():
    with pytest.raises(InputError, match=r"reported no result \(its log: r/ctest.log\)"):
        pipeline.salvage_junit("Test project /b\n", "r/ctest.log", 50)


STUB_CTEST = r'''#!/bin/sh
# A stand-in for ctest: lists one level-1 entry, "runs" it (progress lines,
# a JUnit file), as the real one would.
junit=""
previous=""
for arg in "$@"; do
  case "$arg" in
    --show-only=json-v1)
      echo '{"tests": [{"name": "Placement.X/cpu", "properties": [{"name": "LABELS", "value": ["level1"]}]}]}'
      exit 0 ;;
  esac
  [ "$previous" = "--output-junit" ] && junit="$arg"
  previous="$arg"
done
echo "Test project (stub)"
echo "    Start 1: Placement.X/cpu"
echo "1/1 Test #1: Placement.X/cpu ..................   Passed    0.01 sec"
echo "100% tests passed, 0 tests failed out of 1"
if [ -n "$STUB_FAIL" ]; then
cat > "$junit" <<'XML'
<testsuite name="stub" tests="1"><testcase name="Placement.X/cpu" classname="Placement.X/cpu" time="0.01" status="fail"><failure message="the copy differs at 7"/></testcase></testsuite>
XML
else
cat > "$junit" <<'XML'
<testsuite name="stub" tests="1"><testcase name="Placement.X/cpu" classname="Placement.X/cpu" time="0.01" status="run"/></testsuite>
XML
fi
'''


def stub_build(tmp_path, monkeypatch, fail=False, expect=None, dirty=False, more_checks=()):
    """A stand-in ctest on PATH, a build folder as far as the pipeline asks,
    and the tree's git state as given (not this checkout's)."""
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "ctest").write_text(STUB_CTEST)
    (stub / "ctest").chmod(0o755)
    monkeypatch.setenv("PATH", f"{stub}:{os.environ['PATH']}")
    if fail:
        monkeypatch.setenv("STUB_FAIL", "1")
    else:
        monkeypatch.delenv("STUB_FAIL", raising=False)
    if expect:
        monkeypatch.setenv("TDC_EXPECT", expect)
    else:
        monkeypatch.delenv("TDC_EXPECT", raising=False)
    state = {"commit": "abc", "dirty": dirty, "dirty_files": ["?? notes.txt"] if dirty else []}
    monkeypatch.setattr(source, "state", lambda root=None: dict(state))
    # The stub's one check is its level's whole list, unless a test adds to it.
    monkeypatch.setattr(levels, "read_mustpass", lambda level, directory=None: ["Placement.X", *more_checks])
    build = tmp_path / "build"
    build.mkdir()
    (build / "CTestTestfile.cmake").write_text("# a build, as far as the pipeline asks\n")
    (build / "CMakeCache.txt").write_text("CMAKE_BUILD_TYPE:STRING=Release\n")
    return build


@pytest.mark.parametrize("quiet", [True, False])
def test_quiet_prints_the_summary_and_nothing_of_ctest(tmp_path, monkeypatch, capsys, quiet):
    # Issue 23, finding 6: --quiet (ci/conformance --quiet, TDC_QUIET=1) prints
    # the summary lines only, none of ctest's progress; without it, both.
    build = stub_build(tmp_path, monkeypatch, expect="cpu")
    status = pipeline.main(["--build-dir", str(build), "--results", str(tmp_path / "r"), "--level", "1",
                            "--jobs", "1"] + (["--quiet"] if quiet else []))
    captured = capsys.readouterr()
    printed = [line for line in (captured.out + captured.err).splitlines() if line.strip()]
    assert status == 0, printed
    summary = [line for line in printed if line.startswith(("device", "cpu", "ctest wall time"))]
    assert [line.split()[0] for line in summary] == ["device", "cpu", "ctest"], printed
    progress = [line for line in printed if "Test #1" in line or line.startswith(("Test project", "==>"))]
    # The summary, then the run's verdict line, last.
    last = captured.out.rstrip("\n").splitlines()[-1]
    assert last.startswith("LEVEL 1 PASSED: 1 check passed on cpu (exit 0); "), printed
    if quiet:
        assert printed == summary + [last], printed
    else:
        assert len(progress) == 3, printed


def run_stub(tmp_path, monkeypatch, capsys, **how):
    build = stub_build(tmp_path, monkeypatch, **how)
    results = tmp_path / "r"
    status = pipeline.main(["--build-dir", str(build), "--results", str(results), "--level", "1",
                            "--jobs", "1", "--quiet"])
    captured = capsys.readouterr()
    return status, [l for l in captured.out.splitlines() if l.strip()], captured.err, str(results)


def test_the_last_line_is_the_verdict_and_invites_a_package(tmp_path, monkeypatch, capsys):
    status, out, err, results = run_stub(tmp_path, monkeypatch, capsys, expect="cpu")
    assert status == 0 and out[-1] == (
        f"LEVEL 1 PASSED: 1 check passed on cpu (exit 0); report: none (bin/tdc report {results} makes one); "
        f"package: ci/package {results} --product=... --submitter=..."), out
    assert "warning" not in err and not [l for l in out if "TDC_EXPECT" in l]  # set: no caveat


def test_a_failed_run_ends_failed_and_is_not_invited_to_package(tmp_path, monkeypatch, capsys):
    # The negative of the one above: the same run with its check failing.
    status, out, _, _ = run_stub(tmp_path, monkeypatch, capsys, expect="cpu", fail=True)
    assert status == 1 and out[-1].startswith("LEVEL 1 FAILED: 1 check failed on cpu (exit 1); "), out
    assert out[-1].endswith("no package: ci/verify would refuse it (1 failed check)"), out
    assert "ci/package" not in out[-1]


def test_a_run_that_left_out_checks_of_its_level_is_not_invited_to_package(tmp_path, monkeypatch, capsys):
    # The negative of the invitation: its one check passed, but the level's list
    # holds a check the run's selection left out (-- -LE collectives).
    status, out, _, _ = run_stub(tmp_path, monkeypatch, capsys, expect="cpu",
                                 more_checks=["CollectivesSmoke.OneAllreduceAcrossEveryRank"])
    assert status == 0 and out[-1].startswith("LEVEL 1 PASSED: 1 check passed on cpu (exit 0); "), out
    assert out[-1].endswith("no package: ci/verify would refuse it (1 check of level 1 without a result "
                            "(e.g. CollectivesSmoke.OneAllreduceAcrossEveryRank))"), out
    assert "ci/package" not in out[-1]


def test_a_dirty_tree_is_warned_at_the_start_and_refused_at_the_end(tmp_path, monkeypatch, capsys):
    status, out, err, _ = run_stub(tmp_path, monkeypatch, capsys, expect="cpu", dirty=True)
    warning = [l for l in err.splitlines() if "uncommitted changes" in l]
    assert status == 0 and len(warning) == 1 and "?? notes.txt" in warning[0], err
    assert out[-1].endswith("no package: ci/verify would refuse it (dirty tree (?? notes.txt))"), out


def test_bad_input_in_a_dirty_tree_is_one_line(tmp_path, monkeypatch, capsys):
    """The dirty-tree warning follows the input checks: a refusal stays one
    line (a selection that holds no test is refused before ctest runs)."""
    build = stub_build(tmp_path, monkeypatch, expect="cpu", dirty=True)
    status = pipeline.main(["--build-dir", str(build), "--results", str(tmp_path / "r"), "--level", "1",
                            "--jobs", "1", "--quiet", "--labels", "^nothing$"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "holds no test" in err[0], err


def test_without_an_expectation_the_console_says_what_it_does_not_prove(tmp_path, monkeypatch, capsys):
    status, out, _, results = run_stub(tmp_path, monkeypatch, capsys)
    caveat = "No TDC_EXPECT: this proves nothing about which accelerators should be present"
    assert status == 0 and out.count(caveat) == 2, out   # the summary's, and the line before the last
    assert out[-2] == caveat and out[-1].startswith("LEVEL 1 PASSED"), out


def test_emptying_an_earlier_run_says_what_it_removes(tmp_path, capsys):
    # Issue 35: a level-1 run after a level-2 one removed its report.html and bench/ silently.
    from conftest import context_doc
    from tdc import results as results_module
    folder = tmp_path / "r"
    pipeline.fresh_results(str(folder))
    assert capsys.readouterr().err == ""                    # a new folder: nothing replaced
    results_module.write(str(folder / "context.json"), context_doc(level=2), "context")
    (folder / "report.html").write_text("<html>")
    (folder / "bench").mkdir()
    pipeline.fresh_results(str(folder))
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "replaces the earlier one" in err[0], err
    assert "run 20260101T000000Z-0123abcd, level 2" in err[0] and "bench/, context.json, report.html" in err[0]
    pipeline.fresh_results(str(folder))                      # emptied: nothing to say
    assert capsys.readouterr().err == ""
    (folder / "junit.xml").write_text("<x/>")
    pipeline.fresh_results(str(folder), announce=False)      # ci/health: its verdict only
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("fail", [False, True])
def test_each_file_is_written_once_and_none_is_read_back(tmp_path, monkeypatch, capsys, fail):
    """Issue 30, item 3: context, summary, both JUnit files and the verdict
    go from step to step in memory; the results folder holds outputs, not
    the bus between steps. Every write into the folder (an atomic replace,
    safeio, or an open for writing) and every read of it is counted: each
    file is written once, and the only file read is ctest's JUnit, once (and
    GoogleTest's XML, which only ctest's checks write)."""
    import builtins
    import json
    from tdc import verdict
    build = stub_build(tmp_path, monkeypatch, fail=fail, expect="cpu")
    results = os.path.realpath(tmp_path / "r")
    written, read = [], []

    def inside(path):
        if not isinstance(path, (str, bytes, os.PathLike)):
            return None   # a file descriptor
        path = os.path.realpath(os.fsdecode(path))
        return os.path.relpath(path, results) if path.startswith(results + os.sep) else None

    real_open, real_replace = builtins.open, os.replace

    def watched_open(file, mode="r", *args, **kwargs):
        name = inside(file)
        if name:
            (written if any(c in mode for c in "wax+") else read).append(name)
        return real_open(file, mode, *args, **kwargs)

    def watched_replace(source, target, *args, **kwargs):
        name = inside(target)
        if name:
            written.append(name)
        return real_replace(source, target, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", watched_open)
    monkeypatch.setattr(os, "replace", watched_replace)
    status = pipeline.main(["--build-dir", str(build), "--results", results, "--level", "1", "--jobs", "1",
                            "--quiet", "--verdict", str(tmp_path / "verdict.json")])
    monkeypatch.undo()
    # The level's list as the run had it (stub_build's, undone above with the watchers).
    monkeypatch.setattr(levels, "read_mustpass", lambda level, directory=None: ["Placement.X"])
    capsys.readouterr()
    assert sorted(written) == sorted([pipeline.MARKER, "context.json", "selected.txt", "ctest.log",
                                      "ctest-junit.xml", "summary.json", "junit.xml"]), written
    assert [name for name in read if not name.startswith("gtest" + os.sep)] == ["ctest-junit.xml"], read
    # What went through memory is what the files say: the verdict is the
    # verdict of the written summary, the JUnit files carry its context and failures.
    with open(os.path.join(results, "summary.json")) as handle:
        summary = json.load(handle)
    with open(tmp_path / "verdict.json") as handle:
        recorded = json.load(handle)
    again = verdict.document_of(summary, 1)
    # The run's status: its checks' (1: one failed), or its verdict's if worse.
    assert status == max(1 if fail else 0, verdict.EXIT[recorded["verdict"]]), (status, recorded)
    assert (recorded["run_id"], recorded["verdict"], recorded["message"]) == (
        summary["run_id"], again["verdict"], again["message"])
    for name in ("junit.xml", "ctest-junit.xml"):
        text = (tmp_path / "r" / name).read_text()
        assert f'<property name="run_id" value="{summary["run_id"]}" />' in text, name
        assert ("the copy differs at 7" in text) == fail, name
