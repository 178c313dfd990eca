"""tdc.verify's cross-checks that need no package: JUnit against summary
(batched entries included), and the expected devices."""
import pytest

from tdc import gtest, junit, verify


def case(name, status):
    return junit.Case(name=name, status=status, seconds=0.1, reason="")


def result(name, status, twin=False, device="cpu", scope="device"):
    return {"name": name, "status": status, "twin": twin, "device": device, "scope": scope, "check": name}


RECORDS = {"Placement.X/cpu": gtest.Record("Placement.X/cpu", {}, "passed", "", "placement@cpu.xml"),
           "Placement.Y/cpu": gtest.Record("Placement.Y/cpu", {}, "failed", "", "placement@cpu.1.xml")}


@pytest.mark.parametrize("cases, tests, agree", [
    ([case("A.x", "passed")], [result("A.x", "passed")], True),
    ([case("A.x", "failed")], [result("A.x", "passed")], False),
    ([case("A.x", "passed")], [], False),
    ([case("A.x", "passed")], [result("A.x", "passed"), result("B.y", "passed")], False),       # summary-only pass
    ([case("A.x", "passed")], [result("A.x", "passed"), result("B.y", "failed")], True),        # not run: failed
    ([case("placement@cpu", "failed")], [result("Placement.X/cpu", "passed"), result("Placement.Y/cpu", "failed")], True),
    ([case("placement@cpu", "passed")], [result("Placement.X/cpu", "passed"), result("Placement.Y/cpu", "failed")], False),
])
def test_junit_and_summary_agree(cases, tests, agree):
    problems = []
    verify.check_agreement(cases, tests, RECORDS, problems)
    assert (not problems) is agree, problems


def test_expected_devices_from_tdc_expect():
    context = {"expect": "privateuseone:2,cpu", "devices": {"backends": [{"name": "loopback"}]}}
    assert verify.expected_devices(context, []) == ["loopback:0", "loopback:1", "cpu"]


def test_without_tdc_expect_the_nodes_own_devices_never_the_twins():
    own = [result("Placement.X/cpu", "passed"), result("Selection.Y", "passed", device="host", scope="host")]
    assert verify.expected_devices({"expect": ""}, own) == ["cpu"]
