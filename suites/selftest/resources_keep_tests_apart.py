#!/usr/bin/env python3
"""CTest resource groups keep tests apart, per device, for every device a
test touches: a pair check claims its sibling index too, a check over every
index claims them all. Runs the loopback twins of suites with pair and
every-index checks one entry per check (TDC_ISOLATE=check), ctest -j4, each
claim holding all of its device (the build's spec with slots equal to the
share), every copy slowed so that tests overlap in time, and
TDC_OCCUPANCY_LOG; then checks the logged intervals: never two tests on one
device at once, pair checks among them, both devices used.

Its teeth, twice: the checker is proved on a made-up log with an overlap,
and the same run is made again with each pair check's second claim removed
from the suites' cached lists (as a listing that forgot other_device()
would write). Then a pair check either overlaps another test on its
sibling, which the checker reports, or, before it touches anything, finds
that ctest did not allocate it the sibling and fails naming the missing
resource (fixtures.cpp, resource_allocation_mismatch): the run must fail one
of these two ways for a pair check. The lists are removed afterwards, so the
next ctest lists again.

  resources_keep_tests_apart.py --build-dir BUILD --share PERCENT
Exit status: 0 kept apart (and the sabotage caught); 1 not."""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

from selftest_report import finish

CHECKS = ("Placement.*:PlacementAcrossDevices.*:MismatchGuard.*:MismatchGuardAcrossDevices.*:"
          "EventBlockAcrossDevices.*:ConcurrentForward.*:GuardNesting.*")
PAIR_CHECKS = ("PlacementAcrossDevices", "MismatchGuardAcrossDevices", "EventBlockAcrossDevices", "GuardNesting")
SUITES = ("placement", "mismatch_guard", "events", "concurrency", "guard")


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


def whole_device_spec(build_dir, share, path):
    """The resource spec of the loopback's two devices, each with `share`
    slots: one claim of TDC_GPU_PERCENT holds all of it. Written here, from
    the name this build gives the loopback (CMakeCache.txt), as the build's
    own spec names them (cmake/tdc_resource_spec.cmake): reading "the newest"
    of the build's specs read whichever the test before wrote, and once in
    CI every entry was Not Run."""
    name = "loopback"
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("TDC_PRIVATEUSE1_NAME:"):
                name = line.split("=", 1)[1].strip()
    local = {f"{name}_{index}": [{"id": str(index), "slots": share}] for index in (0, 1)}
    with open(path, "w") as f:
        json.dump({"version": {"major": 1, "minor": 0}, "local": [local]}, f)
    return sorted(local)


def twin_listings(build_dir):
    """The twins' cached test lists (one per fingerprint, <target>_tests.<fingerprint>.txt)."""
    return [path for suite in SUITES
            for path in glob.glob(os.path.join(build_dir, "suites", suite, f"tdc_{suite}_with_loopback_tests.*.txt"))]


def forget_second_claims(listings):
    """Each test that claims two devices now claims only its own."""
    changed = 0
    for path in listings:
        lines = open(path).read().splitlines()
        for i, line in enumerate(lines):
            name, _, kinds = line.partition("\t")
            if "," in kinds:
                lines[i] = f"{name}\t{kinds.split(',')[0]}"
                changed += 1
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
    return changed


def run(build_dir, spec, log, env):
    if os.path.exists(log):
        os.remove(log)
    ran = subprocess.run(["ctest", "--test-dir", build_dir, "-j4", "-L", "loopback", "-LE", "long", "--output-on-failure",
                          "--resource-spec-file", spec], env=dict(env, TDC_OCCUPANCY_LOG=log),
                         capture_output=True, text=True, timeout=1200)
    lines = open(log).read().splitlines() if os.path.exists(log) else []
    return ran, lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--share", type=int, required=True)
    args = parser.parse_args()
    caught, _ = overlaps(["loopback:0 100 300 A", "loopback:0 200 400 B", "loopback:1 250 260 C"])
    if caught != ["loopback:0: A and B"]:
        print(f"FAILED: the overlap checker reported {caught} for a log with one overlap")
        return 1
    problems = []
    env = dict(os.environ, TDC_ISOLATE="check", TDC_CHECKS=CHECKS, TDC_LOOPBACK_DELAY_US="3000")
    with tempfile.TemporaryDirectory() as work:
        spec, log = os.path.join(work, "resources.json"), os.path.join(work, "occupancy.log")
        kinds = whole_device_spec(args.build_dir, args.share, spec)
        ran, lines = run(args.build_dir, spec, log, env)
        if ran.returncode != 0:
            # Why ctest did not run an entry is said once, before the summary.
            why = [line for line in ran.stdout.splitlines() if "resource" in line.lower()][:5]
            print(f"FAILED: ctest exited {ran.returncode}:\n" + "\n".join(why) +
                  f"\n{ran.stdout[-3000:]}{ran.stderr[-2000:]}")
            return 1
        found, by_device = overlaps(lines)
        pairs = sum(1 for line in lines if any(c in line for c in PAIR_CHECKS))
        if found:
            problems.append(f"{len(found)} overlaps on one device, e.g. {found[:3]}")
        if len(by_device) < 2 or min(len(v) for v in by_device.values()) < 5 or pairs < 4:
            problems.append(f"too little ran to show anything: {dict((d, len(v)) for d, v in by_device.items())}, "
                            f"{pairs} pair-check intervals")
        counts = ", ".join(f"{d}: {len(v)}" for d, v in sorted(by_device.items()))

        listings = twin_listings(args.build_dir)
        try:
            forgotten = forget_second_claims(listings)
            sabotaged_run, sabotaged = run(args.build_dir, spec, log, env)
        finally:
            for path in listings:  # the next ctest lists them again, honestly
                if os.path.exists(path):
                    os.remove(path)
        caught, _ = overlaps(sabotaged)
        caught_pairs = [c for c in caught if any(p in c for p in PAIR_CHECKS)]
        refused = [l for l in sabotaged_run.stdout.splitlines() if "which needs its own resource" in l]
        if forgotten < 4 or sabotaged_run.returncode == 0 or not (caught_pairs or refused):
            problems.append(f"with {forgotten} pair claims removed the run exited {sabotaged_run.returncode}, "
                            f"no pair check overlapped ({len(caught)} overlaps in all) and none was refused "
                            "its sibling: a missing claim went unseen")
    return finish(problems, f"ctest -j4 never ran two tests on one device at once ({counts} intervals, "
                            f"{pairs} of pair checks, devices {', '.join(kinds)}); with the pair checks' second "
                            f"claims removed the run failed ({len(caught_pairs)} overlaps of a pair check, "
                            f"{len(refused)} lines naming the resource ctest did not allocate)")


if __name__ == "__main__":
    sys.exit(main())
