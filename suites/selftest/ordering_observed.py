#!/usr/bin/env python3
"""The ordering checks say whether they observed ordering (issue 21, finding
9): run on the loopback with TDC_LOOPBACK_HOLD_US, whose queues hold work
until something waits for it (so a peek finds it pending however loaded the
host is: a delay of the work raced the peek), each device's `ordering` in
summary.json is "observed"; run on the
loopback with TDC_LOOPBACK_SYNCHRONOUS=1, a backend that completes every
operation before it returns, the same checks all pass (a synchronous
backend conforms) and each device's `ordering` is "not observed: every
operation completed before it returned", printed so by summarize. The CPU
(no streams: its ordering checks skip) has no `ordering`. Either half fails
if the checks stop peeking, the fixture stops recording the property or
summarize stops aggregating it.

  ordering_observed.py --streams tdc_streams --events tdc_events --loopback libtdc_loopback.so
(summarize is `python3 -m tdc summarize`: ci/ on PYTHONPATH, as ctest sets it)"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from selftest_report import finish

from tdc import discovery_env, ordering

# The ordering checks: the ones tdc::OrderingTest runs (their property says
# what they saw).
ORDERING_CHECKS = ["StreamSynchronize.*", "AsyncCopies.*", "DeviceSynchronize.*",
                   "EventRecord.*", "EventBlock.*", "EventBlockAcrossDevices.*"]
MODES = {"held": ({"TDC_LOOPBACK_HOLD_US": "1000000"}, ordering.OBSERVED),
         "synchronous": ({"TDC_LOOPBACK_SYNCHRONOUS": "1"}, ordering.NOT_OBSERVED)}


def run_mode(args, work, name, extra_env):
    """summary.json (as a dict) and summarize's console of the ordering checks
    run in one mode, as tdc_batch would run them (entry and result names as
    properties)."""
    folder = os.path.join(work, name)
    gtest_dir = os.path.join(folder, "gtest")
    os.makedirs(gtest_dir)
    entries = []
    for suite in (args.streams, args.events):
        entry = f"{os.path.basename(suite)}@ordering_{name}"
        env = dict(os.environ, TDC_BACKEND_LIBS=args.loopback, TDC_DEVICES="cpu,privateuseone",
                   TDC_ENTRY=entry, TDC_ISOLATION="batch", **extra_env)
        for unset in discovery_env.LOOPBACK_BEHAVIOUR:
            if unset not in extra_env:
                env.pop(unset, None)
        xml = os.path.join(gtest_dir, f"{os.path.basename(suite)}.xml")
        run = subprocess.run([suite, "--gtest_filter=" + ":".join(ORDERING_CHECKS), f"--gtest_output=xml:{xml}"],
                             env=env, capture_output=True, text=True, timeout=600)
        if not os.path.exists(xml):
            raise SystemExit(f"FAILED: {name}: {suite} exited {run.returncode} without its XML:\n"
                             f"{run.stdout[-2000:]}{run.stderr[-2000:]}")
        entries.append(entry)
    junit = os.path.join(folder, "junit.xml")
    with open(junit, "w") as f:
        f.write(f'<testsuite tests="{len(entries)}">'
                + "".join(f'<testcase name="{e}" time="0.1"/>' for e in entries) + "</testsuite>\n")
    out = os.path.join(folder, "summary.json")
    run = subprocess.run([sys.executable, "-m", "tdc", "summarize", "--junit", junit, "--gtest-dir", gtest_dir, "--out", out],
                         capture_output=True, text=True)
    if run.returncode not in (0, 1) or not os.path.exists(out):
        raise SystemExit(f"FAILED: {name}: summarize exited {run.returncode}: {run.stderr.strip()}")
    with open(out) as f:
        return json.load(f), run.stdout


def check_mode(name, summary, console, expected):
    problems = []
    tests = summary["tests"]
    accelerators = sorted(d for d in summary["devices"] if d != "cpu")
    if len(accelerators) < 2:
        problems.append(f"{name}: expected the loopback's two devices, found {sorted(summary['devices'])}")
    for test in tests:
        # A skip is a LibTorch without the interface (1.13: no synchronizeDevice).
        if test["status"] == "failed" or (test["status"] == "skipped" and not test["message"]):
            problems.append(f"{name}: {test['name']} {test['status']}: {test['message'] or 'no reason'}")
        if test["status"] == "skipped" and ordering.PROPERTY in test:
            problems.append(f"{name}: {test['name']} skipped but recorded {ordering.PROPERTY}")
        if test["device"] != "cpu" and test["status"] == "passed" and ordering.PROPERTY not in test:
            problems.append(f"{name}: {test['name']} passed without recording {ordering.PROPERTY}")
    for device in accelerators:
        got = summary["devices"][device].get("ordering")
        if got != expected:
            seen = [t["name"] for t in tests if t["device"] == device and t.get(ordering.PROPERTY)]
            problems.append(f"{name}: {device} ordering {got!r}, expected {expected!r} "
                            f"(checks that saw work pending: {seen or 'none'})")
        if f"{device}: ordering {expected}" not in console.splitlines():
            problems.append(f"{name}: summarize did not print '{device}: ordering {expected}'")
    if "cpu" in summary["devices"] and "ordering" in summary["devices"]["cpu"]:
        problems.append(f"{name}: cpu has ordering {summary['devices']['cpu']['ordering']!r}: it has no streams")
    if "cpu" not in summary["devices"]:
        problems.append(f"{name}: the cpu's skipped ordering checks are missing from the summary")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", required=True)
    parser.add_argument("--events", required=True)
    parser.add_argument("--loopback", required=True)
    args = parser.parse_args()
    problems, said = [], []
    with tempfile.TemporaryDirectory() as work:
        for name, (extra_env, expected) in MODES.items():
            summary, console = run_mode(args, work, name, extra_env)
            problems += check_mode(name, summary, console, expected)
            observed = sum(1 for t in summary["tests"] if t.get(ordering.PROPERTY))
            said.append(f"{name}: {observed} of {sum(1 for t in summary['tests'] if ordering.PROPERTY in t)} "
                        f"ordering checks saw work pending")
    return finish(problems, "; ".join(said))


if __name__ == "__main__":
    sys.exit(main())
