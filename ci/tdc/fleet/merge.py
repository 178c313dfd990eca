"""ci/merge: many hosts' packages into one fleet matrix, JUnit file and report.

  ci/merge PACKAGE... --out DIR [--tasks FILE] [--allowed-signers FILE]
           [--history DIR] [--night YYYY-MM-DD] [--max-age DAYS]
           [--flaky-window N] [--stale-after N] [--jobs N] [--no-html]

Every package is verified first (ci/verify's checks, as functions, in --jobs
worker processes); one that fails the trust checks (tdc.fleet.packages) is a
row "unverified" with why, and its results are not merged. --tasks is the
Slurm job's task list (tdc.fleet.tasks): every task is a row, one without a
package shows its state. --allowed-signers checks each package's signature:
the signer must be allowed for the host the package claims, the Slurm node
it claims and the node its task ran on (tdc.fleet.signing); an empty value
is bad input, never "unchecked".

Which package fills a row (docs/fleet.md, "Which package fills a row"):
  - only a verified one: an unverified package never blocks another;
  - only a run of the night's window: begun at most --max-age days (default
    2) before the merge and not after it (tdc.fleet.window); any other is
    set aside, "outside the night's window";
  - with --history, not a run already merged on an earlier night ("replayed");
  - of two or more for one host and build, the newest verified run; an
    older verified run is listed (matrix.json's `contested`, and a line the
    merge prints) and is no row, unless it is a Slurm task's (then its row
    reads unverified, naming the newer run); unverified ones stay their rows.

Writes to DIR: matrix.json (schema ci/tdc/schemas/matrix.schema.json,
docs/fleet.md), junit.xml (one suite per row, "tdc/<host>/<build>") and
fleet.html (tdc.report). With --history, earlier nights' matrices give what
is new, fixed, still failing, flaky and stale (tdc.fleet.history); the merge
prints what changed against which night and names each history file it
skipped and why (a damaged earlier night is a warning, not an abort).
Every text from a package is printed on one line, escaped (tdc.terminal).

Exit status: 0 every row verified and nothing failed; 1 a row failed, is
unverified or has no package; 2 bad input (one line)."""
import datetime
import multiprocessing
import os
import pickle
import sys
import tempfile
import time
from collections import defaultdict

from tdc import results
from tdc.cli import Parser, run_main, whole
from tdc.errors import InputError
from tdc.fleet import history, junit_out, matrix, outliers, packages, signatures, signing, tasks, window
from tdc.terminal import printable


def parse_args(argv):
    parser = Parser("merge", __doc__)
    parser.add_argument("packages", nargs="*", help="tdc-*.tar.gz packages (ci/package)")
    parser.add_argument("--out", required=True, help="folder for matrix.json, junit.xml, fleet.html")
    parser.add_argument("--tasks", help="the task list (ci/slurm/submit or tdc fleet-plan --tasks) (JSON)")
    parser.add_argument("--allowed-signers", help="OpenSSH allowed_signers: who may sign for which host")
    parser.add_argument("--history", help="folder of earlier nights' matrix.json")
    parser.add_argument("--night", help="tonight's name, YYYY-MM-DD (default: today, UTC)")
    parser.add_argument("--max-age", type=whole(1, 36500), default=window.MAX_AGE,
                        help=f"days before the merge a run may have begun and still fill a row "
                             f"(default {window.MAX_AGE}; an older or a future run is set aside)")
    parser.add_argument("--flaky-window", type=whole(2, 365), default=history.FLAKY_WINDOW,
                        help=f"nights (tonight included) the flaky rule looks at (default {history.FLAKY_WINDOW})")
    parser.add_argument("--stale-after", type=whole(1, 365), default=history.STALE_AFTER,
                        help=f"nights without a report before a host is stale (default {history.STALE_AFTER})")
    parser.add_argument("--jobs", type=whole(1, 64), default=min(4, os.cpu_count() or 1),
                        help="worker processes that open packages (default: cores, at most 4)")
    parser.add_argument("--no-html", action="store_true", help="skip fleet.html")
    args = parser.parse_args(argv)
    if args.night is None:
        args.night = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    if not history.is_night(args.night):
        raise InputError(f"--night {args.night!r}: expected YYYY-MM-DD, a real date")
    if not args.packages and not args.tasks:
        raise InputError("nothing to merge: name packages or --tasks")
    for path in args.packages:
        if not os.path.isfile(path):
            raise InputError(f"{path}: no such package")
    if args.allowed_signers is not None:
        signing.check_allowed_signers(args.allowed_signers)
    return args


