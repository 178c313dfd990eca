"""tdc report and ci/merge fail closed: bad input and a missing Debian module
are one line on stderr and exit 2, never a traceback or a page. The run's
report step (python3 -m tdc run-report, what ci/conformance ends with) lists
every test of summary.json, and the check of that fails without it."""
import json
import os
import re
import subprocess

import pytest
from conftest import ROOT

from tdc import verbs
from tdc.results import counts as status_counts

# Debian's python3, which has jinja2; tdc.verbs.child puts ci/ on its path.
REPORT = tuple(verbs.child("report", python="/usr/bin/python3")[0])
MERGE = os.path.join(ROOT, "ci", "merge")


def run(*command):
    result = subprocess.run(list(command), capture_output=True, text=True, timeout=120,
                            env=verbs.child("report")[1])
    return result.returncode, result.stdout, result.stderr


def one_line(stderr):
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_report_refuses_what_is_not_a_results_folder(tmp_path):
    code, _, stderr = run(*REPORT, str(tmp_path / "missing"))
    assert code == 2 and "not a results folder" in one_line(stderr)
    code, _, stderr = run(*REPORT, str(tmp_path))
    assert code == 2 and "no summary.json" in one_line(stderr)
    (tmp_path / "summary.json").write_text("{not json")
    code, _, stderr = run(*REPORT, str(tmp_path))
    assert code == 2 and "summary.json is not JSON" in one_line(stderr)
    (tmp_path / "summary.json").write_text(json.dumps({"tests": []}))
    code, _, stderr = run(*REPORT, str(tmp_path))
    assert code == 2 and "has no tests: nothing to report" in one_line(stderr)
    assert not (tmp_path / "report.html").exists()


def test_a_small_results_folder_makes_a_page_naming_its_failure(tmp_path):
    tests = [{"name": "Placement.RoundTrip16MiBIsExact/cuda_3", "check": "Placement.RoundTrip16MiBIsExact",
              "device": "cuda:3", "status": "failed", "seconds": 0.5, "message": "<b>7</b> elements differ",
              "twin": False, "scope": "device", "metadata": True, "prerequisite": None},
             {"name": "Forward.Seed/cuda_3", "check": "Forward.Seed", "device": "cuda:3", "status": "known_failure",
              "seconds": 0.1, "message": "known failure (suites/known_failures.txt:3; dtype, tracker T-9): no fp16",
              "twin": False, "scope": "device", "metadata": True}]
    (tmp_path / "summary.json").write_text(json.dumps({"tests": tests, "totals": {
        "passed": 0, "failed": 1, "skipped": 0, "known_failure": 1}}))
    (tmp_path / "context.json").write_text(json.dumps({"host": "n7", "devices": {"libtorch_version": "2.13.0"}}))
    code, stdout, stderr = run(*REPORT, str(tmp_path))
    assert code == 0, stderr
    page = open(stdout.strip()).read()
    assert "&lt;b&gt;7&lt;/b&gt; elements differ" in page and "<b>7</b>" not in page  # escaped, not markup
    assert "T-9" in page and "TDC run on n7" in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page


def test_the_page_says_per_device_whether_ordering_was_observed(tmp_path):
    """summary.json's devices[d].ordering (tdc.ordering), one row per device that has it."""
    tests = [{"name": f"AsyncCopies.A/loopback_{i}", "check": "AsyncCopies.A", "device": f"loopback:{i}",
              "status": "passed", "seconds": 0.1, "message": "", "twin": False, "scope": "device",
              "metadata": True} for i in (0, 1)]
    counts = {"passed": 1, "failed": 0, "skipped": 0, "known_failure": 0}
    (tmp_path / "summary.json").write_text(json.dumps({"tests": tests, "devices": {
        "loopback:0": dict(counts, ordering="observed"),
        "loopback:1": dict(counts, ordering="not observed: every operation completed before it returned"),
        "cpu": counts}}))
    code, stdout, stderr = run(*REPORT, str(tmp_path))
    assert code == 0, stderr
    page = open(stdout.strip()).read()
    rows = page.split('id="ordering-table"')[1].split("</table>")[0]
    assert 'data-device="loopback:0"' in rows and ">observed<" in rows
    assert "not observed: every operation completed before it returned" in rows
    assert 'data-device="cpu"' not in rows


