"""verdict: one readiness verdict from a run's summary.json, in
node-problem-detector's convention: exit 0 healthy, 1 unhealthy, 2 unknown.

  tdc verdict --summary summary.json [--level N] [--why-unknown TEXT] [--out FILE] [--quiet]
Prints one JSON object (and writes it to --out):
  {"verdict": "healthy" | "unhealthy" | "unknown", "message": one line,
   "action": the node's recommended action (tdc.fleet.actions: none, rerun,
   drain, reset_device, reboot, service; the most severe of its checks'),
   "failing": [{"check", "device", "message", "dependents", "class", "action"}],
   "counted": {...},
   "caveat": "No TDC_EXPECT: ..." or null,
   "started", "finished": UTC ISO 8601, "tdc_version", "fingerprint": the
   configuration it was measured on (tdc.fingerprint; --build-dir for LibTorch),
   "what_to_add": the summary's, one entry per missing piece with its fix and
   its docs/backends.md section (empty unless unhealthy), ...}
Without TDC_EXPECT a healthy message ends with that caveat (tdc.expectation):
it checked the devices it found, and says so. Messages are the checks' own,
whole (their fix is often at the end: docs/backends.md's hints).
The level's rule (tdc.levels): every selected entry counts, configuration
errors and not-built entries included (a failed TdcConfiguration.* entry of
the node's own suites, a bad setting, is unknown with its one line); the loopback twins' passes never
count for the node; a level whose every check on the node's own devices was
skipped, or with fewer checks than its mustpass list, is not healthy. A run
whose summary is missing or damaged is unknown, never healthy. Bad flags and
an unwritable --out are exit 2 with one line (and no verdict).
tdc run calls document_of and publish with the summary it holds."""
import datetime
import os
import socket

from tdc import cli, context as run_context, expectation, fingerprint, levels, names, results, safeio
from tdc.errors import InputError
from tdc.fleet import actions

EXIT = {"healthy": 0, "unhealthy": 1, "unknown": 2}
# The entries a suite becomes when a setting is malformed (cmake/tdc_suite_entries.cmake,
# fixtures/src/suite_listing.cpp).
CONFIGURATION_PREFIX = "TdcConfiguration."


def failing_of(summary):
    by_name = {t["name"]: t for t in summary["tests"]}
    failing = []
    for group in summary["failures_by_root_cause"]:
        test = by_name.get(group["root_cause"], {})
        message = test.get("message") or group.get("message") or "failed without saying why"
        failing.append({"check": group["root_cause"], "device": test.get("device", "?"),
                        "message": message, "dependents": group.get("dependents", [])})
    # A failed test that is no group's root cause nor dependent still fails.
    grouped = {f["check"] for f in failing} | {d for f in failing for d in f["dependents"]}
    for test in summary["tests"]:
        if test["status"] == results.FAILED and test["name"] not in grouped:
            failing.append({"check": test["name"], "device": test["device"],
                            "message": test["message"] or "failed without saying why",
                            "dependents": []})
    for f in failing:  # the recommended action (tdc.fleet.actions)
        f["class"] = actions.classify(f["check"], f["message"])
        f["action"] = actions.action_of(f["class"])
    return failing


def configuration_error(tests):
    """The one line of the first failed TdcConfiguration.* entry of the
    node's own suites, else "". A bad setting (TDC_EXPECT=cuda:x) says
    nothing about the node's devices: unknown, not unhealthy, which would
    drain a node for a typo. The twins' entries ignore the caller's
    settings, so theirs failing is the build's problem (unhealthy)."""
    for test in tests:
        if (test["status"] == results.FAILED and not test.get("twin", names.is_twin(test["name"]))
                and names.bare(test["name"]).startswith(CONFIGURATION_PREFIX)):
            lines = (test.get("message") or "").strip().splitlines()
            return lines[0] if lines else f"{test['name']}: a configuration error"
    return ""


