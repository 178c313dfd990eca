"""run: the run-and-report pipeline, written once for ci/conformance,
ci/health and ci/offline-run: context -> ctest -> summary -> the per-check
JUnit -> verdict, and the run's last step, after its benchmarks: report.html
(write_report; `python3 -m tdc run-report`). (The build names its resource spec itself, made from
discovery at ctest's start: cmake/TdcResourceSpec.cmake.in.)

  python3 -m tdc run --build-dir BUILD --results DIR [--level N] [--labels REGEX]
                     [--budget SECONDS] [--verdict FILE] [--print-verdict]
                     [--name NAME] [--command-line TEXT] [--jobs N] [--quiet]
                     [-- extra ctest arguments]

Every run starts from an empty results folder (one this pipeline made
before, or a new one: a non-empty folder of anything else is refused), so a
run whose ctest never ran cannot read an earlier run's files; a run that
empties one says which run it replaces and what it removes. GoogleTest's
XML of the run goes to <results>/gtest (TDC_GTEST_DIR) and only that folder
is read. Every entry the selection holds counts: one that ctest never
reported (the budget ran out before it started) is a failure, not nothing.

--budget (10..86400 s): the whole run's time, from start to verdict. Each
check gets a third of it (TDC_TEST_TIMEOUT), ctest stops starting checks and
ends those still running shortly before it (--stop-time), so the checks that
finished or timed out keep their results. A ctest that does not end by the
budget anyway (a loaded host, a discovery that hangs) is killed; the checks
its log says ended keep their results (junit.xml is then written from the
log and says so), the others count as not run; a log with no result at all
is unknown.
--print-verdict: print the verdict JSON (ci/health) and exit with its status
(0 healthy, 1 unhealthy, 2 unknown); otherwise print the summary table and
exit 0 all passed, 1 a check failed (or the verdict's status, if worse), 2 bad
input, and end with the run's verdict line (tdc.last_line; --no-last-line:
the caller prints it after steps of its own, as ci/conformance does). A run
from a tree with uncommitted changes says so at its start, naming them
(tdc.source): ci/verify refuses its package."""
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

from tdc import annotate, cli, context, ctest, gtest, junit, junit_report, last_line, levels, results, safeio
from tdc import reaper, source, summarize, verdict
from tdc.errors import InputError

MARKER = ".tdc-results"
REPORT = "report.html"
BUDGET = (10, 86400)
# Seconds kept back from the budget for ctest to end the running checks and
# write its JUnit, and for what follows (summary, annotation, verdict): at
# least this, or a fifth of the budget (seen: 5 s on a host at load 11).
RESERVE = 5.0


def earlier_run(path, entries):
    """The line that says what emptying `path` removes: the earlier run's id
    and level (its context.json) and its files; "" when nothing is there."""
    kept = sorted(e + ("/" if os.path.isdir(os.path.join(path, e)) else "") for e in entries if e != MARKER)
    if not kept:
        return ""
    try:
        earlier = results.read(os.path.join(path, "context.json"), "context")
        which = f"run {earlier['run_id']}, level {earlier['level']}"
    except InputError:
        which = "a run whose context.json is missing or damaged"
    return (f"tdc: this run replaces the earlier one in {path} ({which}): removing "
            f"{', '.join(kept)}; copy the folder first to keep it")


def fresh_results(path, announce=True):
    """An empty results folder at path, marked as ours. Refuses to empty a
    folder that is not one (a typo'd --out must not delete a home folder);
    says what it removes of an earlier run (announce, on stderr)."""
    if os.path.islink(path) or (os.path.exists(path) and not os.path.isdir(path)):
        raise InputError(f"results folder {path} is not a folder")
    if os.path.isdir(path):
        entries = os.listdir(path)
        if entries and MARKER not in entries:
            raise InputError(f"results folder {path} is not empty and holds no {MARKER}: "
                             "refusing to empty it (name a new or empty folder)")
        line = earlier_run(path, entries) if announce else ""
        if line:
            print(line, file=sys.stderr)
        for entry in entries:
            full = os.path.join(path, entry)
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            else:
                os.unlink(full)
    safeio.ensure_writable_folder(path, "results folder")
    safeio.write_text(os.path.join(path, MARKER), "made by tdc run; emptied at the start of every run\n",
                      "marker")


