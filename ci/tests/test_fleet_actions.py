"""The recommended action (tdc.fleet.actions), its place in the verdict and
the drain reason, and the node check that cannot run (a bad budget): each
with the case that must come out otherwise."""
import json
import os
import subprocess
import sys

from tdc import ROOT, schema, verdict, verbs
from tdc.fleet import actions, drain


def test_each_failure_class_has_one_action_and_the_table_is_ordered():
    assert set(action for action, _ in actions.TABLE.values()) <= set(actions.ACTIONS)
    assert actions.ACTIONS[0] == "none"
    assert actions.most_severe(["rerun", "reboot", "drain"]) == "reboot"
    assert actions.most_severe([]) == "none"


def test_a_hang_resets_the_device_a_missing_one_reboots_a_failed_check_drains():
    assert actions.classify("EventBlock.Sync/cuda_3", "timed out after 30.0 s (hung?)") == "hang"
    assert actions.classify("DeviceDiscovery.EveryBackendEnumerates", "found 0 devices") == "missing_device"
    assert actions.classify("Expectation.X/cuda_at_least_1", "expected 1") == "missing_device"
    assert actions.classify("Copy.RoundTrip/loopback_0", "value mismatch at 3") == "conformance"
    assert actions.action_of(actions.classify("Copy.RoundTrip/loopback_0", "value mismatch")) == "drain"


def test_the_node_action_is_the_most_severe_and_unknown_is_rerun():
    failing = [{"action": "drain"}, {"action": "reset_device"}]
    assert actions.node_action("unhealthy", failing) == "reset_device"
    assert actions.node_action("healthy", failing) == "none"
    assert actions.node_action("unknown", []) == "rerun"
    assert actions.node_action("unhealthy", []) == "drain"  # unhealthy is never "none"


def test_the_verdict_schema_takes_the_actions_and_refuses_an_unknown_one():
    document = {"schema_version": "1.0", "verdict": "unhealthy", "action": "reset_device", "message": "m",
                "level": 1, "host": "h", "run_id": None, "seconds": None, "devices": {},
                "failing": [{"check": "A.B", "device": "cuda:3", "message": "timed out", "dependents": [],
                             "class": "hang", "action": "reset_device"}],
                "counted": {"own_passed": 0, "own_skipped": 0, "failed": 1, "twin_passed": 0,
                            "missing_checks": []}}
    schema_doc = os.path.join(ROOT, "ci", "tdc", "schemas", "verdict.schema.json")
    with open(schema_doc) as f:
        spec = json.load(f)
    assert not schema.errors(document, spec)
    assert schema.errors(dict(document, action="pray"), spec)


def test_the_drain_reason_names_the_action_and_a_compound_drained_state_resumes():
    assert drain.drain_reason("unhealthy", "cuda:3 EventBlock... timed out", "reset_device") == \
        "TDC: reset_device: cuda:3 EventBlock... timed out"
    assert drain.decide("healthy", "mixed+drain", "TDC: drain: x")[0] == "resume"
    assert drain.decide("healthy", "mixed", "TDC: drain: x")[0] == "none"
    assert drain.decide("healthy", "mixed+drain", "admin: fan")[0] == "none"
    # An administrator's reason that begins with TDC: is TDC's (docs/fleet.md).
    assert drain.decide("healthy", "drained", "TDC: admin note")[0] == "resume"


def test_a_bad_budget_is_an_unknown_verdict_not_an_argparse_exit():
    for budget in ("abc", "5"):
        env = verbs.tools_env(dict(os.environ, TDC_HEALTH_BUDGET=budget))
        done = subprocess.run([sys.executable, "-m", "tdc.fleet.node_check", "--build-dir=/nonexistent",
                               "--node=n0"], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2
        assert done.stdout.startswith("unknown: cannot run the check: bad budget"), done.stdout
        assert "usage:" not in done.stderr
