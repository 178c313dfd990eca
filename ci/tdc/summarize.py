"""summarize: reads ctest's JUnit file and the run's GoogleTest XML (metadata,
failure and skip reasons) and writes the run as summary.json, printing a
per-device table a lab can read.

  tdc summarize --junit FILE [--gtest-dir DIR] [--context FILE] [--seconds S]
                  [--level N] [--ctest-log FILE] [--selected FILE] [--out JSON] [--quiet]
  tdc summarize --junit FILE --counts-only      prints "<passed> <failed> <skipped>"

What a check measured (its measured.<name> properties: the sustained run's
seconds, the level-3 bandwidth matrix) is kept with its test as numbers
(`measurements`, `matrices`). Whether the ordering checks saw work pending
(their ordering_observed property) is kept with each test and, per device,
as the device's `ordering` (tdc.ordering). Each failure carries its reason: GoogleTest's failure message, else the
JUnit message, else the last meaningful line the entry printed (a crash, a
timeout, a configuration error). Failures are grouped by root cause: a
failure whose output has "prerequisite failed: ... (checked by Suite.Check...)"
is listed under the check it names, root causes first. A failure that shows
a missing piece (tdc.gaps: a kernel LibTorch cannot dispatch, a device
guard call left at c10's default) reads in TDC's words, and the failures of
one missing kernel are one root cause. "What to add" closes the console and
is the summary's `what_to_add`: one line per root cause, most failures
first, each with its fix and its docs/backends.md section. A failure whose
message is no reason (a bare location, GoogleTest's expression alone:
tdc.junit.says_only_where_or_what) is named in `reasonless_failures` and on
the console: TDC owes it a message.
Exit status: 0 all passed, 1 a test failed, 2 a damaged or empty input
(one line naming it, never a traceback)."""
import collections
import re
import xml.etree.ElementTree as ET

from tdc import backends_doc, cli, ctest, expectation, gaps, gtest, junit, names, ordering, results, safeio
from tdc.errors import InputError

PREREQUISITE = re.compile(r"^\s*prerequisite failed: .*\(checked by ([^)\s]+)\)", re.MULTILINE)


def prerequisite_of(case, record):
    texts = [record.reason] if record else []
    texts += [case.reason, case.output]
    for node in case.element.iter():
        if node.tag in ("failure", "error"):
            texts += [node.get("message") or "", node.text or ""]
    for text in texts:
        match = PREREQUISITE.search(text or "")
        if match:
            return match.group(1)
    return None


def last_meaningful_line(output):
    lines = junit.meaningful_lines(output)
    # ctest's own closing remarks say nothing about why.
    lines = [l for l in lines if not l.startswith(("CMake Error", "Call Stack"))]
    return junit.capped(lines[-1]) if lines else ""


def failure_reason(case, record, outcome):
    """GoogleTest's message; else the JUnit's; else what ctest saw (a timeout,
    a crash) with the entry's last meaningful line."""
    if record is not None and record.status == junit.FAILED and record.reason:
        return record.reason
    if case.reason:
        return case.reason
    last = last_meaningful_line(case.output)
    if outcome and outcome[0] == "Timeout":
        return f"timed out after {outcome[1]:.1f} s (hung?)" + (f"; last output: {last}" if last else "")
    if outcome and outcome[0].startswith("Exception"):
        return f"crashed ({outcome[0]})" + (f": {last}" if last else "")
    return last or (f"ctest: {outcome[0]}" if outcome else "failed without saying why (no message, no output)")


def test_of(case, record, outcome=None):
    """One summary entry from a JUnit case, its GoogleTest record (or None)
    and ctest's account of how it ended (or None)."""
    status = case.status
    if record is not None and record.status == junit.FAILED and status == junit.PASSED:
        status = junit.FAILED  # the worse of two honest accounts
    message = ""
    properties = record.properties if record else {}
    device = properties.get("device") or names.device_from_name(case.name)
    gap = None
    if status == junit.FAILED:
        message = junit.capped(failure_reason(case, record, outcome))
        gap = gaps.of(message, properties.get("device_type") or device.split(":")[0])
        if gap:
            message = junit.capped(gap.fix)
    elif status == junit.SKIPPED:
        message = (record.reason if record else "") or case.reason or last_meaningful_line(case.output)
        if record is not None and record.known_failure:
            status = results.KNOWN_FAILURE
    check = properties.get("check") or names.check_name(case.name)
    test = {"name": case.name, "check": check, "device": device, "status": status,
            "seconds": case.seconds, "message": message, "twin": names.is_twin(case.name),
            "scope": names.scope_of(device, check), "metadata": bool(properties)}
    for key in ("device_type", "dtype"):
        if key in properties:
            test[key] = properties[key]
    if record is not None and record.entry:
        test["entry"], test["isolation"] = record.entry, record.isolation
    if record is not None and record.measurements:
        test["measurements"] = record.measurements
    if record is not None and record.matrices:
        test["matrices"] = record.matrices
    if record is not None and record.ordering_observed is not None:
        test[ordering.PROPERTY] = record.ordering_observed
    if status == junit.FAILED:
        test["prerequisite"] = prerequisite_of(case, record)
    if gap:
        test["gap"], test["section"] = gap.key, gap.section
    return test


