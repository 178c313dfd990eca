"""The level verdict's counting rule (tdc.levels, tdc.verdict): every selected
entry counts, configuration errors and not-built entries included; the
loopback twins' passes never count for the node's own devices."""
import pytest

from tdc import levels, verdict

MUSTPASS = ["DeviceDiscovery.EveryBackendEnumerates", "DeviceExpectation.IsPresent", "Placement.X"]


def entry(name, status="passed", device=None, check=None, message=""):
    twin = name.startswith("loopback:")
    check = check or name.split(":", 1)[-1].split("/")[0]
    device = device or ("host" if "/" not in name else name.rsplit("/", 1)[1].replace("_", ":"))
    scope = "expectation" if check == "DeviceExpectation.IsPresent" else (
        "host" if device == "host" else "device")
    return {"name": name, "check": check, "device": device, "status": status, "seconds": 0.1,
            "message": message, "twin": twin, "scope": scope, "metadata": False}


def summary_of(tests, expect=""):
    return {"tests": tests, "failures_by_root_cause": [], "devices": {}, "run_id": None,
            "context": {"environment": {"TDC_EXPECT": expect} if expect else {}}, "wall_seconds": 1.0}


HEALTHY = [entry("DeviceDiscovery.EveryBackendEnumerates"), entry("Placement.X/cpu", device="cpu")]
TWINS = [entry("loopback:DeviceDiscovery.EveryBackendEnumerates"),
         entry("loopback:Placement.X/loopback_0", device="loopback:0"),
         entry("loopback:DeviceExpectation.IsPresent/loopback_at_least_2", device="loopback_at_least_2")]


def decide(tests, expect=""):
    outcome, message, failing, counted = verdict.decide(summary_of(tests, expect), 1, "", MUSTPASS)
    return outcome, message


def test_healthy_when_the_nodes_own_checks_pass():
    assert decide(HEALTHY + TWINS)[0] == "healthy"


def test_twin_passes_never_count_for_the_node():
    # TDC_DEVICES=cuda on a host without CUDA: every own device check skips,
    # every pass comes from the twins.
    own = [entry("DeviceDiscovery.EveryBackendEnumerates"),
           entry("Placement.X/cuda", status="skipped", device="cuda", message="cuda is absent")]
    outcome, message = decide(own + TWINS)
    assert outcome == "unhealthy" and "no check passed on this node's own devices" in message


def test_only_twins_is_not_healthy():
    outcome, message = decide(TWINS)
    assert outcome == "unhealthy" and "prove the build, not the node" in message


def test_fewer_checks_than_the_mustpass_list_is_not_healthy():
    # A missing bin/tdc_placement: its checks are simply absent.
    outcome, message = decide([entry("DeviceDiscovery.EveryBackendEnumerates"),
                               entry("Forward.Y/cpu", device="cpu")] + TWINS)
    assert outcome == "unhealthy" and "1 of its 2 checks have no result" in message and "Placement.X" in message


def test_expectation_check_required_only_when_set():
    assert decide(HEALTHY + TWINS, expect="")[0] == "healthy"
    outcome, message = decide(HEALTHY + TWINS, expect="cuda:1")
    assert outcome == "unhealthy" and "DeviceExpectation.IsPresent" in message


@pytest.mark.parametrize("failure", [
    entry("tdc_placement_NOT_BUILT", status="failed", message="not built"),
    entry("loopback:Placement.X/loopback_1", status="failed", device="loopback:1", message="copy differs"),
])
def test_configuration_errors_not_built_and_twin_failures_count(failure):
    outcome, message = decide(HEALTHY + TWINS + [failure])
    assert outcome == "unhealthy" and failure["name"] in message and failure["message"] in message


@pytest.mark.parametrize("line", ["TDC_EXPECT: 'cuda:x': bad count", "TDC_DEVICES: empty token in 'cpu,,cuda'"])
def test_a_configuration_error_is_unknown_with_its_line(line):
    # Issue "Fail closed, round 3", finding 1: a bad setting is unknown
    # (exit 2), never unhealthy (which drains a node for a typo); the
    # message is the entry's one line.
    failure = entry("TdcConfiguration.tdc_placement", status="failed", message=line)
    outcome, message, failing, _ = verdict.decide(summary_of(HEALTHY + TWINS + [failure]), 1, "", MUSTPASS)
    assert (outcome, verdict.EXIT[outcome]) == ("unknown", 2)
    assert message == line and failing == []


def test_a_twins_configuration_error_is_not_a_bad_setting():
    # The twins ignore the caller's settings: their configuration failing is
    # the build's problem, unhealthy.
    failure = entry("loopback:TdcConfiguration.tdc_placement_with_loopback", status="failed", message="bad")
    assert decide(HEALTHY + TWINS + [failure])[0] == "unhealthy"


def test_a_failure_outside_the_root_cause_groups_still_fails():
    # Issue "Fail closed, round 3", finding 10: a failed test and no failures_by_root_cause.
    outcome, message, failing, _ = verdict.decide(summary_of(HEALTHY + [entry("Placement.X/cuda:0", "failed")]),
                                                  1, "", MUSTPASS)
    assert outcome == "unhealthy" and failing and failing[0]["message"]


def test_count_names_what_it_counted():
    count = levels.count(HEALTHY + TWINS, 1, MUSTPASS)
    assert (len(count.own_passed), count.twin_passed, count.missing) == (1, 3, [])
