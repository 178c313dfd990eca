"""Without TDC_EXPECT every report of a run says what it does not prove
(tdc.expectation): ci/health's message and the verdict JSON, the console,
the run's report header; with TDC_EXPECT set none of them does (the
negative: the caveat is not printed regardless)."""
import json

import pytest
from test_levels import HEALTHY, MUSTPASS, TWINS, entry

from tdc import expectation, results, summarize, verdict
from tdc.report import run as run_report

CAVEAT = "No TDC_EXPECT: this proves nothing about which accelerators should be present"


def summary_with(expect):
    # With TDC_EXPECT set, its check is a level-1 check that must pass.
    tests = HEALTHY + TWINS + ([entry("DeviceExpectation.IsPresent/cpu_at_least_1",
                                      device="cpu_at_least_1")] if expect else [])
    return {"tests": tests, "failures_by_root_cause": [], "run_id": "20260101T000000Z-0123abcd",
            "devices": {"cpu": {"passed": 1, "failed": 0, "skipped": 0, "known_failure": 0}}, "other": {},
            "context": {"expect": expect, "environment": {"TDC_EXPECT": expect} if expect else {}},
            "wall_seconds": 1.0}


def test_the_caveat_is_one_fact():
    assert expectation.NO_EXPECT == CAVEAT
    assert expectation.caveat("") == CAVEAT and expectation.caveat("  ") == CAVEAT
    assert expectation.caveat("cuda:8") is None and expectation.of_context({"expect": "cpu"}) is None


@pytest.mark.parametrize("expect, said", [("", True), ("cpu", False)])
def test_a_healthy_message_says_it(expect, said):
    outcome, message, _, _ = verdict.decide(summary_with(expect), 1, "", MUSTPASS)
    assert outcome == "healthy" and (CAVEAT in message) == said, message


@pytest.mark.parametrize("expect, said", [("", True), ("cpu", False)])
def test_the_verdict_json_carries_it(tmp_path, capsys, monkeypatch, expect, said):
    monkeypatch.delenv("TDC_EXPECT", raising=False)
    path = tmp_path / "summary.json"
    document = summary_with(expect)
    document["context"] = {**document["context"], "run_id": document["run_id"]}
    path.write_text(json.dumps(results.stamp(document)))
    monkeypatch.setattr(results, "read", lambda p, kind, what=None: json.load(open(p)))
    (tmp_path / "lists").mkdir()
    (tmp_path / "lists" / "level1.txt").write_text("\n".join(MUSTPASS) + "\n")
    status = verdict.verdict(["--summary", str(path), "--mustpass-dir", str(tmp_path / "lists"),
                              "--out", str(tmp_path / "verdict.json")])
    printed = json.loads(capsys.readouterr().out)
    written = json.load(open(tmp_path / "verdict.json"))
    assert status == 0 and printed == written
    assert written["caveat"] == (CAVEAT if said else None)


def test_a_run_that_could_not_tell_takes_the_callers_setting(tmp_path, capsys, monkeypatch):
    for expect, caveat in (("", CAVEAT), ("cuda:2", None)):
        monkeypatch.setenv("TDC_EXPECT", expect)
        verdict.verdict(["--summary", str(tmp_path / "none.json"), "--why-unknown", "no build"])
        assert json.loads(capsys.readouterr().out)["caveat"] == caveat


@pytest.mark.parametrize("expect, said", [("", True), ("cpu", False)])
def test_the_console_says_it(expect, said):
    assert (CAVEAT in summarize.console(summary_with(expect))) == said


@pytest.mark.parametrize("expect, said", [("", CAVEAT), ("cpu", None)])
def test_the_reports_header_says_it(tmp_path, expect, said):
    document = summary_with(expect)
    (tmp_path / "summary.json").write_text(json.dumps(document))
    (tmp_path / "context.json").write_text(json.dumps({"host": "n7", **document["context"]}))
    assert run_report.view(str(tmp_path))["caveat"] == said
    render = pytest.importorskip("jinja2") and __import__("tdc.report.render", fromlist=["render"])
    page = render.render("run.html.j2", **run_report.view(str(tmp_path)))
    assert ('id="caveat"' in page) == bool(said) and (CAVEAT in page) == bool(said)