def run_ctest(command, env, log_path, deadline, quiet):
    """Runs ctest, its output to log_path (and the console unless quiet);
    kills its process group at `deadline` (time.monotonic()). Returns
    (exit status, killed, the log's text: what the run reads of it, never
    read back from the file)."""
    # A session of its own (the budget kill ends ctest's whole group, never
    # this process), led by tdc.reaper: it kills that group when this process
    # dies, SIGKILL included, through the pipe only this process holds.
    process = subprocess.Popen([sys.executable, reaper.__file__, *command], env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", start_new_session=True)
    killed = threading.Event()
    lines = []

    def kill():
        killed.set()
        for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 0)):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                return
            try:
                process.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue

    timer = threading.Timer(max(0.0, deadline - time.monotonic()), kill) if deadline else None
    if timer:
        timer.daemon = True
        timer.start()
    try:
        with open(log_path, "w", encoding="utf-8") as log:
            for line in process.stdout:
                log.write(line)
                lines.append(line)
                if not quiet:
                    sys.stdout.write(line)
        status = process.wait()
    except BaseException:
        # Interrupted (a signal, Ctrl-C): nothing of the run goes on writing
        # into the results. Synchronous: the group is gone when this returns.
        reaper.stop_group(process)
        raise
    finally:
        if timer:
            timer.cancel()
    return status, killed.is_set(), "".join(lines)


class Interrupted(Exception):
    """tdc run got SIGTERM, SIGINT or SIGHUP."""
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum, _frame):
    raise Interrupted(signum)


def salvage_junit(log, log_path, budget):
    """ctest was killed before writing its JUnit: the JUnit tree of what its
    log (the text; log_path: where it is) says ended, marked as such;
    InputError when the log has no result."""
    outcomes = ctest.outcomes(log)
    if not outcomes:
        raise InputError(f"ctest did not finish within the budget of {budget} s and reported no result "
                         f"(its log: {log_path})")
    return junit_report.ctest_document(
        outcomes, f"ctest.log: ctest was killed at the budget of {budget} s before writing its JUnit")


def stop_time(deadline_wall, reserve):
    """ctest's --stop-time: the local time of day at which it stops starting
    tests and ends the running ones (a time before now is tomorrow's). ctest
    adds the date and its own zone: a zone given here makes it ignore the
    stop time altogether (seen with ctest 3.25)."""
    return time.strftime("%H:%M:%S", time.localtime(deadline_wall - reserve))


