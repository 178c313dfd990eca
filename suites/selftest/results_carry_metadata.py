#!/usr/bin/env python3
"""The fixtures record each test's check, device, device_type and dtype as
GoogleTest properties, and tdc summarize reports those, not what it could
guess from the test's name. Proved by running one dtype check on the
loopback as tdc_batch would (its ctest entry and result name recorded as
properties), then renaming its result (as a ctest prefix or a vendor's label
would) and seeing the device still come from the properties; and by the
control: with the metadata stripped, summarize has no dtype to report.

  results_carry_metadata.py --suite tdc_forward --loopback libtdc_loopback.so
(summarize is `python3 -m tdc summarize`: ci/ on PYTHONPATH, as ctest sets it)"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from selftest_report import finish

TEST = "Forward.SeedModelMatchesFloat64Reference"


ENTRY = "renamed:forward@instance_7"


def rename(xml_path, metadata):
    """The result renamed so that its name no longer says its device; with
    metadata=False its check/device/dtype properties are stripped too."""
    tree = ET.parse(xml_path)
    for case in tree.getroot().iter("testcase"):
        for properties in case.findall("properties"):
            for prop in list(properties):
                if prop.get("name") == "test":
                    prop.set("value", "renamed:Forward.Seed/instance_7")
                elif prop.get("name") == "entry":
                    prop.set("value", ENTRY)
                elif not metadata:
                    properties.remove(prop)
    tree.write(xml_path)


def junit_with(path, name):
    with open(path, "w") as f:
        f.write(f'<testsuite tests="1"><testcase name="{name}" time="0.1"/></testsuite>\n')


def summarize(junit, gtest_dir, out):
    run = subprocess.run([sys.executable, "-m", "tdc", "summarize", "--junit", junit, "--gtest-dir", gtest_dir, "--out", out],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"FAILED: summarize exited {run.returncode}: {run.stderr.strip()}")
    with open(out) as f:
        return json.load(f)["tests"][0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", required=True)
    parser.add_argument("--loopback", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        # A name whose suffix no longer says the device: only the
        # properties can.
        gtest_dir = os.path.join(work, "gtest")
        xml_path = os.path.join(gtest_dir, "forward.xml")
        os.makedirs(os.path.dirname(xml_path))
        env = dict(os.environ, TDC_BACKEND_LIBS=args.loopback, TDC_DEVICES="privateuseone",
                   TDC_ENTRY=ENTRY, TDC_RESULT_PREFIX="loopback:", TDC_ISOLATION="batch")
        run = subprocess.run([args.suite, f"--gtest_filter={TEST}/*_1_bfloat16",
                              f"--gtest_output=xml:{xml_path}"], env=env, capture_output=True, text=True)
        if run.returncode != 0 or not os.path.exists(xml_path):
            print(f"FAILED: the suite exited {run.returncode}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
            return 1
        rename(xml_path, metadata=True)
        junit = os.path.join(work, "junit.xml")
        junit_with(junit, ENTRY)
        test = summarize(junit, gtest_dir, os.path.join(work, "summary.json"))
        problems = []
        if test.get("check") != TEST:
            problems.append(f"check {test.get('check')!r}, expected {TEST!r}")
        if test.get("dtype") != "bfloat16":
            problems.append(f"dtype {test.get('dtype')!r}, expected 'bfloat16'")
        if not test.get("device", "").endswith(":1") or test.get("device_type") in (None, "cpu"):
            problems.append(f"device {test.get('device')!r} / {test.get('device_type')!r}, expected index 1 "
                            "of the loopback")

        # The control: the same result without its metadata.
        rename(xml_path, metadata=False)
        stripped = summarize(junit, gtest_dir, os.path.join(work, "stripped.json"))
        if "dtype" in stripped or stripped.get("device") == test.get("device"):
            problems.append(f"without properties summarize still reported {stripped}: it is not reading them")
    return finish(problems, f"{test.get('check')} on {test.get('device')} ({test.get('dtype')}) "
                            "read from the properties")


if __name__ == "__main__":
    sys.exit(main())
