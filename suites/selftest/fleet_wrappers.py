#!/usr/bin/env python3
"""Runs the node-problem-detector plugin shipped in ci/fleet/ the way
node-problem-detector would, against this build, with a faulty loopback
device, and checks what npd would see. (The Slurm adapters run on a real
Slurm cluster: suites/selftest/fleet_cluster.py.)

  fleet_wrappers.py --build-dir BUILD [--fault MODE]
The rule's script from npd-tdc-health.json exits 1 within the rule's timeout
and prints one line of at most max_output_length characters. With
--fault=none it must report healthy (exit 0). Then each per-action rule runs
on the verdict recorded: with a fault, only the condition of the verdict's
action is set (corrupt-copy, a failed check: drain); healthy, none."""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

from detached import settled
from health_budget import BUDGET, TIMEOUT

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLEET = os.path.join(ROOT, "ci", "fleet")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--fault", default="corrupt-copy")
    args = parser.parse_args()
    healthy = args.fault == "none"
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        # The 60 s fit is measured (docs/fleet.md), not asserted: a loaded CI
        # host gets a budget that cannot turn the verdict into unknown
        # (health_budget.py).
        build = os.path.abspath(args.build_dir)
        env = dict(os.environ, TDC_ROOT=ROOT, TDC_BUILD_DIR=build, TDC_HEALTH_BUDGET=str(BUDGET),
                   TDC_HEALTH_STATE=os.path.join(tmp, "state"),
                   TDC_FLEET_CONF=os.path.join(tmp, "no-such.conf"),
                   TDC_BACKEND_LIBS=os.path.join(build, "lib", "libtdc_loopback.so"))
        env.pop("TDC_LOOPBACK_FAULT", None)
        env.pop("TDC_EXPECT", None)  # the loopback's two devices (node_check)
        if not healthy:
            env["TDC_LOOPBACK_FAULT"] = args.fault
        with open(os.path.join(FLEET, "npd-tdc-health.json")) as f:
            config = json.load(f)
        rule = config["rules"][0]
        script = rule["path"].replace("/opt/tdc", ROOT)
        # Detached (tdc.fleet.node_check): the first call starts the background
        # run; the one after it has recorded its verdict applies it.
        started = time.time()
        result = settled(lambda: subprocess.run([script], env=env, capture_output=True, text=True,
                                                timeout=TIMEOUT),
                         env["TDC_HEALTH_STATE"], socket.gethostname().split(".")[0])
        seconds = time.time() - started
        lines = [line for line in result.stdout.splitlines() if line.strip()]
        expected = 0 if healthy else 1
        if result.returncode != expected:
            problems.append(f"exit {result.returncode}, expected {expected}")
        if len(lines) != 1 or len(lines[0]) > config["pluginConfig"]["max_output_length"]:
            problems.append(f"output is not one line of <= max_output_length: {lines}")
        if not healthy and lines and not lines[0].startswith("unhealthy: "):
            problems.append(f"the line does not say unhealthy: {lines[0]!r}")
        # One condition per action (tdc.fleet.npd_config): the recorded verdict answers each rule.
        conditions = {}
        for action_rule in config["rules"][1:]:
            done = subprocess.run([action_rule["path"].replace("/opt/tdc", ROOT), *action_rule["args"]], env=env,
                                  capture_output=True, text=True, timeout=TIMEOUT)
            conditions[action_rule["args"][0]] = done.returncode
        wanted = {action: int(not healthy and action == "drain") for action in conditions}
        if not conditions or conditions != wanted:
            problems.append(f"per-action conditions (exit status by action) {conditions}, expected {wanted}")
        print(f"per-action conditions: {conditions}")
    print(f"npd plugin, fault {args.fault}: exit {result.returncode} in {seconds:.1f} s")
    print(result.stdout[-2000:], result.stderr[-2000:])
    for problem in problems:
        print("FAILED:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
