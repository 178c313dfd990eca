"""The one JUnit reader (tdc.junit_report is the one writer): JUnit XML
(ctest's --output-junit) and the one rule every tool uses to say whether a
<testcase> passed, failed or was skipped. GoogleTest's own XML has
the same <testcase> shape and goes through the same rule (tdc.gtest).

The rule (status_of):
  failed   a <failure> or <error> child, or status="fail" (ctest);
  skipped  otherwise, a <skipped> child, status "notrun"/"disabled", or
           GoogleTest's result "skipped"/"suppressed";
  passed   otherwise.
"""
import math
import re
from dataclasses import dataclass, field

from tdc import safeio
from tdc.errors import InputError
from tdc.results import FAILED, PASSED, SKIPPED  # noqa: F401 - JUnit's three, named where every status is
# GoogleTest prints "file:line: Failure" before the message, and "file:line"
# before a skip's reason: they say where, not why. An exception thrown in a
# check has no line: its location is "unknown file".
_LOCATION = re.compile(r"^(\S+:\d+|unknown file)(: (Failure|Skipped))?$")
# An exception the check did not catch: GoogleTest quotes its what().
_EXCEPTION = re.compile(r'C\+\+ exception with description "(.*?)" thrown in ([^\n"]*?)\.?[ \t]*$', re.S | re.M)
# c10::Error's what() ends in its backtrace: "Exception raised from <function>
# at <file>:<line> (most recent call first):" and one "frame #N: ..." a line.
_RAISED_FROM = re.compile(r"^Exception raised from (.*?)(?: \(most recent call first\):?)?$")
_FRAME = re.compile(r"^frame #\d+: ")
# GoogleTest's own account of an assertion (EXPECT_TRUE's "Value of:",
# EXPECT_EQ's "Expected equality of these values:", EXPECT_NE's "Expected:
# (a) != (b), actual: ...", EXPECT_NEAR's "The difference between ..."), its
# continuation lines, and what follows: the check's own message.
_ASSERTION_START = re.compile(r"^(Value of: |Expected equality of these values:|Expected: |"
                              r"The difference between |Death test: )")
_ASSERTION_MORE = re.compile(r"^(\s+\S|Expected: |Actual: |Which is: |With diff:|@@ |.* evaluates to .*[,.]$)")


def status_of(case):
    """The status of one <testcase> element (the module's rule, above)."""
    if case.find("failure") is not None or case.find("error") is not None \
            or case.get("status") == "fail":
        return FAILED
    if case.find("skipped") is not None or case.get("status") in ("notrun", "disabled") \
            or case.get("result") in ("skipped", "suppressed"):
        return SKIPPED
    return PASSED


# Lines that say nothing about why: ctest's and GoogleTest's generic words.
_GENERIC = {"Failed", "Failure", "Skipped"}
# A reason is kept whole: a root cause's fix comes last ("...: m.impl(...) in
# TORCH_LIBRARY_IMPL(aten, AutogradPrivateUse1, m) (docs/backends.md, ...)"),
# and a cut at 300 characters once left vendors the symptom without the fix.
# The limit only stops a runaway output (a dumped tensor) from filling the
# summary; a cut says so, and where the whole text is.
REASON_LIMIT = 4000
CUT = " ... (cut: the whole message is in the run's gtest/ XML)"


def capped(reason):
    """reason, or its first REASON_LIMIT characters and CUT when longer."""
    return reason if len(reason) <= REASON_LIMIT else reason[:REASON_LIMIT] + CUT


def meaningful_lines(text):
    """Lines that say something: not blank, not a bare 'file:line: Failure',
    not a generic 'Failed'."""
    return [line.strip() for line in (text or "").splitlines()
            if line.strip() and not _LOCATION.match(line.strip()) and line.strip() not in _GENERIC]


def exception_description(text):
    """The what() of an exception GoogleTest caught in a check ("C++ exception
    with description ... thrown in the test body"), its c10 backtrace cut to
    the frame that raised it; None when the text holds no such exception."""
    match = _EXCEPTION.search(text or "")
    if not match:
        return None
    kept = []
    for line in match.group(1).splitlines():
        raised = _RAISED_FROM.match(line.strip())
        if raised:
            kept.append(f"(raised from {raised.group(1)})")
            break
        if _FRAME.match(line.strip()):
            break
        kept.append(line)
    return "\n".join(kept)


