#!/usr/bin/env python3
"""CTest resource groups keep tests apart, per device. Writes the resource
spec from discovery (two loopback devices, slots equal to the share each
test claims, so a test holds all of its device), runs the loopback twins of
a few suites with ctest -j4 and TDC_OCCUPANCY_LOG, and checks the logged
intervals: never two tests on one device at once, and both devices used.
The checker itself is proved first on a log with an overlap it must report.

  resources_keep_tests_apart.py --build-dir BUILD --share PERCENT
Exit status: 0 kept apart; 1 not (or nothing ran to show it)."""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

from selftest_report import finish

SUBSET = r"^loopback:(Placement|Copies|MismatchGuard|ForwardTraining)\."


def overlaps(lines):
    """The pairs of intervals that share a device and a moment."""
    by_device = collections.defaultdict(list)
    for line in lines:
        device, start, end, test = line.split(" ", 3)
        by_device[device].append((int(start), int(end), test))
    found = []
    for device, intervals in by_device.items():
        intervals.sort()
        for (s1, e1, t1), (s2, e2, t2) in zip(intervals, intervals[1:]):
            if s2 < e1:
                found.append(f"{device}: {t1} and {t2}")
    return found, by_device


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--share", type=int, required=True)
    args = parser.parse_args()
    # The checker's teeth, on a made-up log.
    caught, _ = overlaps(["loopback:0 100 300 A", "loopback:0 200 400 B", "loopback:1 250 260 C"])
    if caught != ["loopback:0: A and B"]:
        print(f"FAILED: the overlap checker reported {caught} for a log with one overlap")
        return 1
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as work:
        spec = os.path.join(work, "resources.json")
        made = subprocess.run([sys.executable, os.path.join(root, "ci", "resource_spec.py"),
                               "--build-dir", args.build_dir, f"--slots={args.share}"],
                              capture_output=True, text=True, timeout=600)
        if made.returncode != 0:
            print(f"FAILED: resource_spec.py exited {made.returncode}: {made.stderr}")
            return 1
        with open(spec, "w") as f:
            f.write(made.stdout)
        log = os.path.join(work, "occupancy.log")
        env = dict(os.environ, TDC_OCCUPANCY_LOG=log)
        run = subprocess.run(["ctest", "--test-dir", args.build_dir, "-j4", "-R", SUBSET, "-LE", "long",
                              "--resource-spec-file", spec], env=env, capture_output=True, text=True,
                             timeout=1200)
        if run.returncode != 0:
            print(f"FAILED: ctest exited {run.returncode}:\n{run.stdout[-3000:]}{run.stderr[-2000:]}")
            return 1
        lines = open(log).read().splitlines() if os.path.exists(log) else []
    found, by_device = overlaps(lines)
    problems = []
    if found:
        problems.append(f"{len(found)} overlaps on one device, e.g. {found[:3]}")
    if len(by_device) < 2 or min(len(v) for v in by_device.values()) < 5:
        problems.append(f"too little ran to show anything: {dict((d, len(v)) for d, v in by_device.items())}")
    counts = ", ".join(f"{d}: {len(v)}" for d, v in sorted(by_device.items()))
    return finish(problems, f"ctest -j4 never ran two tests on one device at once ({counts} tests)")


if __name__ == "__main__":
    sys.exit(main())
