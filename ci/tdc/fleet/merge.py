"""ci/merge: many hosts' packages into one fleet matrix, JUnit file and report.

  ci/merge PACKAGE... --out DIR [--tasks FILE] [--allowed-signers FILE]
           [--history DIR] [--night YYYY-MM-DD] [--flaky-window N] [--stale-after N]
           [--jobs N] [--no-html]

Every package is verified first (ci/verify's checks, as functions, in --jobs
worker processes); one that fails the trust checks (tdc.fleet.packages) is a
row "unverified" with why, and its results are not merged. --tasks is the
Slurm job's task list (tdc.fleet.tasks): every task is a row, one without a
package shows its state. --allowed-signers checks each package's signature
against the host it claims (tdc.fleet.signing).

Writes to DIR: matrix.json (schema ci/tdc/schemas/matrix.schema.json,
docs/fleet.md), junit.xml (one suite per row, "tdc/<host>/<build>") and
fleet.html (tdc.report). With --history, earlier nights' matrices give what
is new, fixed, still failing, flaky and stale (tdc.fleet.history).

Exit status: 0 every row verified and nothing failed; 1 a row failed, is
unverified or has no package; 2 bad input (one line)."""
import datetime
import multiprocessing
import os
import re
import sys
import time
from collections import defaultdict

from tdc.fleet import history, junit_out, matrix, outliers, packages, signatures, signing, tasks, upstream
from tdc.fleet.upstream import InputError


def parse_args(argv):
    parser = upstream.Parser("merge", __doc__)
    parser.add_argument("packages", nargs="*", help="tdc-*.tar.gz packages (ci/package)")
    parser.add_argument("--out", required=True, help="folder for matrix.json, junit.xml, fleet.html")
    parser.add_argument("--tasks", help="the Slurm job's task list (JSON)")
    parser.add_argument("--allowed-signers", help="OpenSSH allowed_signers: who may sign for which host")
    parser.add_argument("--history", help="folder of earlier nights' matrix.json")
    parser.add_argument("--night", help="tonight's name, YYYY-MM-DD (default: today, UTC)")
    parser.add_argument("--flaky-window", type=upstream.whole(2, 365), default=history.FLAKY_WINDOW,
                        help=f"nights (tonight included) the flaky rule looks at (default {history.FLAKY_WINDOW})")
    parser.add_argument("--stale-after", type=upstream.whole(1, 365), default=history.STALE_AFTER,
                        help=f"nights without a report before a host is stale (default {history.STALE_AFTER})")
    parser.add_argument("--jobs", type=upstream.whole(1, 64), default=min(4, os.cpu_count() or 1),
                        help="worker processes that open packages (default: cores, at most 4)")
    parser.add_argument("--no-html", action="store_true", help="skip fleet.html")
    args = parser.parse_args(argv)
    args.night = args.night or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", args.night):
        raise InputError(f"--night {args.night!r}: expected YYYY-MM-DD")
    if not args.packages and not args.tasks:
        raise InputError("nothing to merge: name packages or --tasks")
    for path in args.packages:
        if not os.path.isfile(path):
            raise InputError(f"{path}: no such package")
    if args.allowed_signers:
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


def _open(item, allowed_signers):
    task, path = item
    package = packages.open_package(path, allowed_signers) if path else None
    if task:
        host, build = task.host, task.build
    else:
        host = package.host or os.path.basename(path)
        build = matrix.libtorch_of(package.context) or "unknown"
    return matrix.row(host, build, task, package)


def _worker(job):
    return _open(*job)


def digest_of(row):
    roots = tuple(sorted((check, device) for device, by_check in row["cells"].items()
                         for check, cell in by_check.items()
                         if cell["status"] == "failed" and not cell.get("root_cause")))
    ran = frozenset(check for by_check in row["cells"].values() for check, cell in by_check.items()
                    if cell["status"] != "skipped")
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
                if cell["status"] == "failed":
                    entry = self.cells[(check, device)]
                    entry["hosts"].append(f"{row['host']} ({row['build']})")
                    entry["message"] = entry["message"] or cell["message"]
                    entry["root"] = entry["root"] or not cell.get("root_cause")
                    entry.setdefault("root_cause", cell.get("root_cause"))

    def listed(self):
        return [{"check": check, "device": device, "count": len(e["hosts"]), "hosts": sorted(e["hosts"]),
                 "message": e["message"], "root_cause": None if e["root"] else e.get("root_cause")}
                for (check, device), e in sorted(self.cells.items())]


