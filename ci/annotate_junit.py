#!/usr/bin/env python3
"""Puts context.json into ctest's JUnit file: <testsuite name> and hostname
(ctest leaves "(empty)" and ""), and one <property> per context value, so a
JUnit viewer shows where and with what the run was made.

  annotate_junit.py --junit FILE --context context.json [--name NAME]
Exit status 0, or 2 with one line when either file is damaged."""
import argparse
import json
import os
import sys
import xml.etree.ElementTree as ET


def flatten(value, prefix=""):
    """{"cpu": {"model": "X"}} -> [("cpu.model", "X")]; lists are indexed."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = ((str(i), v) for i, v in enumerate(value))
    else:
        return [(prefix, "" if value is None else str(value))]
    pairs = []
    for key, inner in items:
        pairs += flatten(inner, f"{prefix}.{key}" if prefix else str(key))
    return pairs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--junit", required=True)
    parser.add_argument("--context", required=True)
    parser.add_argument("--name", default="tdc")
    args = parser.parse_args()
    try:
        with open(args.context) as f:
            context = json.load(f)
        tree = ET.parse(args.junit)
    except (OSError, ValueError, ET.ParseError) as error:
        print(f"annotate_junit: {error}", file=sys.stderr)
        return 2
    root = tree.getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    if not suites:
        print(f"annotate_junit: {args.junit} has no <testsuite>", file=sys.stderr)
        return 2
    for suite in suites:
        suite.set("name", args.name)
        suite.set("hostname", str(context.get("host", "")))
        for old in suite.findall("properties"):
            suite.remove(old)
        properties = ET.Element("properties")
        for key, value in flatten(context):
            ET.SubElement(properties, "property", name=key, value=value)
        suite.insert(0, properties)
    tmp = args.junit + ".tmp"
    tree.write(tmp, encoding="UTF-8", xml_declaration=True)
    os.replace(tmp, args.junit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
