"""The run's JUnit file, one <testcase> per check per device, written from
the summary. ctest's own JUnit (ctest-junit.xml) has one testcase per ctest
entry, and an entry is a batch of checks (tdc_batch); CI systems and JUnit
readers want each check's verdict and reason, so this file is the one a run
hands them. A testcase's name is the result's full name
("loopback:Placement.X/loopback_0"), its classname the check, and a failure
or skip carries its reason as the message."""
import xml.etree.ElementTree as ET

from tdc import safeio

PROPERTIES = ("check", "device", "device_type", "dtype", "entry", "isolation")


def testcase(parent, test):
    case = ET.SubElement(parent, "testcase", name=test["name"], classname=test.get("check") or test["name"],
                         time=f"{test.get('seconds') or 0:.3f}")
    present = [key for key in PROPERTIES if test.get(key)]
    if present:
        properties = ET.SubElement(case, "properties")
        for key in present:
            ET.SubElement(properties, "property", name=key, value=str(test[key]))
    message = test.get("message") or ""
    if test["status"] == "failed":
        failure = ET.SubElement(case, "failure", message=message or "failed", type="")
        failure.text = message
    elif test["status"] in ("skipped", "known_failure"):
        ET.SubElement(case, "skipped", message=message)
    return case


def document(summary, name):
    """The JUnit tree of a summary: one <testsuite> named `name`."""
    tests = summary["tests"]
    totals = summary["totals"]
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", name=name, tests=str(len(tests)),
                          failures=str(totals.get("failed", 0)),
                          skipped=str(totals.get("skipped", 0) + totals.get("known_failure", 0)),
                          errors="0", time=f"{summary.get('wall_seconds') or 0:.3f}")
    for test in tests:
        testcase(suite, test)
    return root


def write(path, summary, name):
    root = document(summary, name)
    ET.indent(root)
    safeio.write_text(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n", "JUnit file")
