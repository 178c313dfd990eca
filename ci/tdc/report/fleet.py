"""The fleet report: DIR/fleet.html from a merged matrix (ci/merge writes it).

Hosts grouped by failure signature, each root-cause failure judged a node
fault or a build-wide failure, a check x device grid of how many hosts fail, what
changed against earlier nights, the performance outliers with charts of
their peers, and every row folded at the end: at 1,000 hosts the page reads
as its signatures, not as a 1,000-row grid."""
import os

from tdc.fleet import signatures
from tdc.report import charts, render

COUNTS = (("rows", "rows"), ("verified", "verified"), ("unverified", "unverified"),
          ("no_package", "no package"), ("failed", "failed cells"), ("passed", "passed cells"))
HISTORY = (("newly_failing", "Newly failing"), ("fixed", "Fixed"), ("still_failing", "Still failing"),
           ("flaky", "Flaky"), ("newly_skipped", "Newly skipped"), ("stale_hosts", "Stale hosts"))
CHARTS = 6


def check_requirements():
    render.check_requirements()
    charts.check_requirements()


def write(out_dir, document, digests, collector=None):
    check_requirements()
    return render.write(os.path.join(out_dir, "fleet.html"),
                        render.render("fleet.html.j2", **view(document, digests, collector)))


def view(document, digests, collector=None):
    groups = []
    for group in document["signatures"]:
        kinds = sorted({item["kind"] for item in group["items"] if item.get("kind")},
                       key=signatures.KINDS.index)
        groups.append({**group, "kinds": kinds})
    grid, details = {}, {}
    for cell in document["failing_cells"]:
        key = f"{cell['device']}|{cell['check']}"
        grid[key] = cell
        status = f"failed on {cell['count']} host(s)"
        if cell.get("root_cause"):
            status += f": prerequisite failed (checked by {cell['root_cause']})"
        details[key] = {"title": f"{cell['check']} on {cell['device']}", "status": status,
                        "message": cell["message"], "items": cell["hosts"]}
    from tdc.report.run import device_order
    devices = sorted({c["device"] for c in document["failing_cells"]}, key=device_order)
    checks = sorted({c["check"] for c in document["failing_cells"]})
    totals = document["totals"]
    return {"kind": "fleet", "title": f"TDC fleet, night of {document['night']}",
            "subtitle": f"{totals['rows']} rows · merged {document['generated_at']} in "
                        f"{document['merge_seconds']} s",
            "count_labels": COUNTS, "totals": totals, "provenance": document["provenance"],
            "signatures": groups, "findings": document["findings"],
            "finding_rules": signatures.RULES,
            "grid": grid, "cells": details, "fail_devices": devices, "fail_checks": checks,
            "history": document.get("history"), "history_sections": HISTORY, "night": document["night"],
            "outliers": document["outliers"], "outlier_charts": outlier_charts(document, collector),
            "rows": sorted(digests, key=lambda d: (d.trust == "verified", not d.roots, d.host, d.build))}


def outlier_charts(document, collector):
    if collector is None:
        return []
    found = []
    for entry in document["outliers"]["devices"][:CHARTS]:
        members = collector.groups.get((entry["model"], entry["template"]), [])
        flagged = {f"{f['device']} on {f['host']}" for f in document["outliers"]["series"]
                   if f["template"] == entry["template"] and f["model"] == entry["model"]}
        title = f"{entry['template']} ({entry['model']}): {entry['device']} on {entry['host']}"
        found.append({"title": title, "uri": charts.peers(
            title, [(f"{device} on {host}", rate) for host, _, device, rate in members], flagged,
            entry["median"])})
    return found