def execute(args, started, started_wall):
    """Runs one level; returns (the summary document, the run's status).
    InputError when the run could not tell anything (no build, no ctest,
    ctest did not finish). Each step hands the next its document in memory
    (context, summary, both JUnit trees): each file in the results folder is
    written once, and none is read back."""
    build_dir, out = os.path.abspath(args.build_dir), os.path.abspath(args.results)
    if not os.path.isfile(os.path.join(build_dir, "CTestTestfile.cmake")):
        raise InputError(f"no TDC build at '{args.build_dir}' (--build-dir: a configured, built tree)")
    fresh_results(out, announce=not args.print_verdict)
    gtest_dir = os.path.join(out, "gtest")
    os.makedirs(gtest_dir)
    paths = {name: os.path.join(out, name) for name in
             ("context.json", "ctest-junit.xml", "junit.xml", "summary.json", "ctest.log", "selected.txt")}
    env = dict(os.environ, TDC_GTEST_DIR=gtest_dir)
    deadline = deadline_wall = None
    if args.budget:
        env["TDC_TEST_TIMEOUT"] = str(max(1, args.budget // 3))
        deadline, deadline_wall = started + args.budget, started_wall + args.budget

    # Independent questions (each a few processes): asked at once, so that
    # they take less of a budget.
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        described = pool.submit(context.describe, build_dir, args.level, args.command_line)
        listing = pool.submit(ctest.listed, build_dir, args.ctest_args, env)
        run_context = results.write(paths["context.json"], described.result(), "context")
        everything = listing.result()
    selection = (["-L", args.labels] if args.labels else []) + args.ctest_args
    # ctest -L: a test is selected when one of its labels matches the regex.
    selected = [name for name, labels in everything
                if not args.labels or any(re.search(args.labels, label) for label in labels)]
    if not selected:
        raise InputError(f"the selection ({' '.join(selection) or 'every entry'}) holds no test in {build_dir}")
    # Configuration errors and unbuilt suites count, labelled with the level or not.
    # A suite whose settings are bad, or that is not built, is one entry that
    # carries every level's label (cmake/tdc_suite_entries.cmake): selected above.
    safeio.write_text(paths["selected.txt"], "".join(n + "\n" for n in selected), "selection")
    # Once its input is known good (a refusal stays one line), before ctest
    # runs: a dirty tree's run cannot be packaged. ci/health prints only its verdict.
    warning = "" if args.print_verdict else source.warning(source.state())
    if warning:
        print(warning, file=sys.stderr)

    # Line-buffered, so that ctest's log holds every result that ended even
    # when ctest is killed at the budget (a pipe is block-buffered otherwise).
    unbuffered = ["stdbuf", "-oL", "-eL"] if shutil.which("stdbuf") else []
    command = [*unbuffered, ctest.program(), "--test-dir", build_dir, *selection, "-j", str(args.jobs),
               "--output-on-failure", "--output-junit", paths["ctest-junit.xml"], "--no-tests=error"]
    if deadline:
        reserve = max(RESERVE, 0.2 * args.budget)
        command += ["--stop-time", stop_time(deadline_wall, reserve)]
    ctest_started = time.monotonic()
    if not args.quiet:
        print(f"\n==> level {args.level} (ctest {' '.join(selection) or '(every entry)'}): "
              f"{len(selected)} entries", file=sys.stderr)
    status, killed, log = run_ctest(command, env, paths["ctest.log"], deadline, args.quiet)
    seconds = round(time.monotonic() - ctest_started, 2)
    if killed:
        ctest_junit = salvage_junit(log, paths["ctest.log"], args.budget)
    elif os.path.isfile(paths["ctest-junit.xml"]):
        ctest_junit = safeio.parse_xml(paths["ctest-junit.xml"], "JUnit file")   # ctest's: read once
    else:
        last = [l for l in log.splitlines() if l.strip()]
        raise InputError(f"ctest wrote no JUnit file (exit {status}): {last[-1] if last else 'no output'}")
    cases = junit.cases_of_root(ctest_junit, paths["ctest-junit.xml"])
    records = gtest.read_dir(gtest_dir)
    stopped = "The stop time has been passed" in log or killed
    why = (f"the run's budget of {args.budget} s ran out before it ended" if stopped
           else "ctest did not report it")
    summary = summarize.build(cases, records, run_context, seconds, args.level, ctest.outcomes(log),
                              selected, why)
    summary = results.write(paths["summary.json"], summary, "summary")
    name = args.name or f"tdc-level{args.level}"
    # junit.xml: one testcase per check per device, what CI systems read;
    # ctest's own (one per entry) gets the context and its failures' reasons too.
    junit_report.write_tree(paths["junit.xml"], annotate.run_junit(summary, run_context, name))
    annotate.annotate(ctest_junit, run_context, name, annotate.messages_of(summary), paths["ctest-junit.xml"])
    junit_report.write_tree(paths["ctest-junit.xml"], ctest_junit)
    if not args.print_verdict:  # --quiet too: the summary is what a quiet run prints
        print("\n".join(summarize.console(summary)))
    return summary, 1 if summary["totals"][results.FAILED] else 0


def write_report(results_dir):
    """The run's last step, after its benchmarks (the page charts them):
    results_dir/report.html, made by tdc report's own function
    (tdc.report.run.write_run_report). Returns its path, or None with one line
    on stderr saying why there is none (no jinja2 or matplotlib on this
    python, nothing to report): the report never decides a run's verdict, and
    a run without one keeps every other result."""
    from tdc.report import run as run_report  # imports jinja2 and matplotlib only when writing
    try:
        return run_report.write_run_report(results_dir)
    except InputError as error:
        print(f"tdc: no {REPORT} in {results_dir}: {error}", file=sys.stderr)
        return None


def parser():
    p = cli.Parser("tdc run", __doc__)
    p.add_argument("--build-dir", required=True, help="a built TDC tree (never built here)")
    p.add_argument("--results", required=True, help="results folder: emptied (or made) first")
    p.add_argument("--level", type=cli.whole(1, 3), default=2, help="1, 2 or 3 (default 2)")
    p.add_argument("--labels", help="ctest -L regex (default: the level's; '' for every entry)")
    p.add_argument("--budget", type=cli.whole(*BUDGET),
                   help=f"whole seconds for the run, {BUDGET[0]}..{BUDGET[1]} (default: no limit)")
    p.add_argument("--verdict", help="also write the level's verdict JSON here")
    p.add_argument("--print-verdict", action="store_true",
                   help="print the verdict JSON and exit with its status (ci/health)")
    p.add_argument("--name", help="the JUnit <testsuite> name (default tdc-level<N>)")
    p.add_argument("--command-line", default="", help="the user's command, for context.json")
    p.add_argument("--jobs", type=cli.whole(1, 1024), default=os.cpu_count() or 1,
                   help="ctest -j (default: the number of cores)")
    p.add_argument("--quiet", action="store_true",
                   help="no ctest output or progress lines: the summary (or the verdict) and errors only")
    p.add_argument("--no-last-line", action="store_true",
                   help="do not end with the verdict line: the caller prints it after its own steps")
    p.add_argument("ctest_args", nargs="*", help="after --: more ctest arguments (-LE long)")
    return p


def run(argv):
    args = parser().parse_args(argv)
    if args.labels is None:
        args.labels = levels.LABELS[args.level]
    started, started_wall = time.monotonic(), time.time()
    started_iso = verdict.now_iso()
    summary, why, status = None, "", 0
    if args.verdict:
        # Until this run rewrites it at its end, the verdict file says the run
        # did not finish: a killed run never leaves the previous "healthy".
        verdict.publish(verdict.document_of(None, args.level, f"interrupted: the run started at {started_iso} "
                                            "did not finish (killed, or still running)",
                                            started=started_iso, build_dir=args.build_dir),
                        args.verdict, quiet=True)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    try:
        summary, status = execute(args, started, started_wall)
    except Interrupted as interrupt:
        print(f"tdc run: interrupted by signal {interrupt.signum}: ctest and its checks were stopped"
              + (f"; {args.verdict} says unknown (interrupted)" if args.verdict else ""), file=sys.stderr)
        return 128 + interrupt.signum
    except InputError as error:
        if not (args.print_verdict or args.verdict):
            raise
        why = str(error)
    if not (args.print_verdict or args.verdict):
        return finish(args, status, summary)
    document = verdict.document_of(summary, args.level, why, started=started_iso, build_dir=args.build_dir)
    verdict_status = verdict.publish(document, args.verdict, quiet=not args.print_verdict)
    if args.print_verdict:
        return verdict_status
    return finish(args, max(status, verdict_status), summary, document)


def finish(args, status, summary=None, verdict_document=None):
    """The run's status, after its verdict line (unless the caller prints
    it), told from the summary and verdict the run holds; a run that made no
    summary says so as `tdc last-line` does."""
    if not args.no_last_line:
        sys.stdout.flush()
        results_dir = os.path.abspath(args.results)
        if summary is None:
            lines = last_line.compose(results_dir, args.level, status, (), args.verdict)
        else:
            lines = last_line.lines_of(summary, results_dir, args.level, status, (),
                                       last_line.verdict_words(verdict_document) if verdict_document else ())
        print("\n".join(lines))
    return status


def main(argv=None):
    return cli.run_main("tdc run", run, argv)