def decide(summary, level, why_unknown, mustpass=None):
    """(verdict, message, failing, counted)."""
    empty = {"own_passed": 0, "own_skipped": 0, "failed": 0, "twin_passed": 0, "missing_checks": []}
    if why_unknown:
        return "unknown", why_unknown, [], empty
    settings = (summary.get("context") or {}).get("environment") or {}
    count = levels.count(summary["tests"], level, mustpass, settings)
    counted = {"own_passed": len(count.own_passed), "own_skipped": len(count.own_skipped),
               "failed": len(count.failed), "twin_passed": count.twin_passed,
               "missing_checks": count.missing}
    bad_setting = configuration_error(summary["tests"])
    if bad_setting:
        return "unknown", bad_setting, [], counted
    failing = failing_of(summary)
    if failing or count.failed:
        devices = sorted({f["device"] for f in failing})
        first = failing[0] if failing else {"check": "?", "message": "a test failed"}
        return "unhealthy", (f"{len(failing)} failing check(s) on {', '.join(devices)}: "
                             f"{first['check']}: {first['message']}"), failing, counted
    problem = count.problem()
    if problem:
        return problem[0], problem[1], [], counted
    own_devices = sorted({t["device"] for t in count.own_passed})
    caveat = expectation.of_context(summary.get("context"))
    return "healthy", (f"{len(count.own_passed)} checks passed on this node's "
                       f"{len(own_devices)} device(s) ({', '.join(own_devices)}); "
                       f"all {count.expected} level-{level} checks present"
                       + (f". {caveat}" if caveat else "")), [], counted


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def dating(started, build_dir):
    """When the run started and finished, by which TDC, on which configuration
    (tdc.fingerprint): an adapter trusts a verdict only while it is young and
    its configuration is the node's now (tdc.recorded)."""
    return {"started": started or now_iso(), "finished": now_iso(),
            "tdc_version": run_context.suite_version(),
            "fingerprint": fingerprint.of(os.environ, build_dir or "")}


def parser():
    p = cli.Parser("verdict", __doc__)
    p.add_argument("--summary", required=True, help="the run's summary.json")
    p.add_argument("--level", type=cli.whole(1, 3), default=1, help="the level counted (default 1)")
    p.add_argument("--why-unknown", default="", help="the run could not tell: this is why")
    p.add_argument("--mustpass-dir", help="the lists to count against (default suites/mustpass)")
    p.add_argument("--out", help="also write the verdict here")
    p.add_argument("--build-dir", help="the build run: its LibTorch goes into the fingerprint")
    p.add_argument("--started", help="when the run started (UTC ISO 8601; default: now)")
    p.add_argument("--quiet", action="store_true", help="print nothing; the exit status says it")
    return p


def first_line(text):
    return text.strip().splitlines()[0] if text and text.strip() else ""


def document_of(summary, level, why_unknown="", mustpass=None, started=None, build_dir=None):
    """The verdict document (stamped) of a run's summary (the document, as
    tdc run holds it or the verb read it; None or {}: the run has none, and
    why_unknown says why)."""
    summary, why = summary or {}, first_line(why_unknown)
    try:
        outcome, message, failing, counted = decide(summary, level, why, mustpass)
    except InputError as error:
        outcome, message, failing, counted = decide({}, level, f"cannot count the level: {error}")
    context = summary.get("context") or {}
    # A run that could not tell has no context: the caller's setting is the expectation.
    caveat = (expectation.of_context(context) if context else
              expectation.caveat(os.environ.get("TDC_EXPECT")))
    return results.stamp({
        "verdict": outcome, "action": actions.node_action(outcome, failing),
        "message": message, "level": level,
        "host": str(context.get("host") or socket.gethostname()),
        "run_id": summary.get("run_id"), "seconds": summary.get("wall_seconds"),
        "failing": failing,
        "what_to_add": summary.get("what_to_add", []) if outcome == "unhealthy" else [],
        "devices": summary.get("devices", {}), "counted": counted, "caveat": caveat,
        **dating(started, build_dir)})


def publish(document, out=None, quiet=False):
    """Writes the verdict document to out (if any), prints it (unless
    quiet); returns its exit status (EXIT)."""
    if out:
        results.write(out, document, "verdict")
    if not quiet:
        print(safeio.dumps(document, indent=None).strip())
    return EXIT[document["verdict"]]


def verdict(argv):
    args = parser().parse_args(argv)
    summary, why = None, first_line(args.why_unknown)
    if not why:
        try:
            summary = results.read(args.summary, "summary")
        except InputError as error:
            why = f"no usable summary: {error}"
    mustpass = levels.read_mustpass(args.level, args.mustpass_dir) if args.mustpass_dir else None
    if args.mustpass_dir and mustpass is None:
        raise InputError(f"--mustpass-dir={args.mustpass_dir} has no level{args.level}.txt")
    return publish(document_of(summary, args.level, why, mustpass, args.started, args.build_dir),
                   args.out, args.quiet)


def main(argv=None):
    return cli.run_main("verdict", verdict, argv)