def work_items(args):
    """[(task or None, package path or None)]: every task, then every package
    no task named."""
    items, named = [], set()
    for task in tasks.read(args.tasks) if args.tasks else []:
        path = task.package if task.package and os.path.isfile(task.package) else None
        if path:
            named.add(os.path.realpath(path))
        items.append((task, path))
    for path in args.packages:
        if os.path.realpath(path) not in named:
            named.add(os.path.realpath(path))
            items.append((None, path))
    return items


def _open(item, allowed_signers, night_window):
    task, path = item
    package = packages.open_package(path, allowed_signers, task.host if task else None) if path else None
    if task:
        host, build = task.host, task.build
    else:
        host = package.host or printable(os.path.basename(path))
        build = results.libtorch_of(package.context) or "unknown"
    if package and not package.trust_problems:
        late = night_window.problem(package.run_id)
        if late:
            package.trust_problems.append(late)
    return matrix.row(host, build, task, package)


def _worker(job):
    return _open(*job)


def digest_of(row):
    roots = tuple(sorted((check, device) for device, by_check in row["cells"].items()
                         for check, cell in by_check.items()
                         if cell["status"] == results.FAILED and not cell.get("root_cause")))
    ran = frozenset(check for by_check in row["cells"].values() for check, cell in by_check.items()
                    if cell["status"] != results.SKIPPED)
    why = row["problems"][0] if row["problems"] else row.get("reason") or ""
    return signatures.Digest(
        host=row["host"], build=row["build"], trust=row["trust"], state=row.get("state") or "",
        why=why, counts=row["counts"], roots=roots, ran=ran,
        drivers={d: info["driver"] for d, info in row["devices"].items()},
        names={d: info["name"] for d, info in row["devices"].items()})


class FailingCells:
    """(check, device) -> hosts failing it, and a message: the fleet grid."""

    def __init__(self):
        self.cells = defaultdict(lambda: {"hosts": [], "message": "", "root": False})

    def add(self, row):
        for device, by_check in row["cells"].items():
            for check, cell in by_check.items():
                if cell["status"] == results.FAILED:
                    entry = self.cells[(check, device)]
                    entry["hosts"].append(f"{row['host']} ({row['build']})")
                    entry["message"] = entry["message"] or cell["message"]
                    entry["root"] = entry["root"] or not cell.get("root_cause")
                    entry.setdefault("root_cause", cell.get("root_cause"))

    def listed(self):
        return [{"check": check, "device": device, "count": len(e["hosts"]), "hosts": sorted(e["hosts"]),
                 "message": e["message"], "root_cause": None if e["root"] else e.get("root_cause")}
                for (check, device), e in sorted(self.cells.items())]


class Candidates:
    """Which row of each host and build holds its results: the newest
    verified run. Rows are spilled to an unnamed temporary file as they come
    (a 1,000-host merge never holds them all; on disk, not /dev/shm: it can
    be large), judged, then read back in their order. An older verified run
    is listed (matrix.json's `contested`, the merge's output) and left out
    of the rows, so a retried node's two packages leave one row; one that is
    a Slurm task's stays a row, unverified (every task is a row)."""

    def __init__(self):
        self.spill = tempfile.TemporaryFile(prefix="tdc-merge-rows-")
        self.by_key = defaultdict(list)     # (host, build) -> [(order, verified, run_id, package, why, task)]
        self.count = 0

    def add(self, row):
        pickle.dump(row, self.spill, protocol=pickle.HIGHEST_PROTOCOL)
        self.by_key[(row["host"], row["build"])].append(
            (self.count, row["trust"] == "verified", row.get("run_id") or "", row["package"],
             (row["problems"] or [row.get("reason") or row["trust"]])[0][:200], row["state"] is not None))
        self.count += 1

    def judge(self):
        """({order: why it is set aside}, {orders left out}, [(key, winner, [(package, why)])])."""
        aside, left_out, contested = {}, set(), []
        for key, entries in self.by_key.items():
            if len(entries) < 2:
                continue
            verified = [e for e in entries if e[1]]
            # The newest run (a run id begins with its UTC time); of one run, the first named.
            winner = max(verified, key=lambda e: (e[2], -e[0])) if verified else None
            others = []
            for entry in entries:
                if winner and entry is not winner and entry[1]:
                    aside[entry[0]] = (f"another package for host {key[0]!r} build {key[1]!r} is a newer "
                                       f"verified run ({winner[2]}): {winner[3]}; this one is run {entry[2]}")
                    if not entry[5]:
                        left_out.add(entry[0])
                    others.append((entry[3], f"older verified run {entry[2]}"
                                             + (", its task's row unverified" if entry[5] else ", not a row")))
                elif entry is not winner:
                    others.append((entry[3], f"{'unverified' if entry[3] else 'no package'}: {entry[4]}"))
            contested.append((key, winner, others))
        return aside, left_out, contested

    def rows(self, aside, left_out):
        self.spill.seek(0)
        for order in range(self.count):
            row = pickle.load(self.spill)
            if order in left_out:
                continue
            if order in aside:
                set_aside(row, aside[order])
            yield row

    def close(self):
        self.spill.close()


