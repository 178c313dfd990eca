#!/usr/bin/env python3
"""The fault matrix decides what caught a fault from each test's recorded
metadata, not from its name: a test named for loopback_0 whose XML says it ran
on loopback:1 counts for index 1, a check that no failed test carries is a
hole, and a test that left no metadata satisfies nothing."""
import sys

from fault_matrix import Check, each, verdict_problems  # this script's own folder


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
    problems = 0
    for name, checks, expected in cases:
        got = verdict_problems(checks, "failed", verdicts, metadata, "loopback")
        ok = got == expected
        problems += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": got {got}, expected {expected}"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
