"""last-line: the line a run ends with, its verdict, so that a person who
reads only the last line of ci/conformance or `tdc run` knows how it
went, where the report is, and whether its package would verify:

  LEVEL 2 FAILED: 34 checks failed on loopback:0, loopback:1 (exit 1); report: R/report.html;
      no package: ci/verify would refuse it (34 failed checks)
  LEVEL 2 PASSED: 412 checks passed on cpu, loopback:0, loopback:1 (exit 0); report: ...;
      package: ci/package R --product=... --submitter=...

(one line each). A run without TDC_EXPECT ends with the caveat's line just
before it (tdc.expectation). Whether ci/verify would refuse the package is
told from what the run recorded (its failed checks, context.json's dirty
tree, level 3 without TDC_EXPECT or with a failed step, checks of the
level's list without a result): a run is never invited to make a package
that will be refused.

  python3 -m tdc last-line --results DIR --level N --status S [--failed-step TEXT ...] [--verdict FILE]
--failed-step: a step after the level that failed (the benchmarks, the
gate), said in the line. Exit status: S (the run's own); 2 with one line
for bad flags, or when the summary is missing or damaged (the line says
ERROR, whatever S was: a run that left no readable summary passed nothing)."""
import os
import re
import sys

from tdc import cli, expectation, levels, results, safeio, source
from tdc.errors import InputError

VERDICTS = {0: "PASSED", 1: "FAILED"}


def plural(count, word):
    return f"{count} {word}" + ("" if count == 1 else "s")


def device_key(device):
    """cpu first, then devices by type and index, anything else last."""
    match = re.fullmatch(r"([a-z0-9_]+):(\d+)", device)
    if device == "cpu":
        return (0, "", 0)
    return (1, match.group(1), int(match.group(2))) if match else (2, device, 0)


def devices_of(tests, devices_only):
    """Where the tests ran: their devices (failures: also "host", or the
    expectation that failed, mps_at_least_1)."""
    return ", ".join(sorted({t["device"] for t in tests
                             if not devices_only or t.get("scope", "device") == "device"},
                            key=device_key)) or "no device"


def counts(summary):
    """(the level's words, failed tests)."""
    tests = summary.get("tests", [])
    failed = [t for t in tests if t["status"] == results.FAILED]
    if failed:
        return f"{plural(len(failed), 'check')} failed on {devices_of(failed, False)}", failed
    passed = [t for t in tests if t["status"] == results.PASSED]
    return f"{plural(len(passed), 'check')} passed on {devices_of(passed, True)}", failed


def missing_words(tests, level):
    """What the run lacks of its level's list (tdc.levels.without_result):
    a run whose selection left a suite out is not the level, whatever passed."""
    try:
        mustpass = levels.read_mustpass(level)
    except InputError as error:
        return [f"level {level}'s list is unreadable ({error})"]
    if mustpass is None:
        return [f"no list of level {level}'s checks ({levels.mustpass_path(level)})"]
    missing = levels.without_result(tests, mustpass)
    return [f"{plural(len(missing), 'check')} of level {level} without a result "
            f"(e.g. {missing[0]})"] if missing else []


def refusals(summary, context, level, failed, failed_steps):
    """Why ci/verify would refuse this run's package ([] when it would not, as far as the run can tell)."""
    why = []
    if failed:
        why.append(plural(len(failed), "failed check"))
    why += missing_words(summary.get("tests", []), level)
    git = context.get("git") if isinstance(context.get("git"), dict) else {}
    if git.get("dirty") is None:
        why.append("the tree's state is unknown (no git?)")
    elif git.get("dirty"):
        why.append(f"dirty tree ({', '.join(f.strip() for f in git.get('dirty_files', [])[:3])})")
    if level == 3 and expectation.of_context(context):
        why.append("level 3 without TDC_EXPECT")
    if level == 3 and failed_steps:
        why.append(f"level 3 with a failed step ({'; '.join(failed_steps)})")
    return why


def verdict_words(found):
    """The level's verdict (tdc.verdict's document) when it is not healthy:
    a level whose checks all passed can still miss checks."""
    if found.get("verdict") == "healthy":
        return []
    return [f"{found.get('verdict')}: {found.get('message')}"]


def verdict_reason(path):
    """verdict_words of the verdict file at path (--verdict FILE); [] without one."""
    if not path:
        return []
    try:
        found = safeio.load_json(path, "verdict", kind=dict)
    except InputError as error:
        return [f"no readable verdict ({error})"]
    return verdict_words(found)


def compose(results_dir, level, status, failed_steps=(), verdict_path=None):
    """[the caveat's line, if any] + [the verdict line], of the summary.json
    and verdict file a run left."""
    summary_path = os.path.join(results_dir, "summary.json")
    try:
        summary = results.read(summary_path, "summary")
    except InputError as error:  # fail closed: a run without a readable summary passed nothing
        return [f"LEVEL {level} ERROR: no usable summary ({error}) (exit {max(status, 2)})"]
    return lines_of(summary, results_dir, level, status, failed_steps, verdict_reason(verdict_path))


def lines_of(summary, results_dir, level, status, failed_steps=(), verdict_said=()):
    """compose's lines of a summary document (tdc run: the one it holds);
    verdict_said: verdict_words of the level's verdict, said when no check failed."""
    context = summary.get("context") or {}
    words, failed = counts(summary)
    parts = [words, *(f"{step} failed" for step in failed_steps)]
    parts += [] if failed else list(verdict_said)
    verdict = VERDICTS.get(status, "ERROR")
    report = os.path.join(results_dir, "report.html")
    checkout = source.is_checkout()
    tool = "ci/" if checkout else "tdc "
    maker = f"bin/tdc report {results_dir}" if checkout else f"tdc run-report --results {results_dir}"
    where = f"report: {report}" if os.path.isfile(report) else f"report: none ({maker} makes one)"
    if status == 2:
        advice = "no package: a setting or an input is bad (the lines above say which)"
    else:
        why = refusals(summary, context, level, failed, list(failed_steps))
        advice = (f"no package: ci/verify would refuse it ({'; '.join(why)})" if why else
                  f"package: {tool}package {results_dir} --product=... --submitter=...")
    caveat = expectation.of_context(context)
    return ([caveat] if caveat else []) + [
        f"LEVEL {level} {verdict}: {'; '.join(parts)} (exit {status}); {where}; {advice}"]


def parser():
    p = cli.Parser("last-line", __doc__)
    p.add_argument("--results", required=True, help="the run's results folder")
    p.add_argument("--level", type=cli.whole(1, 3), required=True, help="the run's level")
    p.add_argument("--status", type=cli.whole(0, 2), required=True, help="the run's exit status")
    p.add_argument("--failed-step", action="append", default=[],
                   help="a step after the level that failed (repeatable)")
    p.add_argument("--verdict", help="the level's verdict JSON (tdc run --verdict): why, when not healthy")
    return p


def last_line(argv):
    args = parser().parse_args(argv)
    lines = compose(args.results, args.level, args.status, args.failed_step, args.verdict)
    print("\n".join(lines))
    sys.stdout.flush()
    return 2 if lines[-1].startswith(f"LEVEL {args.level} ERROR: no usable summary") else args.status


def main(argv=None):
    return cli.run_main("last-line", last_line, argv)
