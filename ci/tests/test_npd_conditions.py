"""node-problem-detector's conditions (ci/fleet/npd-tdc-health.json,
tdc.fleet.npd_config): one per recommended action of the actions table and
no other, and the plugin, run as npd runs each rule, sets exactly the
condition of the recorded verdict's action (a healthy verdict: none)."""
import json
import os
import subprocess

from conftest import recorded_verdict
from tdc import ROOT, fingerprint
from tdc.fleet import actions, node_check, npd_config

NODE = "n1"


def test_the_config_is_made_from_the_actions_table():
    with open(npd_config.PATH) as f:
        committed = f.read()
    assert committed == npd_config.text(), "run: python3 -m tdc.fleet.npd_config --write"
    config = json.loads(committed)
    ruled = {rule["condition"]: rule.get("args", []) for rule in config["rules"]}
    assert [c["type"] for c in config["conditions"]] == list(ruled)  # each condition has its rule
    per_action = {tuple(args) for name, args in ruled.items() if name != npd_config.PROBLEM}
    assert per_action == {(a,) for a in actions.ACTIONS if a != "none"}
    assert ruled[npd_config.PROBLEM] == []
    assert npd_config.condition("reset_device") == "TorchDeviceNeedsResetDevice"


def record(env, build, outcome, action):
    """A young verdict of the node's configuration, failing one check with ACTION."""
    recorded_verdict(node_check.verdict_path(build, env["TDC_HEALTH_STATE"], NODE), outcome, action,
                     fingerprint.of(node_check.check_environment(env, NODE, "", build), build))


def conditions_set(env):
    """{condition: exit status} of every rule, run as npd runs it."""
    config = npd_config.config()
    script = os.path.join(ROOT, "ci", "fleet", "npd-tdc-health.sh")
    found = {}
    for rule in config["rules"]:
        done = subprocess.run([script, *rule.get("args", [])], env=env, capture_output=True, text=True,
                              timeout=60)
        lines = done.stdout.splitlines()
        assert len(lines) == 1 and len(lines[0]) <= config["pluginConfig"]["max_output_length"], done
        found[rule["condition"]] = done.returncode
    return found


def test_a_failing_verdict_sets_the_condition_of_its_action_and_no_other(tmp_path):
    build = str(tmp_path / "build")  # no build: the fingerprint still names its parts
    env = {"HOME": str(tmp_path), "TDC_ROOT": ROOT, "TDC_BUILD_DIR": build, "SLURMD_NODENAME": NODE,
           "TDC_FLEET_CONF": str(tmp_path / "none.conf"), "TDC_HEALTH_STATE": str(tmp_path / "state"),
           "TDC_EXPECT": "loopback:2", "PATH": "/usr/bin:/bin"}
    record(env, build, "healthy", "none")
    assert set(conditions_set(env).values()) == {0}, "a healthy node sets no condition"
    for action in npd_config.per_action():
        record(env, build, "unhealthy", action)
        found = conditions_set(env)
        assert found.pop(npd_config.PROBLEM) == 1, action
        assert found == {npd_config.condition(a): int(a == action) for a in npd_config.per_action()}, action
