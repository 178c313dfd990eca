#!/usr/bin/env python3
"""The fault matrix decides what caught a fault from each test's recorded
metadata, not from its name: a test named for loopback_0 whose XML says it ran
on loopback:1 counts for index 1, a check that no failed test carries is a
hole, and a test that left no metadata satisfies nothing. A fault's
message_contains holds only when a failed test of its checks printed the
text; its check globs become the ctest selection they name.

  PYTHONPATH=<root>/ci fault_matrix_selects_by_metadata.py"""
import sys

from case_report import report
from fault_matrix import Check, check_selection, each, missing_messages, verdict_problems
from tdc import faults


def main():
    verdicts = {"loopback:Copies.X/loopback_0": "failed",   # its metadata says index 1
                "loopback:Copies.X/loopback_1": "passed",
                "loopback:Forward.Y/loopback_0_float32": "failed",
                "loopback:Crashed.Z/loopback_0": "failed"}  # left no XML
    metadata = {"loopback:Copies.X/loopback_0": {"check": "Copies.X", "device": "loopback:1"},
                "loopback:Copies.X/loopback_1": {"check": "Copies.X", "device": "loopback:0"},
                "loopback:Forward.Y/loopback_0_float32": {"check": "Forward.Y", "device": "loopback:0",
                                                          "dtype": "float32"}}
    cases = [
        ("metadata, not the name, gives the index", [Check("Copies.X", 1)], []),
        ("the name's index does not count", [Check("Copies.X", 0)], ["not failed: Copies.X on loopback:0"]),
        ("each index is required", each("Copies.*"), ["not failed: Copies.* on loopback:0"]),
        ("dtype from metadata", [Check("Forward.*", 0, "float32")], []),
        ("another dtype is a hole", [Check("Forward.*", 0, "float64")],
         ["not failed: Forward.* on loopback:0 in float64 (1 entries left no GoogleTest XML)"]),
        ("no metadata satisfies nothing", [Check("Crashed.Z")],
         ["not failed: Crashed.Z (1 entries left no GoogleTest XML)"]),
    ]
    results = []
    for name, checks, expected in cases:
        got = verdict_problems(checks, "failed", verdicts, metadata, "loopback")
        results.append((name, got == expected, f"got {got}, expected {expected}"))

    failed = sorted(n for n, v in verdicts.items() if v == "failed")
    outputs = {"loopback:Copies.X/loopback_0": "h2d int32 33x65: element 0 differs",
               "loopback:Forward.Y/loopback_0_float32": "the output is on cpu"}
    copies = [Check("Copies.X", 1)]
    for name, texts, expected in [
            ("a failure of its checks printed the text", ["h2d int32"], []),
            ("a text no failure printed is a hole", ["h2d uint8"], ["no failure of its checks prints 'h2d uint8'"]),
            ("a text printed by another check does not count", ["on cpu"],
             ["no failure of its checks prints 'on cpu'"])]:
        got = missing_messages(texts, failed, copies, metadata, outputs, "loopback")
        results.append((name, got == expected, f"got {got}, expected {expected}"))

    for globs, expected in [(None, None), ([], None),
                            (["Copies.*"], "Copies.*"),
                            (["Placement*", "DeviceDiscovery.EveryBackendEnumerates"],
                             "Placement*:DeviceDiscovery.EveryBackendEnumerates")]:
        got = check_selection(globs)
        results.append((f"check globs {globs} select {expected}", got == expected, f"got {got}"))

    registry = faults.load()
    hang = registry.by_name("hang-copy")
    results.append(("a registry row gives its checks, environment and selection",
                    hang.checks("must_fail", "loopback") == [Check("Placement.ToLeavesSourceWhereItWas", 0)]
                    and hang.env == {"TDC_TEST_TIMEOUT": "10"} and hang.runs == ["Placement*", "DeviceDiscovery*"],
                    f"{hang.checks('must_fail', 'loopback')}, {hang.env}, {hang.runs}"))
    race = registry.by_name("thread-race")
    results.append(("a check not on a build is left out there",
                    len(race.checks("must_pass", "loopback")) == 3
                    and len(race.checks("must_pass", "privateuseone")) == 1,
                    f"{race.checks('must_pass', 'loopback')} / {race.checks('must_pass', 'privateuseone')}"))

    return report(results)


if __name__ == "__main__":
    sys.exit(main())
