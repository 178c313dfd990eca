#!/usr/bin/env python3
"""Fails when a known-failure waiver applies to no test of any suite binary:
a typo'd glob ("Froward.*"), a device type no binary knows ("cdua"). Each
binary answers for its own tests (--tdc-waiver-matches); a waiver is alive
when one binary matched it, or when it is for another LibTorch version.

  check_waivers.py --run=BINARY[,KEY=VALUE...] ...
Exit status: 0 every waiver applies somewhere, 1 one does not, 2 bad input."""
import argparse
import os
import subprocess
import sys

ALIVE = ("matched", "other-version")
WHY = {
    "unknown-device-type": "its device type is known to no suite binary (typo, or a backend that is not loaded)",
    "no-test": "its test glob matches no test of any suite",
}


def ask(binary, assignments):
    env = dict(os.environ)
    for assignment in assignments:
        key, _, value = assignment.partition("=")
        env[key] = value
    try:
        run = subprocess.run([binary, "--tdc-waiver-matches"], env=env, capture_output=True,
                             text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"{binary}: {error}"
    if run.returncode != 0:
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        return None, lines[-1] if lines else f"{binary} exited {run.returncode}"
    states = {}
    for line in run.stdout.splitlines():
        origin, _, state = line.rpartition("\t")
        if origin:
            states[origin] = state
    return states, None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", action="append", default=[], required=True)
    args = parser.parse_args()
    states_by_origin = {}
    for run in args.run:
        binary, *assignments = run.split(",")
        states, error = ask(binary, assignments)
        if error:
            print(f"check_waivers: {error}")
            return 1
        for origin, state in states.items():
            states_by_origin.setdefault(origin, set()).add(state)
    dead = {origin: states for origin, states in states_by_origin.items() if not states & set(ALIVE)}
    for origin, states in dead.items():
        # A binary that knows the device type has the more telling answer.
        state = "no-test" if "no-test" in states else sorted(states)[0]
        print(f"waiver matched no test: {origin}: {WHY.get(state, state)}")
    print(f"{len(states_by_origin)} waiver(s) checked against {len(args.run)} suite binaries, "
          f"{len(dead)} matched no test")
    return 1 if dead else 0


if __name__ == "__main__":
    sys.exit(main())