def failures_by_root_cause(tests):
    """Root causes first, each with the failures that named it as their
    prerequisite; a named prerequisite that did not fail here still heads its group."""
    failed = [t for t in tests if t["status"] == results.FAILED]
    groups = collections.OrderedDict()
    for test in failed:
        if not test.get("prerequisite"):
            groups[names.bare(test["name"])] = {"root_cause": test["name"], "message": test["message"],
                                                "dependents": []}
    for test in failed:
        owner = test.get("prerequisite")
        if not owner:
            continue
        key = next((k for k in groups if k == owner or k.startswith(owner + "/")), owner)
        groups.setdefault(key, {"root_cause": owner, "message": "prerequisite named by dependents "
                                "(not a failed test of this run)", "dependents": []})
        groups[key]["dependents"].append(test["name"])
    return one_per_kernel(list(groups.values()), tests)


KERNEL = "kernel "


def one_per_kernel(groups, tests):
    """The groups with every one whose root cause hit the same missing
    kernel (its gap) folded into the first: one root cause per kernel,
    named in the group's `kernel`."""
    gap_of = {t["name"]: t.get("gap", "") for t in tests}
    merged, by_kernel = [], {}
    for group in groups:
        gap = gap_of.get(group["root_cause"], "")
        if not gap.startswith(KERNEL):
            merged.append(group)
        elif gap in by_kernel:
            by_kernel[gap]["dependents"] += [group["root_cause"]] + group["dependents"]
        else:
            by_kernel[gap] = dict(group, kernel=gap[len(KERNEL):], dependents=list(group["dependents"]))
            merged.append(by_kernel[gap])
    return merged


def what_to_add(groups, tests):
    """One entry per missing piece: root causes of one gap (tdc.gaps), or of
    one check on several devices, are one entry; most failures first."""
    by_name = {t["name"]: t for t in tests}
    entries = collections.OrderedDict()
    for group in groups:
        test = by_name.get(group["root_cause"], {})
        check = test.get("check") or names.check_name(group["root_cause"])
        entry = entries.setdefault(test.get("gap") or check, {
            "fix": test.get("message") or group["message"] or "failed without saying why",
            "section": test.get("section") or backends_doc.section_naming(check),
            "root_causes": [], "devices": [], "failures": 0})
        entry["root_causes"].append(group["root_cause"])
        entry["failures"] += 1 + len(group["dependents"])
        for name in [group["root_cause"]] + group["dependents"]:
            device = by_name.get(name, {}).get("device")
            if device and device not in entry["devices"]:
                entry["devices"].append(device)
    return sorted(entries.values(), key=lambda entry: -entry["failures"])


def what_to_add_lines(entries):
    """The console's closing block (and the verdict's lines)."""
    if not entries:
        return []
    lines = [f"What to add ({len(entries)} root cause(s), most failures first):"]
    for number, entry in enumerate(entries, 1):
        where = (f'docs/backends.md, "{entry["section"]}"' if entry["section"]
                 else "no docs/backends.md section names it")
        lines.append(f"  {number}. {entry['fix']} [{where}] ({entry['failures']} failure(s) on "
                     f"{', '.join(entry['devices']) or '?'}; root cause {entry['root_causes'][0]})")
    return lines