def split_assertion(text):
    """(GoogleTest's lines about the assertion, the check's message lines) of
    one failure text, locations and generic words left out."""
    lines = [line.rstrip() for line in (text or "").splitlines()
             if line.strip() and not _LOCATION.match(line.strip()) and line.strip() not in _GENERIC]
    if not lines or not _ASSERTION_START.match(lines[0]):
        return [], [line.strip() for line in lines]
    end = 1
    while end < len(lines) and _ASSERTION_MORE.match(lines[end]):
        end += 1
    return [line.strip() for line in lines[:end]], [line.strip() for line in lines[end:]]


def says_only_where_or_what(message):
    """True for a failure message that is no reason: empty, a bare location
    ("unknown file", "x.cpp:12"), or GoogleTest's expression with no message
    of the check's ("Value of: ...", "Expected equality of these values: ...")."""
    text = (message or "").strip()
    return not text or bool(_LOCATION.match(text)) or bool(_ASSERTION_START.match(text))


def first_reason(text):
    """Why, in one line of up to REASON_LIMIT characters. A thrown exception
    is its description (never GoogleTest's "unknown file"); an assertion
    with a message is the message, GoogleTest's expression after it in
    brackets where both fit; one without is GoogleTest's lines run together. A first line
    that ends in ':' runs on with the lines after it."""
    description = exception_description(text)
    if description is not None:
        text = description
    assertion, message = split_assertion(text)
    if message:
        reason = " ".join(message) if message[0].endswith(":") else message[0]
        expression = " [" + " ".join(assertion) + "]" if assertion else ""
        if len(reason) + len(expression) <= REASON_LIMIT:  # never half an expression
            reason += expression
    else:
        reason = " ".join(assertion)
    return capped(reason)


def reason_of(case):
    """Why a testcase failed or skipped, in one line: the <failure>/<error>/
    <skipped> message, else its text, else ''. ctest's generic "Failed" or
    an empty message says nothing, so the element's text is tried next."""
    for tag in ("failure", "error", "skipped"):
        for node in case.findall(tag):
            for text in (node.get("message"), node.text):
                reason = first_reason(text)
                if reason:
                    return reason
    return ""


def text_of(case):
    """Every <failure>, <error> and <skipped> message and text of a testcase, whole."""
    parts = []
    for node in case:
        if node.tag in ("failure", "error", "skipped"):
            parts += [t for t in (node.get("message"), node.text) if t]
    return "\n".join(parts)


@dataclass
class Case:
    name: str
    status: str
    seconds: float
    reason: str                       # one line; '' when the XML says nothing
    output: str = ""                  # <system-out>: what the test printed (ctest)
    element: object = field(default=None, repr=False)


def seconds_of(case, where):
    text = case.get("time")
    if text is None or text == "":
        return 0.0
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: testcase {case.get('name')!r} has time={text!r}, not a number")
    if not math.isfinite(value) or value < 0:
        raise InputError(f"{where}: testcase {case.get('name')!r} has time={text!r}, "
                         "not a finite duration")
    return value


def cases_of(root, where):
    """Every <testcase> under root as a Case; refuses a testcase without a
    name and one name twice (the first copy could fail, the second pass)."""
    cases, seen = [], set()
    for element in root.iter("testcase"):
        name = element.get("name")
        if not name:
            raise InputError(f"{where}: a testcase has no name")
        if name in seen:
            raise InputError(f"{where}: testcase {name!r} appears twice: refused "
                             "(which of its results is the run's?)")
        seen.add(name)
        cases.append(Case(name=name, status=status_of(element), seconds=seconds_of(element, where),
                          reason=reason_of(element), output=element.findtext("system-out") or "",
                          element=element))
    return cases


def read(path, what="JUnit file", allow_empty=False):
    """The testcases of a JUnit file. InputError (one line) for a file that is
    missing, too large, not UTF-8, not well-formed, not JUnit, declares
    entities, or (unless allow_empty) has no testcase: nothing ran."""
    return cases_of_root(safeio.parse_xml(path, what), path, allow_empty)


def cases_of_root(root, path, allow_empty=False):
    """read() of an already parsed JUnit file."""
    where = f"{path}"
    if root.tag not in ("testsuite", "testsuites"):
        raise InputError(f"{where} is not a JUnit file (root element <{root.tag}>)")
    cases = cases_of(root, where)
    if not cases and not allow_empty:
        raise InputError(f"{where} has no testcases: nothing ran")
    return cases


def statuses(cases):
    """{name: status}."""
    return {case.name: case.status for case in cases}
