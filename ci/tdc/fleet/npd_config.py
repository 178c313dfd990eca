"""node-problem-detector's configuration for TDC's custom plugin
(ci/fleet/npd-tdc-health.json), made from the actions table
(tdc.fleet.actions), so the conditions are the table's actions and nothing
else: one condition `TorchDeviceProblem` (the node is not healthy: exit 1
unhealthy, 2 unknown) and one condition per recommended action but `none`
(`TorchDeviceNeedsResetDevice` is True while reset_device is the node's
action), each a rule that runs the plugin with the action as its argument.

  python3 -m tdc.fleet.npd_config [--write]
Prints the configuration; --write replaces ci/fleet/npd-tdc-health.json with
it (ci/tests/test_npd_conditions.py checks that file is what this makes).
"""
import json
import os
import sys

from tdc import ROOT, cli, safeio
from tdc.fleet import actions

PATH = os.path.join(ROOT, "ci", "fleet", "npd-tdc-health.json")
PLUGIN = "/opt/tdc/ci/fleet/npd-tdc-health.sh"
TIMEOUT = "60s"  # the plugin's own limit; the background run's budget is 45 s
PROBLEM = "TorchDeviceProblem"


def camel(action):
    return "".join(part.capitalize() for part in action.split("_"))


def condition(action):
    """The condition that is True while ACTION is the node's recommended action."""
    return f"TorchDeviceNeeds{camel(action)}"


def per_action():
    """The actions that get a condition: every one but `none` (a healthy node)."""
    return [a for a in actions.ACTIONS if a != "none"]


def config():
    conditions = [{"type": PROBLEM, "reason": "TorchDevicesReady",
                   "message": "LibTorch devices pass TDC level-1 readiness"}]
    rules = [{"type": "permanent", "condition": PROBLEM, "reason": "TorchDeviceNotReady",
              "path": PLUGIN, "timeout": TIMEOUT}]
    for action in per_action():
        conditions.append({"type": condition(action), "reason": f"No{camel(action)}Recommended",
                           "message": f"TDC does not recommend {action}"})
        rules.append({"type": "permanent", "condition": condition(action),
                      "reason": f"{camel(action)}Recommended", "path": PLUGIN, "args": [action],
                      "timeout": TIMEOUT})
    return {"plugin": "custom",
            "pluginConfig": {"invoke_interval": "300s", "timeout": TIMEOUT, "max_output_length": 80,
                             "concurrency": 1},
            "source": "tdc-health", "metricsReporting": True, "conditions": conditions, "rules": rules}


def text():
    return json.dumps(config(), indent=2) + "\n"


def body(argv):
    parser = cli.Parser("npd_config", __doc__)
    parser.add_argument("--write", action="store_true", help=f"replace {os.path.relpath(PATH, ROOT)}")
    args = parser.parse_args(argv)
    if args.write:
        safeio.write_text(PATH, text())
    else:
        sys.stdout.write(text())
    return 0


def main(argv=None):
    return cli.run_main("npd_config", body, argv)


if __name__ == "__main__":
    sys.exit(main())