def results_of(cases, records):
    """(case, record) for every result of the run. An entry that tdc_batch ran
    as a batch yields one result per check it ran (its records, by their
    `entry` property); an entry with no record of its own (a configuration
    error, an unbuilt suite, a self-test, the waiver check) is one result.
    A batch that failed although none of its checks did (its process ended
    badly between checks, a stale list) is a result too, so that its failure
    is never lost in the expansion."""
    by_entry = collections.defaultdict(list)
    for record in records.values():
        if record.entry:
            by_entry[record.entry].append(record)
    pairs = []
    for case in cases:
        checks = by_entry.pop(case.name, [])
        if not checks:
            pairs.append((case, records.get(case.name)))
            continue
        for record in checks:
            pairs.append((junit.Case(name=record.key, status=record.status, seconds=record.seconds,
                                     reason=record.reason, element=ET.Element("testcase")), record))
        if case.status == junit.FAILED and not any(r.status == junit.FAILED for r in checks):
            pairs.append((case, None))
    # Checks whose entry ctest did not report (killed at the budget) still ran.
    for checks in by_entry.values():
        for record in checks:
            pairs.append((junit.Case(name=record.key, status=record.status, seconds=record.seconds,
                                     reason=record.reason, element=ET.Element("testcase")), record))
    return pairs


def not_run(names_, why):
    """JUnit cases for entries the selection held that ctest never reported."""
    return [junit.Case(name=name, status=junit.FAILED, seconds=0.0, reason=f"not run: {why}",
                       element=ET.Element("testcase")) for name in names_]


def build(cases, records, context, seconds, level, outcomes=None, selected=None,
          not_run_reason="ctest did not report it"):
    """The summary document (unstamped) of one run. `selected`: every entry
    the run's selection held; those missing from the JUnit count as failed."""
    outcomes = outcomes or {}
    reported = {case.name for case in cases}
    cases = cases + not_run([n for n in (selected or []) if n not in reported], not_run_reason)
    tests = [test_of(case, record, outcomes.get(case.name)) for case, record in results_of(cases, records)]
    totals = results.counts(tests)
    devices = collections.defaultdict(results.counts)
    other = collections.defaultdict(results.counts)
    for test in tests:
        (devices if test["scope"] == "device" else other)[
            test["device"] if test["scope"] == "device" else test["scope"]][test["status"]] += 1
    matched = sum(1 for test in tests if test["metadata"])
    groups = failures_by_root_cause(tests)
    devices = {d: dict(c) for d, c in sorted(devices.items())}
    for device, verdict in ordering.by_device(tests).items():
        devices[device]["ordering"] = verdict
    return {
        "run_id": context.get("run_id"),
        "level": level if level is not None else context.get("level"),
        "context": context,
        "wall_seconds": seconds,
        "totals": totals,
        "devices": devices,
        "other": {d: dict(c) for d, c in sorted(other.items())},
        "gtest": {"records": len(records), "matched": matched},
        "failures_by_root_cause": groups,
        "what_to_add": what_to_add(groups, tests),
        "reasonless_failures": reasonless_failures(tests),
        "tests": tests,
    }


def reasonless_failures(tests):
    """The failures whose message says only where or what failed, never why:
    each is a defect of TDC's (an assertion without a message, a reason lost
    on the way), whatever the device did."""
    return [test["name"] for test in tests
            if test["status"] == results.FAILED and junit.says_only_where_or_what(test["message"])]


def table(rows, title):
    width = max([len(title)] + [len(name) for name in rows]) + 2
    lines = [f"{title:<{width}}" + "".join(f"{c:>15}" for c in results.STATUSES)]
    for name, counts in rows.items():
        lines.append(f"{name:<{width}}" + "".join(f"{counts.get(c, 0):>15}" for c in results.STATUSES))
    return lines


def matrix_lines(name, matrix):
    """A measured matrix as nvbandwidth prints one: rows from, columns to."""
    width = max([8] + [len(label) + 2 for label in matrix["rows"] + matrix["columns"]])
    cell = lambda value: "N/A" if value is None else f"{value:.2f}"
    lines = [f"{name} ({matrix['unit']}, rows from, columns to)",
             "".join(f"{label:>{width}}" for label in ["from \\ to"] + matrix["columns"])]
    for label, row in zip(matrix["rows"], matrix["values"]):
        lines.append(f"{label:>{width}}" + "".join(f"{cell(value):>{width}}" for value in row))
    return lines


# How many tests a skip reason's line names before "and N more".
SKIPS_NAMED = 3


def skipped_lines(tests):
    """The skipped tests, one line per reason (most skipped first), each
    naming a few of them: why the table's skipped column is not zero."""
    by_reason = collections.OrderedDict()
    for test in tests:
        if test["status"] == results.SKIPPED:
            reason = (test["message"] or "").strip().splitlines()[:1] or ["no reason given"]
            by_reason.setdefault(reason[0][:200], []).append(test["name"])
    lines = []
    for reason, skipped in sorted(by_reason.items(), key=lambda item: -len(item[1])):
        more = f" and {len(skipped) - SKIPS_NAMED} more" if len(skipped) > SKIPS_NAMED else ""
        lines.append(f"SKIPPED {len(skipped)}: {reason} ({', '.join(skipped[:SKIPS_NAMED])}{more})")
    return lines


