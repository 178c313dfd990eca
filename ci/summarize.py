#!/usr/bin/env python3
"""Reads ctest's JUnit file (and GoogleTest's per-test XML for skip reasons)
and writes the run as JSON, printing a per-device summary a lab can read.

  summarize.py --junit FILE [--gtest-dir DIR] [--context FILE] [--seconds S] [--out JSON]
  summarize.py --junit FILE --counts-only      prints "<passed> <failed> <skipped>"
Exit status 1 when any test failed."""
import argparse
import collections
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

DTYPES = ("float32", "float64", "float16", "bfloat16")


def device_of(name):
    """'loopback:Forward.X/loopback_1_bfloat16' -> 'loopback:1'; unparameterised -> 'host';
    the project's own tests -> 'selftest'."""
    if name.startswith("selftest."):
        return "selftest"
    if "/" not in name:
        return "host"
    label = name.rsplit("/", 1)[1]
    for dtype in DTYPES:
        if label.endswith("_" + dtype):
            label = label[: -len(dtype) - 1]
    match = re.fullmatch(r"([a-z0-9]+?)_(\d+)", label)
    return f"{match.group(1)}:{match.group(2)}" if match else label


def gtest_skip_reasons(directory):
    """Skip messages by test name, from GoogleTest's per-test XML. A known
    failure is a skip whose test carries the known_failure property."""
    reasons = {}
    for path in glob.glob(os.path.join(directory or "", "**", "*.xml"), recursive=True):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError:
            continue
        for case in root.iter("testcase"):
            skipped = case.find("skipped")
            if skipped is None:
                continue
            name = f"{case.get('classname')}.{case.get('name')}"
            lines = skipped.get("message", "").strip().splitlines()
            if lines and re.match(r"^\S+:\d+$", lines[0]):
                lines = lines[1:]  # GoogleTest's "file:line" of the GTEST_SKIP
            known = any(p.get("name") == "known_failure" for p in case.iter("property"))
            reasons[name] = ("known_failure" if known else "skipped", " ".join(lines))
    return reasons


def read_junit(path, reasons):
    tests = []
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name")
        if case.find("failure") is not None or case.find("error") is not None or case.get("status") == "fail":
            status, message = "failed", ""
            node = case.find("failure") if case.find("failure") is not None else case.find("error")
            if node is not None:
                message = (node.get("message") or "").strip()
        elif case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            bare = name.split(":", 1)[1] if ":" in name.split("/")[0] else name
            status, message = reasons.get(bare, ("skipped", ""))
        else:
            status, message = "passed", ""
        tests.append({"name": name, "device": device_of(name), "status": status,
                      "seconds": float(case.get("time") or 0), "message": message})
    return tests


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--junit", required=True)
    parser.add_argument("--gtest-dir")
    parser.add_argument("--context")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--out")
    parser.add_argument("--counts-only", action="store_true")
    args = parser.parse_args()
    if not os.path.exists(args.junit):
        print(f"summarize: no JUnit file at {args.junit}: ctest did not run", file=sys.stderr)
        return 1
    tests = read_junit(args.junit, gtest_skip_reasons(args.gtest_dir))
    totals = collections.Counter(t["status"] for t in tests)
    if args.counts_only:
        print(totals["passed"], totals["failed"], totals["skipped"] + totals["known_failure"])
        return 0

    per_device = collections.defaultdict(collections.Counter)
    for test in tests:
        per_device[test["device"]][test["status"]] += 1
    summary = {
        "context": open(args.context).read().splitlines() if args.context else [],
        "wall_seconds": args.seconds,
        "totals": dict(totals),
        "devices": {device: dict(counts) for device, counts in sorted(per_device.items())},
        "tests": tests,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(summary, f, indent=2)

    columns = ("passed", "failed", "skipped", "known_failure")
    print(f"\n{'device':<16}" + "".join(f"{c:>15}" for c in columns))
    for device, counts in sorted(per_device.items()):
        print(f"{device:<16}" + "".join(f"{counts[c]:>15}" for c in columns))
    for test in tests:
        if test["status"] == "failed":
            print(f"FAILED  {test['name']}")
    for test in tests:
        if test["status"] == "known_failure":
            print(f"KNOWN   {test['name']}: {test['message']}")
    if args.seconds is not None:
        print(f"\nctest wall time: {args.seconds:.1f} s")
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
