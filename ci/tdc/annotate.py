"""annotate: puts the run's context into a JUnit document, and each failure's
reason into its <failure message>, so that a JUnit viewer (a CI system,
python3-junitparser) shows where and with what the run was made, and why
each test failed: <testsuite name> and hostname (ctest leaves "(empty)" and
""), one <property> per context value, and the message ctest leaves empty.
tdc run calls the functions (annotate, messages_of, run_junit) on what it
holds in memory; the verb reads and rewrites files.

  tdc annotate --junit FILE --context context.json [--name NAME] [--summary summary.json]
With --summary, each failed <testcase> gets the summary's message (GoogleTest's
failure message, or the entry's last meaningful line); a batched entry (one
ctest entry, many checks: the summary says which, by their entry) gets its
failed checks'.
Exit status 0, or 2 with one line when a file is damaged."""
import xml.etree.ElementTree as ET

from tdc import cli, junit_report, results, safeio
from tdc.errors import InputError


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


def messages_of(summary):
    """{testcase name: failure message} of a summary: each failed test's, and
    a batched entry (ctest's JUnit: one testcase per entry) its failed
    checks', which the summary lists with their entry."""
    messages = {t["name"]: t["message"] for t in summary["tests"] if t["status"] == results.FAILED}
    failed_checks = {}
    for test in summary["tests"]:
        if test["status"] == results.FAILED and test.get("entry") and test["name"] != test["entry"]:
            failed_checks.setdefault(test["entry"], []).append(test["name"])
    for entry, failed in failed_checks.items():
        if entry not in messages:
            messages[entry] = f"{len(failed)} check(s) failed, e.g. {failed[0]}: {messages[failed[0]]}"
    return messages


def annotate(root, context, name, messages, where="the JUnit document"):
    """Annotates the JUnit tree root in place (context: the context
    document; messages: messages_of's) and returns it; InputError when it
    has no <testsuite>."""
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    if root.tag not in ("testsuite", "testsuites") or not suites:
        raise InputError(f"{where} has no <testsuite>")
    for suite in suites:
        suite.set("name", name)
        suite.set("hostname", str(context.get("host", "")))
        for old in suite.findall("properties"):
            suite.remove(old)
        properties = ET.Element("properties")
        for key, value in flatten(context):
            ET.SubElement(properties, "property", name=key, value=value)
        suite.insert(0, properties)
    for case in root.iter("testcase"):
        message = messages.get(case.get("name"))
        if not message:
            continue
        junit_report.set_failure_message(case, message)
    return root


def run_junit(summary, context, name):
    """The run's junit.xml (one testcase per check per device,
    tdc.junit_report.document) with its context. Laid out as it was when
    annotate rewrote the written file: the testcases indented, the context's
    <properties> on one line."""
    root = junit_report.document(summary, name)
    ET.indent(root)
    return annotate(root, context, name, {})


def parser():
    p = cli.Parser("annotate", __doc__)
    p.add_argument("--junit", required=True, help="ctest's JUnit file, rewritten in place")
    p.add_argument("--context", required=True, help="the run's context.json")
    p.add_argument("--name", default="tdc", help="the <testsuite> name (default tdc)")
    p.add_argument("--summary", help="summary.json whose failure messages go into the JUnit")
    return p


def run(argv):
    args = parser().parse_args(argv)
    context = results.read(args.context, "context")
    root = safeio.parse_xml(args.junit, "JUnit file")
    messages = messages_of(results.read(args.summary, "summary")) if args.summary else {}
    annotate(root, context, args.name, messages, args.junit)
    junit_report.write_tree(args.junit, root)
    return 0


def main(argv=None):
    return cli.run_main("annotate", run, argv)
