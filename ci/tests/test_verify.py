"""tdc.verify's cross-checks that need no package: JUnit against summary
(batched entries included), and the expected devices."""
import pytest

from tdc import gtest, junit, verify


def case(name, status):
    return junit.Case(name=name, status=status, seconds=0.1, reason="")


def result(name, status, twin=False, device="cpu", scope="device"):
    return {"name": name, "status": status, "twin": twin, "device": device, "scope": scope, "check": name}


def batched(name, status, entry):
    return dict(result(name, status), entry=entry)


@pytest.mark.parametrize("cases, tests, agree", [
    ([case("A.x", "passed")], [result("A.x", "passed")], True),
    ([case("A.x", "failed")], [result("A.x", "passed")], False),
    ([case("A.x", "passed")], [], False),
    ([case("A.x", "passed")], [result("A.x", "passed"), result("B.y", "passed")], False),
    ([case("A.x", "skipped")], [result("A.x", "known_failure")], True),
])
def test_junit_and_summary_agree(cases, tests, agree):
    problems = []
    verify.check_agreement(cases, tests, problems)
    assert (not problems) is agree, problems


@pytest.mark.parametrize("entries, tests, agree", [
    ([case("placement@cpu", "failed")],
     [batched("Placement.X/cpu", "passed", "placement@cpu"), batched("Placement.Y/cpu", "failed", "placement@cpu")], True),
    ([case("placement@cpu", "passed")],
     [batched("Placement.X/cpu", "passed", "placement@cpu"), batched("Placement.Y/cpu", "failed", "placement@cpu")], False),
    ([case("placement@cpu", "failed")],      # failed between checks: its own failure is in the summary
     [batched("Placement.X/cpu", "passed", "placement@cpu"), result("placement@cpu", "failed")], True),
    ([case("placement@cpu", "failed")], [batched("Placement.X/cpu", "passed", "placement@cpu")], False),
    ([case("TdcConfiguration.tdc_x", "failed")], [result("TdcConfiguration.tdc_x", "failed")], True),
    ([case("placement@cpu", "passed")],      # a result of an entry ctest never ran: not this run's
     [batched("Placement.X/cpu", "passed", "placement@cpu"), batched("Forward.Y/cpu", "passed", "forward@cpu")], False),
])
def test_ctest_entries_and_summary_agree(entries, tests, agree):
    problems = []
    verify.check_entries(entries, tests, problems)
    assert (not problems) is agree, problems


def test_expected_devices_from_tdc_expect():
    context = {"expect": "privateuseone:2,cpu", "devices": {"backends": [{"name": "loopback"}]}}
    assert verify.expected_devices(context, []) == ["loopback:0", "loopback:1", "cpu"]


def test_without_tdc_expect_the_nodes_own_devices_never_the_twins():
    own = [result("Placement.X/cpu", "passed"), result("Selection.Y", "passed", device="host", scope="host")]
    assert verify.expected_devices({"expect": ""}, own) == ["cpu"]


def sustained(device, seconds, twin=False):
    test = result(f"SustainedNumerics.SeedAndLinear1024MatchReference/{device}", "passed", twin, device)
    test["check"] = "SustainedNumerics.SeedAndLinear1024MatchReference"
    if seconds is not None:
        test["measurements"] = {"sustained_seconds": seconds}
    return test


@pytest.mark.parametrize("setting, seconds, accepted", [
    (10, 10, True),
    (60, 60, True),
    (1, 1, False),        # TDC_SUSTAINED_SECONDS=1: a level-3 run of 1 s qualifies nothing
    (10, 1, False),       # the context says 10, the device's check ran 1
    (None, 10, False),    # the context does not say
    (10, None, False),    # a pass that recorded no seconds
])
def test_level_3_needs_the_minimum_sustained_run(setting, seconds, accepted):
    problems = []
    verify.check_sustained_run({"sustained_seconds": setting}, [sustained("cpu", seconds)], ["cpu"], problems)
    assert (not problems) is accepted, problems


def test_privateuseone_in_expect_is_the_marked_backend_beside_cuda():
    # A CUDA build lists cuda beside the loaded PrivateUse1 backend; the mark
    # from tdc_context says which one TDC_EXPECT's privateuseone stands for.
    from tdc import verify
    context = {"expect": "privateuseone:2", "devices": {"backends": [
        {"name": "cuda", "device_count": 0, "privateuse1": False},
        {"name": "loopback", "device_count": 2, "privateuse1": True}]}}
    assert verify.expected_devices(context, []) == ["loopback:0", "loopback:1"]
    # Without the mark, two backends name none of them: the alias stays.
    for backend in context["devices"]["backends"]:
        del backend["privateuse1"]
    assert verify.expected_devices(context, []) == ["privateuseone:0", "privateuseone:1"]
    # A context from before the mark, with the one backend: that one.
    context["devices"]["backends"] = [{"name": "loopback", "device_count": 2}]
    assert verify.expected_devices(context, []) == ["loopback:0", "loopback:1"]


def record(key, status, known_failure=False):
    properties = {"check": key.split("/")[0], "device": "cpu"}
    if known_failure:
        properties["known_failure"] = "suites/known_failures.txt:3"
    return gtest.Record(key=key, properties=properties, status=status, reason="", path=key + ".xml")


@pytest.mark.parametrize("status, summary_status, agree", [
    ("passed", "passed", True),
    ("failed", "failed", True),
    ("skipped", "skipped", True),
    ("passed", "failed", True),       # worse in the summary: ctest saw the entry end badly after the XML
    ("failed", "passed", False),      # a failure the summary hides (issue "Results", finding 2)
    ("failed", "skipped", False),
    ("skipped", "passed", False),
    ("passed", "skipped", False),
    ("passed", "known_failure", False),
    ("skipped", "known_failure", False),  # a waiver the XML does not record
])
def test_gtest_records_and_summary_agree_on_status(status, summary_status, agree):
    problems = []
    verify.check_gtest({"A.x/cpu": record("A.x/cpu", status)},
                       [dict(result("A.x/cpu", summary_status), check="A.x", metadata=True)], problems)
    assert (not problems) is agree, problems


def test_a_waived_record_is_a_known_failure_in_the_summary():
    problems = []
    verify.check_gtest({"A.x/cpu": record("A.x/cpu", "skipped", known_failure=True)},
                       [dict(result("A.x/cpu", "known_failure"), check="A.x", metadata=True)], problems)
    assert not problems, problems