def set_aside(row, why):
    """A verified row that may not fill its host's row: unverified, its results not merged."""
    row.update(trust="unverified", verified=False, cells={}, benchmarks={}, devices={},
               counts=results.counts(), problems=[why] + row["problems"])


def merge(args):
    started = time.monotonic()
    render = None
    if not args.no_html:
        from tdc.report import fleet as render  # needs jinja2: refused now, not after the work
        render.check_requirements()
    items = work_items(args)
    if not items:
        raise InputError("nothing to merge: the tasks file lists no task and no package is named")
    earlier = history.load(args.history, args.night, args.flaky_window, args.stale_after) \
        if args.history else None
    comparison = history.Comparison(earlier.nights, args.night, args.flaky_window, args.stale_after) \
        if earlier else None
    night_window = window.Window(args.max_age)
    os.makedirs(args.out, exist_ok=True)
    header = {"night": args.night,
              "generated_at": night_window.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
              "provenance": "signatures checked against " + os.path.abspath(args.allowed_signers)
              if args.allowed_signers else "not checked: no --allowed-signers (integrity only)",
              "window": night_window.rule()}
    candidates = Candidates()
    jobs = [(item, args.allowed_signers, night_window) for item in items]
    pool = multiprocessing.get_context("fork").Pool(args.jobs) if args.jobs > 1 and len(jobs) > 4 else None
    try:
        for row in pool.imap(_worker, jobs, chunksize=4) if pool else map(_worker, jobs):
            replayed = earlier.run_ids.get(row.get("run_id")) if earlier and row["trust"] == "verified" else None
            if replayed:
                set_aside(row, f"replayed: run {row['run_id']} was already merged on night {replayed} "
                               f"(--history): a run fills one night's row")
            candidates.add(row)
    except BaseException:
        candidates.close()
        raise
    finally:
        if pool:
            pool.terminate()
    aside, left_out, contested = candidates.judge()
    writer = matrix.Writer(os.path.join(args.out, "matrix.json"), header)
    junit = junit_out.Writer(os.path.join(args.out, "junit.xml"), f"tdc fleet {args.night}")
    digests, collector, failing = [], outliers.Collector(), FailingCells()
    totals = {"rows": 0, "verified": 0, "unverified": 0, "no_package": 0, "tasks": 0,
              **results.counts()}
    try:
        for row in candidates.rows(aside, left_out):
            if comparison:
                comparison.add(row)
            writer.add(row)
            junit.add(row)
            digests.append(digest_of(row))
            collector.add(row["host"], row["build"], row["benchmarks"], digests[-1].names)
            failing.add(row)
            totals["rows"] += 1
            totals["tasks"] += row["state"] is not None
            totals[row["trust"].replace(" ", "_")] += 1
            for status, n in row["counts"].items():
                totals[status] += n
    except BaseException:
        writer.abandon()
        junit.abandon()
        raise
    finally:
        candidates.close()
    judged = signatures.findings(digests)
    flags = collector.flagged()
    report = comparison.report() if comparison else None
    if report is not None:
        report.update(skipped=earlier.skipped, older_nights=earlier.older)
    tail = {
        "totals": totals,
        "contested": [{"host": key[0], "build": key[1], "kept": winner[3] if winner else None,
                       "kept_run_id": winner[2] if winner else None,
                       "set_aside": [{"package": package, "why": why} for package, why in others]}
                      for key, winner, others in contested],
        "signatures": signatures.groups(digests, judged),
        "findings": sorted(judged.values(), key=lambda f: (signatures.KINDS.index(f["kind"]),
                                                            -len(f["failing_hosts"]), f["check"])),
        "failing_cells": failing.listed(),
        "outliers": {"rule": outliers.RULE, "series_checked": collector.series_checked(),
                     "devices": outliers.by_device(flags), "series": flags},
        "history": report,
        "merge_seconds": round(time.monotonic() - started, 2),
    }
    try:
        writer.close(tail)
        junit.close()
    except BaseException:  # a full disk: one line naming the file (the writers), no temporary file left
        writer.abandon()
        junit.abandon()
        raise
    document = {"schema_version": matrix.SCHEMA_VERSION, "kind": matrix.KIND, **header, **tail}
    html = render.write(args.out, document, digests, collector) if render else None  # names its file when the disk is full
    print_summary(document, args.out, html, args.history)
    clean = totals["rows"] == totals["verified"] and not totals[results.FAILED]
    return 0 if clean else 1