def merge(args):
    started = time.monotonic()
    render = None
    if not args.no_html:
        from tdc.report import fleet as render  # needs jinja2: refused now, not after the work
        render.check_requirements()
    items = work_items(args)
    if not items:
        raise InputError("nothing to merge: the tasks file lists no task and no package is named")
    nights = history.load(args.history, args.night, args.flaky_window, args.stale_after) \
        if args.history else []
    comparison = history.Comparison(nights, args.night, args.flaky_window, args.stale_after) \
        if args.history else None
    os.makedirs(args.out, exist_ok=True)
    header = {"night": args.night,
              "generated_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "provenance": "signatures checked against " + os.path.abspath(args.allowed_signers)
              if args.allowed_signers else "not checked: no --allowed-signers (integrity only)"}
    writer = matrix.Writer(os.path.join(args.out, "matrix.json"), header)
    junit = junit_out.Writer(os.path.join(args.out, "junit.xml"), f"tdc fleet {args.night}")
    digests, seen, collector, failing = [], {}, outliers.Collector(), FailingCells()
    totals = {"rows": 0, "verified": 0, "unverified": 0, "no_package": 0, "tasks": 0,
              **dict.fromkeys(matrix.STATUSES, 0)}
    jobs = [(item, args.allowed_signers) for item in items]
    pool = multiprocessing.get_context("fork").Pool(args.jobs) if args.jobs > 1 and len(jobs) > 4 else None
    try:
        rows = pool.imap(_worker, jobs, chunksize=4) if pool else map(_worker, jobs)
        for row in rows:
            key = (row["host"], row["build"])
            if key in seen and row["trust"] == "verified":
                row.update(trust="unverified", verified=False, cells={}, benchmarks={},
                           counts=dict.fromkeys(matrix.STATUSES, 0),
                           problems=[f"another package for host {key[0]!r} build {key[1]!r} came "
                                     f"first: {seen[key]}"])
            seen.setdefault(key, row["package"])
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
        if pool:
            pool.terminate()
    judged = signatures.findings(digests)
    flags = collector.flagged()
    tail = {
        "totals": totals,
        "signatures": signatures.groups(digests, judged),
        "findings": sorted(judged.values(), key=lambda f: (signatures.KINDS.index(f["kind"]),
                                                            -len(f["failing_hosts"]), f["check"])),
        "failing_cells": failing.listed(),
        "outliers": {"rule": outliers.RULE, "series_checked": collector.series_checked(),
                     "devices": outliers.by_device(flags), "series": flags},
        "history": comparison.report() if comparison else None,
        "merge_seconds": round(time.monotonic() - started, 2),
    }
    writer.close(tail)
    junit.close()
    document = {"schema_version": matrix.SCHEMA_VERSION, "kind": matrix.KIND, **header, **tail}
    html = render.write(args.out, document, digests, collector) if render else None
    print_summary(document, args.out, html)
    clean = totals["rows"] == totals["verified"] and not totals["failed"]
    return 0 if clean else 1


def print_summary(document, out, html):
    t = document["totals"]
    print(f"merge: {t['rows']} rows ({t['verified']} verified, {t['unverified']} unverified, "
          f"{t['no_package']} without a package), {t['failed']} failed cells, "
          f"{document['merge_seconds']} s; provenance {document['provenance']}")
    for group in document["signatures"][:8]:
        print(f"  {group['count']:5d} host(s): {group['title']}")
    for entry in document["outliers"]["devices"][:8]:
        print(f"  outlier: {entry['message']}")
    print(f"merge: wrote {os.path.join(out, 'matrix.json')}, {os.path.join(out, 'junit.xml')}"
          + (f", {html}" if html else ""))


def main(argv=None):
    return upstream.run_main("merge", lambda a: merge(parse_args(a)), argv)


if __name__ == "__main__":
    sys.exit(main())