def test_a_night_of_tasks_without_packages_is_still_a_matrix(tmp_path):
    (tmp_path / "tasks.json").write_text(json.dumps([{
        "host": f"n{i}", "build": "2.13.0", "job_id": "1", "array_task_id": i, "state": state, "exit_code": None,
        "package": None, "reason": f"Slurm: {state}"} for i, state in enumerate(("TIMEOUT", "NODE_FAIL"))]))
    code, stdout, stderr = run(MERGE, "--tasks", str(tmp_path / "tasks.json"), "--out", str(tmp_path / "o"))
    assert code == 1, stderr
    matrix = json.load(open(tmp_path / "o" / "matrix.json"))
    assert [(r["host"], r["state"], r["trust"]) for r in matrix["rows"]] == [
        ("n0", "TIMEOUT", "no package"), ("n1", "NODE_FAIL", "no package")]
    assert (tmp_path / "o" / "fleet.html").exists() and (tmp_path / "o" / "junit.xml").exists()


def test_without_debian_modules_the_tools_name_the_package(tmp_path):
    """python3 -S leaves out dist-packages: what a host without them sees."""
    (tmp_path / "summary.json").write_text(json.dumps({"tests": [{"name": "a", "status": "passed"}]}))
    code, _, stderr = run("/usr/bin/python3", "-S", *REPORT[1:], str(tmp_path))
    assert code == 2 and "install Debian's python3-" in one_line(stderr)
    code, _, stderr = run("/usr/bin/python3", "-S", MERGE, "--tasks", str(tmp_path / "t.json"), "--out",
                          str(tmp_path / "o"))
    assert code == 2 and "install Debian's python3-jinja2" in one_line(stderr)


@pytest.mark.parametrize("args, message", [
    ([], "nothing to merge"),
    (["/nonexistent.tar.gz"], "no such package"),
    (["--tasks", "/nonexistent.json"], "cannot read"),
    (["--allowed-signers", "/dev/null", "--tasks", "/x.json"], "lists no signer"),
    (["--night", "yesterday", "--tasks", "/x.json"], "expected YYYY-MM-DD"),
    (["--night", "2026-13-45", "--tasks", "TASKS"], "expected YYYY-MM-DD, a real date"),   # issue 34, finding 7
    (["--night", "0000-00-00", "--tasks", "TASKS"], "expected YYYY-MM-DD, a real date"),
    (["--allowed-signers", "", "--tasks", "TASKS"], "--allowed-signers is empty"),        # issue 35, "Nights"
    (["--max-age", "0", "--tasks", "TASKS"], "out of range"),
    (["--jobs", "0", "--tasks", "/x.json"], "out of range"),
    (["--history", "/nonexistent", "--tasks", "TASKS"], "--history /nonexistent: not a folder"),
    (["--tasks", "EMPTY"], "the tasks file lists no task"),
])
def test_merge_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    (tmp_path / "tasks.json").write_text(json.dumps([{
        "host": "n7", "build": "2.13.0", "job_id": "1", "array_task_id": 0, "state": "TIMEOUT", "exit_code": None,
        "package": None, "reason": "Slurm: TIMEOUT"}]))
    (tmp_path / "empty.json").write_text("[]")
    args = [str(tmp_path / "tasks.json") if a == "TASKS" else str(tmp_path / "empty.json") if a == "EMPTY" else a
            for a in args]
    code, _, stderr = run(MERGE, *args, "--out", str(tmp_path / "o"))
    assert code == 2 and message in one_line(stderr), stderr


