"""tdc.ordering: the ordering checks' `ordering_observed` property, read from
GoogleTest's XML and aggregated per device in summary.json (observed when
any ordering check on the device saw work pending; not observed, saying
why, when none did; nothing for a device none of them ran on)."""
import pytest
from conftest import gtest_text, junit_text

from tdc import gtest, junit, ordering, results, summarize
from tdc.errors import InputError
from tdc.report import run as report_run


def summary_of(write, cases):
    """cases: (name, status attr, properties) -> the summary document, as written."""
    path = write("junit.xml", junit_text(*[(n, s, "") for n, s, _ in cases]))
    for index, (name, _, properties) in enumerate(cases):
        write(f"gtest/{index}.xml", gtest_text(name, dict(properties, test=name)))
    records = gtest.read_dir(path.rsplit("/", 1)[0] + "/gtest")
    document = summarize.build(junit.read(path), records, {}, 1.0, 1)
    return results.write(path.rsplit("/", 1)[0] + "/summary.json", document, "summary")


def test_observed_when_any_ordering_check_saw_work_pending(write):
    summary = summary_of(write, [
        ("AsyncCopies.A/loopback_0", "run", {"device": "loopback:0", ordering.PROPERTY: "no"}),
        ("EventBlock.B/loopback_0", "run", {"device": "loopback:0", ordering.PROPERTY: "yes"}),
        ("AsyncCopies.A/loopback_1", "run", {"device": "loopback:1", ordering.PROPERTY: "no"}),
        ("EventBlock.B/loopback_1", "run", {"device": "loopback:1", ordering.PROPERTY: "no"}),
        # The CPU has no streams: its ordering checks skip and record nothing.
        ("AsyncCopies.A/cpu", "notrun", {"device": "cpu"}),
        ("Placement.X/cpu", "run", {"device": "cpu"}),
    ])
    devices = summary["devices"]
    assert devices["loopback:0"]["ordering"] == "observed"
    assert devices["loopback:1"]["ordering"] == \
        "not observed: every operation completed before it returned"
    assert "ordering" not in devices["cpu"]
    assert devices["loopback:1"]["passed"] == 2           # the counts are still there
    by_name = {t["name"]: t for t in summary["tests"]}
    assert by_name["EventBlock.B/loopback_0"][ordering.PROPERTY] is True
    assert by_name["AsyncCopies.A/loopback_1"][ordering.PROPERTY] is False
    assert ordering.PROPERTY not in by_name["Placement.X/cpu"]
    lines = summarize.console(summary)
    assert "loopback:0: ordering observed" in lines
    assert "loopback:1: ordering not observed: every operation completed before it returned" in lines
    assert ordering.unobserved(devices) == ["loopback:1"]
    assert report_run.ordering_of(summary) == [("loopback:0", ordering.OBSERVED),
                                               ("loopback:1", ordering.NOT_OBSERVED)]


def test_a_failed_check_that_saw_work_pending_still_observed(write):
    summary = summary_of(write, [
        ("EventBlock.B/cuda_0", "fail", {"device": "cuda:0", ordering.PROPERTY: "yes"})])
    assert summary["devices"]["cuda:0"]["ordering"] == ordering.OBSERVED


def test_no_ordering_check_no_ordering(write):
    summary = summary_of(write, [("Placement.X/cuda_0", "run", {"device": "cuda:0"})])
    assert "ordering" not in summary["devices"]["cuda:0"]
    assert not [l for l in summarize.console(summary) if "ordering" in l]


@pytest.mark.parametrize("value", ["", "maybe", "Yes", "1"])
def test_a_damaged_value_is_refused(write, value):
    write("gtest/a.xml", gtest_text("EventBlock.B/cuda_0", {"test": "EventBlock.B/cuda_0",
                                                            ordering.PROPERTY: value}))
    with pytest.raises(InputError, match="ordering_observed="):
        gtest.read_dir(write("x", "").rsplit("/", 1)[0] + "/gtest")


def test_the_schema_refuses_a_device_entry_it_does_not_know(write):
    summary = summary_of(write, [("EventBlock.B/cuda_0", "run", {"device": "cuda:0",
                                                                 ordering.PROPERTY: "no"})])
    summary["devices"]["cuda:0"]["ordring"] = "observed"
    with pytest.raises(InputError, match="ordring"):
        results.validate(summary, "summary", "summary.json")


def test_verify_notes_each_device_whose_ordering_was_not_observed(monkeypatch, capsys):
    from tdc import verify
    summary = {"tests": [{}], "devices": {"loopback:0": {"ordering": ordering.OBSERVED},
                                          "loopback:1": {"ordering": ordering.NOT_OBSERVED}, "cpu": {}}}
    monkeypatch.setattr(verify, "verify", lambda *a: (1, {"product": "X1"}, summary, {"expect": ""},
                                                       ["loopback:0", "loopback:1"]))
    assert verify.run(["p.tar.gz"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("VERIFIED: p.tar.gz")
    assert lines[1:] == ["note: loopback:1: ordering not observed: every operation completed before it returned"]
    assert verify.run(["p.tar.gz", "--quiet"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1