SHOWN = 8  # lines of each kind the summary prints; matrix.json holds them all


def history_lines(document, directory):
    """What changed against which night, and each history file skipped and why."""
    found = document["history"]
    if found is None:
        return ["merge: no earlier night compared (no --history): nothing is called newly failing or fixed"]
    lines = [f"merge: history: skipped {printable(s['path'])}: {s['why']}" for s in found["skipped"]]
    if found["older_nights"]:
        keep = max(found["flaky_window"], found["stale_after"] + 1)
        lines.append(f"merge: history: {found['older_nights']} older night(s) not read (the last {keep} are)")
    if found["compared_with"] is None:
        lines.append(f"merge: no earlier night compared: --history {printable(directory)} holds no readable "
                     f"matrix of a night before {document['night']}; nothing is called newly failing or fixed")
        return lines
    counts = ", ".join(f"{sum(item['count'] for item in found[key])} {label}" for key, label in (
        ("newly_failing", "newly failing"), ("fixed", "fixed"), ("still_failing", "still failing"),
        ("flaky", "flaky"), ("newly_skipped", "newly skipped")))
    lines.append(f"merge: vs {found['compared_with']}: {counts}, {len(found['stale_hosts'])} stale host(s) "
                 f"({len(found['nights'])} earlier night(s) read; counts are host x check x device)")
    return lines


def print_summary(document, out, html, directory=None):
    t = document["totals"]
    print(f"merge: {t['rows']} rows ({t['verified']} verified, {t['unverified']} unverified, "
          f"{t['no_package']} without a package), {t['failed']} failed cells, "
          f"{document['merge_seconds']} s; provenance {printable(document['provenance'])}")
    for entry in document["contested"][:SHOWN]:
        kept = (f"kept the newest verified run {entry['kept_run_id']} ({entry['kept']})" if entry["kept"]
                else "none verified")
        others = "; ".join(f"{item['package']} ({item['why']})" for item in entry["set_aside"])
        print(printable(f"merge: {len(entry['set_aside']) + bool(entry['kept'])} packages for "
                        f"{entry['host']} ({entry['build']}): {kept}; set aside: {others}"))
    if len(document["contested"]) > SHOWN:
        print(f"merge: and {len(document['contested']) - SHOWN} more host(s) with several packages (matrix.json)")
    for line in history_lines(document, directory):
        print(line)
    for group in document["signatures"][:SHOWN]:
        print(printable(f"  {group['count']:5d} host(s): {group['title']}"))
    for entry in document["outliers"]["devices"][:SHOWN]:
        print(printable(f"  outlier: {entry['message']}"))
    print(printable(f"merge: wrote {os.path.join(out, 'matrix.json')}, {os.path.join(out, 'junit.xml')}"
                    + (f", {html}" if html else "")))


def main(argv=None):
    return run_main("merge", lambda a: merge(parse_args(a)), argv)


if __name__ == "__main__":
    sys.exit(main())