def results_folder(path, tests):
    path.mkdir(parents=True, exist_ok=True)
    totals = status_counts(tests)
    (path / "summary.json").write_text(json.dumps({"tests": tests, "totals": totals}))
    (path / "context.json").write_text(json.dumps({"host": "n7", "devices": {"libtorch_version": "2.13.0"}}))
    return str(path)


RUN_TESTS = [{"name": f"Placement.RoundTrip16MiBIsExact/{d}", "check": "Placement.RoundTrip16MiBIsExact",
              "device": d.replace("_", ":"), "status": s, "seconds": 0.5, "message": m, "twin": False}
             for d, s, m in (("cpu", "passed", ""), ("cuda_0", "failed", "7 elements differ"),
                             ("cuda_1", "skipped", "needs two devices"))] + [
    {"name": "DeviceExpectation.IsPresent/cuda_at_least_2", "check": "DeviceExpectation.IsPresent",
     "device": "cuda", "status": "failed", "seconds": 0.0, "message": "TDC_EXPECT wants 2 cuda device(s)"}]


def run_report_step(results, *python_flags):
    """The step as ci/conformance runs it: Debian's python3 -m tdc run-report."""
    return run("/usr/bin/python3", *python_flags, "-m", "tdc", "run-report", "--results", results)


def test_the_run_report_step_lists_every_test_of_the_summary(tmp_path):
    from tdc.report import check
    results = results_folder(tmp_path / "r", RUN_TESTS)
    code, stdout, stderr = run_report_step(results)
    assert code == 0 and stdout.strip() == f"report: {results}/report.html", stderr
    assert check.problems(results) == []


def test_the_report_check_fails_without_the_step_and_on_a_damaged_page(tmp_path):
    from tdc.report import check
    skipped = results_folder(tmp_path / "skipped", RUN_TESTS)       # the report step never ran
    assert [p for p in check.problems(skipped) if "has no report.html" in p]
    results = results_folder(tmp_path / "r", RUN_TESTS)
    assert run_report_step(results)[0] == 0
    page = open(os.path.join(results, "report.html")).read()
    row = re.search(r'<tr class="test" data-name="DeviceExpectation[^"]*".*?</tr>', page, re.S).group(0)
    open(os.path.join(results, "report.html"), "w").write(page.replace(row, ""))
    found = check.problems(results)
    assert any("1 of 4 tests of summary.json are not rows" in p for p in found), found
    open(os.path.join(results, "report.html"), "w").write(
        page.replace('data-status="skipped"', 'data-status="passed"'))
    assert any("another status" in p for p in check.problems(results))


def test_without_debian_modules_the_step_is_one_line_and_no_page(tmp_path):
    results = results_folder(tmp_path / "r", RUN_TESTS)
    code, _, stderr = run_report_step(results, "-S")  # -S: no dist-packages, as on a bare host
    assert code == 2 and "no report.html" in one_line(stderr) and "python3-jinja2" in stderr
    assert not os.path.exists(os.path.join(results, "report.html"))


def test_out_a_folder_writes_the_page_into_it_and_nothing_beside_it(tmp_path):
    """`tdc report RESULTS --out /tmp` wrote /tmp.tmp at the root (issue 34, finding 12)."""
    results = results_folder(tmp_path / "r", RUN_TESTS)
    folder = tmp_path / "pages"
    folder.mkdir()
    code, stdout, stderr = run(*REPORT, results, "--out", str(folder))
    assert code == 0, stderr
    assert stdout.strip() == str(folder / "report.html") and os.path.isfile(folder / "report.html")
    assert sorted(os.listdir(tmp_path)) == ["pages", "r"]
    code, _, stderr = run(*REPORT, results, "--out", str(tmp_path / "missing" / "x.html"))
    assert code == 2 and "does not exist" in one_line(stderr)
