"""Every device-guard check records its device, also where it is skipped:
on cpu (LibTorch's CPU guard keeps no current device) each guard check,
the pair checks GuardNesting, GuardUnwinding and GuardPerThread among them,
is skipped for that reason and carries the device and device_type
properties the result tools read (tdc/fixtures.h: the base rung records
them before any verdict). A pair fixture that skipped cpu before calling
the rung recorded none (issue 30, item 6).

It runs the guard suite of a build: ctest runs it as
selftest.guard_checks_record_their_device with TDC_GUARD_SUITE naming that
build's tdc_guard (suites/selftest/structure_checks.cmake); without it, it
is skipped, saying so.

  TDC_GUARD_SUITE=BUILD/bin/tdc_guard python3 -m pytest ci/tests/test_guard_properties.py"""
import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

SUITE = os.environ.get("TDC_GUARD_SUITE", "")
CHECKS = ("GuardDeviceCount", "GuardInvalidIndex", "GuardNesting", "GuardUnwinding", "GuardPerThread")
REASON = "cpu has no device guard"



def missing_metadata(xml_path):
    """(test, what is wrong) for each cpu test of the XML whose device
    properties are missing or wrong, and each expected check with no test."""
    problems, seen = [], set()
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        name = f"{case.get('classname')}.{case.get('name')}"
        seen.add(case.get("classname"))
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        if (props.get("device"), props.get("device_type")) != ("cpu", "cpu"):
            problems.append((name, f"device {props.get('device')!r}, device_type {props.get('device_type')!r}"))
        skipped = case.find("skipped")
        if skipped is None or REASON not in (skipped.get("message", "") + (skipped.text or "")):
            problems.append((name, f"not skipped for the cpu's reason ({REASON!r})"))
    problems += [(check, "no cpu test ran") for check in CHECKS if check not in seen]
    return problems


@pytest.mark.skipif(not SUITE, reason="TDC_GUARD_SUITE names no guard suite to run")
def test_every_guard_check_on_cpu_records_its_device(tmp_path):
    xml_path = tmp_path / "guard.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TDC_")}
    env.update(TDC_DEVICES="cpu", TDC_BACKEND_LIBS="")
    run = subprocess.run([SUITE, "--gtest_filter=*/cpu", f"--gtest_output=xml:{xml_path}"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and xml_path.exists(), f"exit {run.returncode}:\n{run.stdout[-2000:]}{run.stderr}"
    assert missing_metadata(xml_path) == []


def test_the_reader_sees_a_missing_device_and_a_missing_check(write):
    """The negative: the XML the pair fixture wrote before the fix."""
    path = write("guard.xml", '<testsuites><testsuite name="GuardNesting">'
                 '<testcase name="DeviceGuardAndOptionalDeviceGuardRestoreInOrder/cpu" classname="GuardNesting">'
                 '<properties><property name="check" value="GuardNesting.DeviceGuardAndOptionalDeviceGuardRestoreInOrder"/>'
                 '</properties><skipped message="cpu has no device guard: ..."/></testcase>'
                 '</testsuite></testsuites>')
    problems = missing_metadata(path)
    assert ("GuardNesting.DeviceGuardAndOptionalDeviceGuardRestoreInOrder/cpu",
            "device None, device_type None") in problems
    assert ("GuardPerThread", "no cpu test ran") in problems
