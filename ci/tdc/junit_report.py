"""The one JUnit writer (tdc.junit is the one reader): every <testcase>,
<failure>, <skipped> and <error> a TDC tool writes is made here, and a
summary status becomes JUnit's outcome only here (tdc.results.junit_status:
a known failure is a <skipped>).

- The run's JUnit file (write, document): one <testcase> per check per
  device, written from the summary. ctest's own JUnit (ctest-junit.xml) has
  one testcase per ctest entry, and an entry is a batch of checks
  (tdc_batch); CI systems and JUnit readers want each check's verdict and
  reason, so this file is the one a run hands them. A testcase's name is the
  result's full name ("loopback:Placement.X/loopback_0"), its classname the
  check, and a failure or skip carries its reason as the message.
- ctest's JUnit where ctest wrote none (ctest_document) and the failure
  message written into ctest's own (set_failure_message); a tree's file
  text (file_text, write_tree: tdc run writes each of its JUnit files once,
  annotated in memory by tdc.annotate).
- A package's JUnit rewritten as if a check had failed (set_outcome,
  set_suite_counts: the fleet's forgeries).
- The fleet's merged JUnit (Stream), written a <testsuite> at a time, with
  characters XML cannot hold replaced (a package's text is untrusted)."""
import functools
import os
import re
import shutil
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape, quoteattr

from tdc import junit, results, safeio

PROPERTIES = ("check", "device", "device_type", "dtype", "entry", "isolation")
# JUnit's outcome elements; a testcase with none passed.
OUTCOME_TAGS = ("failure", "error", "skipped")


def _outcome(status, message, detail=None, kind=""):
    """(tag, attributes, text) of the element a summary status becomes, or
    None for a pass. detail: a failure's text (default its message)."""
    as_junit = results.junit_status(status)
    if as_junit == results.FAILED:
        return "failure", {"message": message or "failed", "type": kind}, message if detail is None else detail
    if as_junit == results.SKIPPED:
        return "skipped", {"message": message}, None
    return None


def add_outcome(case, status, message, detail=None, kind=""):
    """Adds status's element (if any) to the testcase element case."""
    outcome = _outcome(status, message, detail, kind)
    if outcome:
        tag, attributes, text = outcome
        ET.SubElement(case, tag, attributes).text = text


def set_outcome(case, status, message, ctest=False):
    """The testcase element case becomes status with message, its old outcome
    gone (ctest's JUnit also says so in its status attribute)."""
    for old in [c for c in case if c.tag in OUTCOME_TAGS]:
        case.remove(old)
    if ctest:
        case.set("status", {results.FAILED: "fail", results.SKIPPED: "notrun"}.get(
            results.junit_status(status), "run"))
    if "result" in case.attrib:
        case.set("result", "completed")
    add_outcome(case, status, message)


def suite_counts(statuses):
    """A <testsuite>'s tests, failures and skipped of the summary statuses."""
    as_junit = [results.junit_status(s) for s in statuses]
    return {"tests": len(as_junit), "failures": as_junit.count(results.FAILED),
            "skipped": as_junit.count(results.SKIPPED)}


def set_suite_counts(root, tests):
    """Every <testsuite> under root (or root) counts the summary's tests."""
    counted = suite_counts(t["status"] for t in tests)
    for suite in [root] if root.tag == "testsuite" else root.iter("testsuite"):
        for key, value in counted.items():
            suite.set(key, str(value))


def set_failure_message(case, message):
    """ctest's testcase carries message on its <failure> (or <error>); a
    failed testcase without either gets a <failure>. False for a testcase
    that did not fail."""
    failure = case.find("failure")
    if failure is None:
        failure = case.find("error")
    if failure is None and junit.status_of(case) == junit.FAILED:
        failure = ET.SubElement(case, "failure")
    if failure is not None:
        failure.set("message", message)
    return failure is not None


def testcase(parent, test):
    case = ET.SubElement(parent, "testcase", name=test["name"], classname=test.get("check") or test["name"],
                         time=f"{test.get('seconds') or 0:.3f}")
    present = [key for key in PROPERTIES if test.get(key)]
    if present:
        properties = ET.SubElement(case, "properties")
        for key in present:
            ET.SubElement(properties, "property", name=key, value=str(test[key]))
    add_outcome(case, test["status"], test.get("message") or "")
    return case


def document(summary, name):
    """The JUnit tree of a summary: one <testsuite> named `name`."""
    tests = summary["tests"]
    totals = summary["totals"]
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", name=name, tests=str(len(tests)),
                          failures=str(sum(n for s, n in totals.items() if results.junit_status(s) == results.FAILED)),
                          skipped=str(sum(n for s, n in totals.items() if results.junit_status(s) == results.SKIPPED)),
                          errors="0", time=f"{summary.get('wall_seconds') or 0:.3f}")
    for test in tests:
        testcase(suite, test)
    return root


def file_text(root):
    """A JUnit tree's file text, laid out as the tree is (no indentation added)."""
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_tree(path, root):
    """Writes a JUnit tree (atomically: tdc.safeio)."""
    safeio.write_text(path, file_text(root), "JUnit file")


