#!/usr/bin/env python3
"""Reads ctest's JUnit file (and GoogleTest's per-test XML for skip reasons)
and writes the run as JSON, printing a per-device summary a lab can read.

  summarize.py --junit FILE [--gtest-dir DIR] [--context FILE] [--seconds S] [--out JSON]
  summarize.py --junit FILE --counts-only      prints "<passed> <failed> <skipped>"
Failures are grouped by root cause: a failure whose output has a line
"prerequisite failed: ... (checked by Suite.Check...)" is listed under the
check it names, root causes first.
Exit status: 0 all passed, 1 a test failed, 2 a damaged or empty input
(one line naming it, never a traceback)."""
import argparse
import collections
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

PREREQUISITE = re.compile(r"^\s*prerequisite failed: .*\(checked by ([^)\s]+)\)", re.MULTILINE)


class InputError(Exception):
    """A damaged, empty or missing input: reported as one line, exit 2."""


def device_from_name(name):
    """Only for a test that left no GoogleTest XML (it crashed or timed out):
    'loopback:Forward.X/loopback_1_bfloat16' -> 'loopback:1'; unparameterised
    -> 'host'; the project's own tests -> 'selftest'."""
    if name.startswith("selftest."):
        return "selftest"
    if "/" not in name:
        return "host"
    label = name.rsplit("/", 1)[1]
    match = re.match(r"([a-z0-9]+?)_(\d+)(_|$)", label)
    return f"{match.group(1)}:{match.group(2)}" if match else label


def gtest_records(directory):
    """What each test's GoogleTest XML says, keyed by its ctest name (the
    file's path under DIR, less ".xml"): the metadata properties the fixtures
    record (check, device, device_type, dtype) and the skip message. A known
    failure is a skip whose test carries the known_failure property."""
    records = {}
    if not directory:
        return records
    for path in glob.glob(os.path.join(directory, "**", "*.xml"), recursive=True):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError:
            continue
        ctest_name = os.path.relpath(path, directory)[: -len(".xml")]
        for case in root.iter("testcase"):
            properties = {p.get("name"): p.get("value") for p in case.iter("property")}
            record = {"properties": properties, "skip": None}
            skipped = case.find("skipped")
            if skipped is not None:
                lines = skipped.get("message", "").strip().splitlines()
                if lines and re.match(r"^\S+:\d+$", lines[0]):
                    lines = lines[1:]  # GoogleTest's "file:line" of the GTEST_SKIP
                known = "known_failure" in properties
                record["skip"] = ("known_failure" if known else "skipped", " ".join(lines))
            records[ctest_name] = record
    return records


def junit_cases(path):
    """The <testcase> elements of a ctest JUnit file; InputError if it is not one."""
    if not os.path.isfile(path):
        raise InputError(f"no JUnit file at {path}: ctest did not run")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as error:
        raise InputError(f"{path} is not well-formed XML ({error}): truncated or not a JUnit file")
    if root.tag not in ("testsuite", "testsuites"):
        raise InputError(f"{path} is not a JUnit file (root element <{root.tag}>)")
    cases = list(root.iter("testcase"))
    if not cases:
        raise InputError(f"{path} has no testcases: nothing ran")
    return cases


def prerequisite_of(case):
    """The check named by a "prerequisite failed: ... (checked by X)" line, or None."""
    texts = [node.get("message") or "" for node in case.iter() if node.tag in ("failure", "error")]
    texts += [node.text or "" for node in case.iter() if node.tag in ("failure", "error", "system-out")]
    for text in texts:
        match = PREREQUISITE.search(text)
        if match:
            return match.group(1)
    return None


def read_junit(path, records):
    tests = []
    for case in junit_cases(path):
        name = case.get("name")
        record = records.get(name, {"properties": {}, "skip": None})
        failure = case.find("failure") if case.find("failure") is not None else case.find("error")
        if failure is not None or case.get("status") == "fail":
            status = "failed"
            message = (failure.get("message") or "").strip() if failure is not None else ""
        elif case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            status, message = record["skip"] or ("skipped", "")
        else:
            status, message = "passed", ""
        properties = record["properties"]
        test = {"name": name, "device": properties.get("device") or device_from_name(name),
                "status": status, "seconds": float(case.get("time") or 0), "message": message}
        for key in ("check", "device_type", "dtype"):
            if key in properties:
                test[key] = properties[key]
        if status == "failed":
            test["prerequisite"] = prerequisite_of(case)
        tests.append(test)
    return tests


def bare(name):
    """'loopback:Placement.X/loopback_0' -> 'Placement.X/loopback_0'."""
    head = name.split("/", 1)[0]
    return name.split(":", 1)[1] if ":" in head else name


def failures_by_root_cause(tests):
    """Root causes first, each with the failures that named it as their
    prerequisite; a named prerequisite that did not fail here still heads its group."""
    failed = [t for t in tests if t["status"] == "failed"]
    groups = collections.OrderedDict()
    for test in failed:
        if not test.get("prerequisite"):
            groups[bare(test["name"])] = {"root_cause": test["name"], "message": test["message"],
                                          "dependents": []}
    for test in failed:
        owner = test.get("prerequisite")
        if not owner:
            continue
        key = next((k for k in groups if k == owner or k.startswith(owner + "/")), owner)
        groups.setdefault(key, {"root_cause": owner, "message": "prerequisite named by dependents "
                                "(not a failed test of this run)", "dependents": []})
        groups[key]["dependents"].append(test["name"])
    return list(groups.values())


def read_context(path):
    if not path:
        return {}
    try:
        with open(path) as f:
            text = f.read()
    except OSError as error:
        raise InputError(f"cannot read context file {path}: {error.strerror}")
    try:
        context = json.loads(text)
    except ValueError as error:
        raise InputError(f"context file {path} is not JSON ({error})")
    if not isinstance(context, dict):
        raise InputError(f"context file {path} is not a JSON object")
    return context


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--junit", required=True)
    parser.add_argument("--gtest-dir")
    parser.add_argument("--context")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--out")
    parser.add_argument("--counts-only", action="store_true")
    args = parser.parse_args()
    try:
        return summarize(args)
    except InputError as error:
        print(f"summarize: {error}", file=sys.stderr)
        return 2


def summarize(args):
    tests = read_junit(args.junit, gtest_records(args.gtest_dir))
    context = read_context(args.context)
    totals = collections.Counter(t["status"] for t in tests)
    if args.counts_only:
        print(totals["passed"], totals["failed"], totals["skipped"] + totals["known_failure"])
        return 0

    per_device = collections.defaultdict(collections.Counter)
    for test in tests:
        per_device[test["device"]][test["status"]] += 1
    root_causes = failures_by_root_cause(tests)
    summary = {
        "context": context,
        "wall_seconds": args.seconds,
        "totals": dict(totals),
        "devices": {device: dict(counts) for device, counts in sorted(per_device.items())},
        "failures_by_root_cause": root_causes,
        "tests": tests,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(summary, f, indent=2)

    columns = ("passed", "failed", "skipped", "known_failure")
    print(f"\n{'device':<16}" + "".join(f"{c:>15}" for c in columns))
    for device, counts in sorted(per_device.items()):
        print(f"{device:<16}" + "".join(f"{counts[c]:>15}" for c in columns))
    for group in root_causes:
        print(f"FAILED  {group['root_cause']}")
        for dependent in group["dependents"]:
            print(f"          prerequisite of: {dependent}")
    for test in tests:
        if test["status"] == "known_failure":
            print(f"KNOWN   {test['name']}: {test['message']}")
    if args.seconds is not None:
        print(f"\nctest wall time: {args.seconds:.1f} s")
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