def dependents_line(dependents):
    """The failures that failed because a root cause did, as one line: their
    names are in summary.json (its failures_by_root_cause), and 84 lines of
    them under a root cause pushed its message, and its fix, off the screen."""
    if not dependents:
        return []
    if len(dependents) == 1:
        return [f"          and 1 dependent: {dependents[0]}"]
    return [f"          and {len(dependents)} dependents (summary.json)"]


def console(summary):
    """The lines a person reads: devices, then what is not a device, then
    the matrices a check measured."""
    lines = [""] + table(summary["devices"], "device")
    lines += ordering.lines(summary["devices"])
    if summary["other"]:
        labels = {"host": "host-level checks", "expectation": "TDC_EXPECT checks"}
        lines += [""] + table({labels.get(k, k): v for k, v in summary["other"].items()}, "not a device")
    for group in summary["failures_by_root_cause"]:
        lines.append(f"FAILED  {group['root_cause']}: {group['message']}")
        lines += dependents_line(group["dependents"])
    for test in summary["tests"]:
        if test["status"] == results.KNOWN_FAILURE:
            lines.append(f"KNOWN   {test['name']}: {test['message']}")
    lines += skipped_lines(summary["tests"])
    reasonless = summary.get("reasonless_failures") or []
    if reasonless:
        lines.append(f"NO REASON  {len(reasonless)} failure(s) say only where or what failed, not why "
                     f"(a defect of TDC's, please report it): {', '.join(reasonless)}")
    for test in summary["tests"]:
        for name, matrix in sorted(test.get("matrices", {}).items()):
            lines += [""] + matrix_lines(f"{test['name']}: {name}", matrix)
    if summary["wall_seconds"] is not None:
        lines.append(f"\nctest wall time: {summary['wall_seconds']:.1f} s")
    # What a vendor reads first, then the caveat, just before the verdict's last line.
    what = what_to_add_lines(summary.get("what_to_add", []))
    lines += [""] + what if what else []
    caveat = expectation.of_context(summary.get("context"))
    if caveat:
        lines.append(caveat)
    return lines


def read_context(path):
    if not path:
        return {}
    return results.read(path, "context")


def parser():
    p = cli.Parser("summarize", __doc__)
    p.add_argument("--junit", required=True, help="ctest's JUnit file")
    p.add_argument("--gtest-dir", help="this run's GoogleTest XML folder (read recursively)")
    p.add_argument("--context", help="context.json of the run")
    p.add_argument("--seconds", type=cli.finite, help="ctest's wall time")
    p.add_argument("--level", type=cli.whole(1, 3), help="the level the run was (default: context's)")
    p.add_argument("--ctest-log", help="ctest's console log: how entries without XML ended (timeouts, crashes)")
    p.add_argument("--selected", help="every entry the run selected, one a line: one missing from "
                                      "the JUnit counts as failed (not run)")
    p.add_argument("--not-run-reason", default="ctest did not report it",
                   help="why a selected entry may be missing (e.g. the budget ran out)")
    p.add_argument("--out", help="summary.json to write")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.add_argument("--counts-only", action="store_true", help='print "<passed> <failed> <skipped>"')
    return p


def summarize(argv):
    args = parser().parse_args(argv)
    if args.seconds is not None and args.seconds < 0:
        raise InputError(f"--seconds={args.seconds}: a wall time is not negative")
    cases = junit.read(args.junit)
    if args.counts_only:
        totals = collections.Counter(c.status for c in cases)
        print(totals[junit.PASSED], totals[junit.FAILED], totals[junit.SKIPPED])
        return 0
    outcomes = ctest.outcomes(safeio.read_text(args.ctest_log, "ctest log")) if args.ctest_log else {}
    selected = ([l for l in safeio.read_text(args.selected, "selection").splitlines() if l.strip()]
                if args.selected else None)
    summary = build(cases, gtest.read_dir(args.gtest_dir), read_context(args.context),
                    args.seconds, args.level, outcomes, selected, args.not_run_reason)
    if args.out:
        summary = results.write(args.out, summary, "summary")
    if not args.quiet:
        print("\n".join(console(summary)))
    return 1 if summary["totals"][results.FAILED] else 0


def main(argv=None):
    return cli.run_main("summarize", summarize, argv)