def write(path, summary, name):
    """A summary's JUnit file (document), indented."""
    root = document(summary, name)
    ET.indent(root)
    write_tree(path, root)


# ctest's words (its log, tdc.ctest.outcomes) -> its JUnit's status attribute.
CTEST_STATUS = {"Passed": "run", "Skipped": "notrun", "Not Run": "notrun"}


def ctest_document(outcomes, note):
    """ctest's JUnit as its log tells it ({entry: (outcome, seconds)}), for a
    ctest killed before writing its own; note says so in a property."""
    root = ET.Element("testsuite", name="(empty)", tests=str(len(outcomes)))
    properties = ET.SubElement(root, "properties")
    ET.SubElement(properties, "property", name="tdc.junit_source", value=note)
    for name, (outcome, seconds) in outcomes.items():
        case = ET.SubElement(root, "testcase", name=name, classname=name, time=f"{seconds:.2f}",
                             status=CTEST_STATUS.get(outcome, "fail"))
        if case.get("status") == "fail":  # no message: summarize says "timed out after ..." from the log
            ET.SubElement(case, "failure")
        elif case.get("status") == "notrun":
            ET.SubElement(case, "skipped", message=f"ctest: {outcome}")
    return root


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@functools.lru_cache(maxsize=1 << 16)  # check names, classnames and messages repeat across a fleet's rows
def _quoted(text):
    return quoteattr(_NOT_XML.sub("?", text))


def _attr(text):
    return _quoted(str(text))


def _text(text):
    return escape(_NOT_XML.sub("?", str(text)))


class Stream:
    """A JUnit file written a <testsuite> at a time (a 1,000-host fleet's is
    never held whole); the totals on <testsuites> are filled in at close."""

    @safeio.naming(lambda self: self.body_path)
    def __init__(self, path, name):
        self.path, self.name = path, name
        self.body_path = path + ".body"
        self.body = open(self.body_path, "w", encoding="utf-8")
        self.totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}

    @safeio.naming(lambda self: self.body_path)
    def suite(self, name, hostname, properties, cases):
        """One <testsuite>. properties: [(name, value)]; cases: dicts with
        classname, name, seconds, and either status (a summary status), message,
        detail and kind (a failure's type), or error: (type, message)."""
        written, counts = [], {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        for case in cases:
            seconds = case.get("seconds") or 0
            inner = ""
            if case.get("error"):
                kind, message = case["error"]
                inner = f"<error type={_attr(kind)} message={_attr(message)}/>"
                counts["errors"] += 1
            elif results.junit_status(case["status"]) != results.PASSED:
                outcome = _outcome(case["status"], case.get("message") or "", case.get("detail"), case.get("kind", ""))
                if outcome:
                    tag, attributes, text = outcome
                    inner = (f"<{tag}" + "".join(f" {key}={_attr(value)}" for key, value in attributes.items())
                             + (f">{_text(text)}</{tag}>" if text is not None else "/>"))
                    counts["failures" if tag == "failure" else "skipped"] += 1
            counts["tests"] += 1
            counts["time"] += seconds
            written.append(f'<testcase classname={_attr(case["classname"])} name={_attr(case["name"])} '
                           f'time="{seconds}">{inner}</testcase>')
        listed = "".join(f'<property name={_attr(key)} value={_attr(value)}/>' for key, value in properties)
        self.body.write(f'  <testsuite name={_attr(name)} hostname={_attr(hostname)} '
                        f'tests="{counts["tests"]}" failures="{counts["failures"]}" '
                        f'errors="{counts["errors"]}" skipped="{counts["skipped"]}" '
                        f'time="{round(counts["time"], 3)}">\n    <properties>{listed}</properties>\n    '
                        + "\n    ".join(written) + "\n  </testsuite>\n")
        for key in self.totals:
            self.totals[key] += counts[key]

    def close(self):
        self._close_body()
        self._assemble()

    @safeio.naming(lambda self: self.body_path)
    def _close_body(self):
        self.body.close()   # what is still buffered is written now

    @safeio.naming(lambda self: self.path + ".tmp")
    def _assemble(self):
        t = self.totals
        with open(self.path + ".tmp", "w", encoding="utf-8") as out:
            out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name={_attr(self.name)} '
                      f'tests="{t["tests"]}" failures="{t["failures"]}" errors="{t["errors"]}" '
                      f'skipped="{t["skipped"]}" time="{round(t["time"], 3)}">\n')
            with open(self.body_path, encoding="utf-8") as body:
                shutil.copyfileobj(body, out, 1 << 20)
            out.write("</testsuites>\n")
        os.unlink(self.body_path)
        os.replace(self.path + ".tmp", self.path)

    def abandon(self):
        try:
            self.body.close()
        except OSError:
            pass  # what it could not write is being thrown away
        for path in (self.body_path, self.path + ".tmp"):
            if os.path.lexists(path):
                os.unlink(path)
