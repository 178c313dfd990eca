#!/usr/bin/env python3
"""Runs the fleet wrappers shipped in docs/fleet/ the way Slurm and
node-problem-detector would, against this build, with a faulty loopback
device, and checks what a scheduler would see.

  fleet_wrappers.py --build-dir BUILD --wrapper slurm|npd [--fault MODE]
slurm: exit non-zero and `scontrol update ... State=DRAIN Reason="tdc unhealthy: ..."`.
npd:   the rule's script from npd-tdc-health.json exits 1 within the rule's
       timeout and prints one line of at most max_output_length characters.
With --fault=none both must report healthy (exit 0, no drain)."""
import argparse
import json
import os
import stat
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLEET = os.path.join(ROOT, "docs", "fleet")


def run(command, env, timeout):
    started = time.time()
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    return result, time.time() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--wrapper", choices=("slurm", "npd"), required=True)
    parser.add_argument("--fault", default="corrupt-copy")
    args = parser.parse_args()
    healthy = args.fault == "none"
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        # The 60 s fit is measured (docs/conformance.md), not asserted: a
        # loaded CI host gets a budget that cannot turn the verdict into unknown.
        env = dict(os.environ, TDC_ROOT=ROOT, TDC_BUILD_DIR=os.path.abspath(args.build_dir),
                   TDC_VERDICT_FILE=os.path.join(tmp, "verdict.json"), TDC_HEALTH_BUDGET="280")
        env.pop("TDC_LOOPBACK_FAULT", None)
        if not healthy:
            env["TDC_LOOPBACK_FAULT"] = args.fault
        if args.wrapper == "slurm":
            calls = os.path.join(tmp, "scontrol.calls")
            fake = os.path.join(tmp, "scontrol")
            with open(fake, "w") as f:
                f.write(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{calls}"\n')
            os.chmod(fake, stat.S_IRWXU)
            env["SCONTROL"] = fake
            result, seconds = run([os.path.join(FLEET, "slurm-healthcheck.sh")], env, 600)
            drained = open(calls).read() if os.path.exists(calls) else ""
            if healthy and (result.returncode != 0 or drained):
                problems.append(f"healthy host: exit {result.returncode}, scontrol: {drained!r}")
            if not healthy:
                if result.returncode != 1:
                    problems.append(f"exit {result.returncode}, expected 1 (unhealthy)")
                if "State=DRAIN" not in drained or "Reason=tdc unhealthy: " not in drained:
                    problems.append(f"node not drained with a tdc reason: scontrol got {drained!r}")
        else:
            with open(os.path.join(FLEET, "npd-tdc-health.json")) as f:
                config = json.load(f)
            rule = config["rules"][0]
            script = rule["path"].replace("/opt/tdc", ROOT)
            result, seconds = run([script], env, 600)
            lines = [l for l in result.stdout.splitlines() if l.strip()]
            expected = 0 if healthy else 1
            if result.returncode != expected:
                problems.append(f"exit {result.returncode}, expected {expected}")
            if len(lines) != 1 or len(lines[0]) > config["pluginConfig"]["max_output_length"]:
                problems.append(f"output is not one line of <= max_output_length: {lines}")
    print(f"{args.wrapper} wrapper, fault {args.fault}: exit {result.returncode} in {seconds:.1f} s")
    print(result.stdout[-2000:], result.stderr[-2000:])
    for problem in problems:
        print("FAILED:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
