"""ctest-profile: where a ctest run's time went: its slowest entries, each
with its share of the run's test-seconds, whether it runs alone
(RUN_SERIAL) and whether it is a nested run (label `nested`: a level, a
ctest, an install or a fleet inside the entry), read from ctest's own
JUnit and its test list (`ctest --show-only=json-v1`).

  tdc ctest-profile JUNIT [--tests TESTS_JSON] [--top 20]

ci/selftest prints it after each build's ctest (docs/measurements.md,
"CI profile", keeps the figures). Exit status: 0 printed, 2 unreadable input."""
import json
import sys

from tdc import cli, junit
from tdc.errors import InputError


def test_properties(path):
    """{test name: (labels, how it runs beside others)} from ctest
    --show-only=json-v1: "alone" (RUN_SERIAL), "lock <name>" (RESOURCE_LOCK:
    one at a time with the others holding it), else "beside others"."""
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as error:
        raise InputError(f"{path}: {error.strerror}") from None
    except ValueError as error:
        raise InputError(f"{path}: not ctest's JSON test list ({error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("tests"), list):
        raise InputError(f"{path}: not ctest's JSON test list (no 'tests')")
    found = {}
    for test in document["tests"]:
        if not isinstance(test, dict) or not isinstance(test.get("name"), str):
            continue
        labels, how = [], "beside others"
        for prop in test.get("properties") or []:
            if not isinstance(prop, dict):
                continue
            value = prop.get("value")
            if prop.get("name") == "LABELS" and isinstance(value, list):
                labels = [str(label) for label in value]
            elif prop.get("name") == "RUN_SERIAL" and value:
                how = "alone"
            elif prop.get("name") == "RESOURCE_LOCK" and value and how != "alone":
                how = "lock " + ",".join(value if isinstance(value, list) else [str(value)])
        found[test["name"]] = (labels, how)
    return found


def render(cases, properties, top):
    """Markdown: the `top` slowest entries, then the totals."""
    total = sum(case.seconds for case in cases) or 1.0
    slowest = sorted(cases, key=lambda case: -case.seconds)[:top]
    unknown = ([], "?")
    lines = ["| entry | s | share | runs | nested |", "|---|---:|---:|---|---|"]
    for case in slowest:
        labels, how = properties.get(case.name, unknown)
        nested = "yes" if "nested" in labels else ("no" if case.name in properties else "?")
        lines.append(f"| {case.name} | {case.seconds:.1f} | {100 * case.seconds / total:.1f} % | {how} | {nested} |")
    shown = sum(case.seconds for case in slowest)
    alone = sum(case.seconds for case in cases if properties.get(case.name, unknown)[1] == "alone")
    nested = sum(case.seconds for case in cases if "nested" in properties.get(case.name, unknown)[0])
    lines.append(f"\n{len(cases)} entries, {total:.0f} test-seconds: the {len(slowest)} above "
                 f"{100 * shown / total:.0f} %, entries that run alone {alone:.0f} s, nested runs {nested:.0f} s")
    return "\n".join(lines)


def body(argv):
    parser = cli.Parser("ctest-profile", __doc__)
    parser.add_argument("junit_path", metavar="JUNIT", help="ctest --output-junit's file")
    parser.add_argument("--tests", metavar="TESTS_JSON", help="ctest --show-only=json-v1's output (labels, RUN_SERIAL)")
    parser.add_argument("--top", type=cli.whole(1, 1000), default=20, help="entries listed (default 20)")
    args = parser.parse_args(argv)
    cases = junit.read(args.junit_path)
    if not cases:
        raise InputError(f"{args.junit_path}: no test cases: nothing ran")
    print(render(cases, test_properties(args.tests), args.top))
    return 0


def main(argv=None):
    return cli.run_main("ctest-profile", body, argv)


if __name__ == "__main__":
    sys.exit(main())
