"""The report of one run: RESULTS_DIR/report.html from summary.json,
context.json and bench/ (what ci/conformance leaves).

  ci/report RESULTS_DIR [--out FILE]
It has the run's counts; "What to add" (one line per root cause, most
failures first, each with its fix and docs/backends.md section) and the
missing kernels (kernel, the checks that needed it, the fix); failures by
root cause, dependents folded under them; a device x check grid coloured by status (a cell folds the check's
instances on that device, as in the fleet matrix), whose cells show their
message and tests when clicked; per device, whether its ordering checks
observed ordering (tdc.ordering); the waivers applied with tracker and expiry;
bandwidth and latency charts per device; the environment; every test.
Exit status 0 (prints the path), 2 bad input (one line)."""
import json
import os
import re
import sys

from tdc import expectation
from tdc.fleet import matrix, upstream
from tdc.fleet.upstream import InputError
from tdc.report import charts, render

STATUSES = ("passed", "failed", "skipped", "known_failure")


def check_requirements():
    render.check_requirements()
    charts.check_requirements()


def _read_json(path, what, required=True):
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except FileNotFoundError:
        if required:
            raise InputError(f"{path}: no {what} (is this a results folder?)")
        return None
    except OSError as error:
        raise InputError(f"{path}: cannot read {what} ({error.strerror})")
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: {what} is not JSON ({upstream.one_line(error)})")
    if not isinstance(value, dict):
        raise InputError(f"{path}: {what} is not a JSON object")
    return value


def device_order(device):
    """host first, then cpu, then devices by type and index, expectations last."""
    match = re.fullmatch(r"([a-z0-9_]+):(\d+)", device)
    if device == "host":
        return (0, "", 0)
    if device == "cpu":
        return (1, "", 0)
    if match:
        return (2, match.group(1), int(match.group(2)))
    return (3, device, 0)


def flatten(value, prefix=""):
    if isinstance(value, dict):
        pairs = []
        for key, inner in value.items():
            pairs += flatten(inner, f"{prefix}.{key}" if prefix else str(key))
        return pairs
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            return [(prefix, ", ".join(str(v) for v in value))]
        pairs = []
        for index, inner in enumerate(value):
            pairs += flatten(inner, f"{prefix}[{index}]")
        return pairs
    return [(prefix, "" if value is None else str(value))]


def environment_line(context):
    """host, OS, LibTorch and the devices, for the folded environment."""
    devices = matrix.devices_of(context)
    named = ", ".join(f"{d} {info['name']}" + (f" (driver {info['driver']})" if info["driver"] else "")
                      for d, info in sorted(devices.items(), key=lambda item: device_order(item[0])))
    return " · ".join(part for part in (str(context.get("host") or ""), str(context.get("os") or ""),
                                        f"LibTorch {matrix.libtorch_of(context)}", named) if part)


def waivers_of(tests):
    """Each waived test with its waiver's origin, category, tracker and expiry
    (the expiry is read from the waiver file's line, when this tree has it)."""
    pattern = upstream.packaging.KNOWN_FAILURE
    found = []
    for test in tests:
        if test.get("status") != "known_failure":
            continue
        message = str(test.get("message") or "")
        match = pattern.match(message)
        origin = match.group("origin") if match else ""
        found.append({"test": test.get("name"), "device": test.get("device", ""), "origin": origin,
                      "category": match.group("category") if match else None,
                      "tracker": match.group("tracker") if match else None,
                      "expires": _expiry(origin), "reason": message.split("): ", 1)[-1]})
    return found


def _expiry(origin):
    """'<file>:<line>' -> the line's seventh field (YYYY-MM-DD), if any."""
    path, _, line = origin.rpartition(":")
    if not line.isdigit():
        return None
    full = path if os.path.isabs(path) else os.path.join(upstream.ROOT, path)
    try:
        with open(full, encoding="utf-8") as f:
            for number, text in enumerate(f, 1):
                if number == int(line):
                    fields = [field.strip() for field in text.split("|")]
                    return fields[6] if len(fields) > 6 and fields[6] else None
    except (OSError, UnicodeDecodeError):
        return None
    return None


def root_causes(summary, tests):
    """summary.json's failures by root cause, one entry per failing check:
    the devices it failed on, its first message, the dependents of all."""
    by_name = {t.get("name"): t for t in tests}
    groups = summary.get("failures_by_root_cause")
    if not isinstance(groups, list):
        groups = [{"root_cause": t["name"], "message": t.get("message", ""), "dependents": []}
                  for t in tests if t.get("status") == "failed" and not t.get("prerequisite")]
    listed = {}
    for group in groups:
        if not isinstance(group, dict):
            continue
        name = str(group.get("root_cause"))
        test = by_name.get(name, {"name": name})
        entry = listed.setdefault(matrix.check_of(test), {
            "check": matrix.check_of(test), "tests": [], "devices": [], "dependents": [],
            "message": test.get("message") or group.get("message") or "(no message recorded)"})
        entry["tests"].append(name)
        if test.get("device") and test["device"] not in entry["devices"]:
            entry["devices"].append(test["device"])
        entry["dependents"] += [str(d) for d in group.get("dependents", [])]
    return list(listed.values())


def what_to_add_of(summary):
    """summary.json's "What to add" (tdc.summarize.what_to_add): the report's
    first table. A summary without one (an older TDC) has none."""
    entries = summary.get("what_to_add")
    return [e for e in entries if isinstance(e, dict) and e.get("fix")] if isinstance(entries, list) else []


def missing_kernels(summary, tests):
    """One row per kernel the run's root causes found missing: the kernel,
    the checks that needed it, the fix."""
    by_name = {t.get("name"): t for t in tests}
    rows = []
    groups = summary.get("failures_by_root_cause")
    for group in groups if isinstance(groups, list) else []:
        if not isinstance(group, dict) or not group.get("kernel"):
            continue
        names = [str(group.get("root_cause"))] + [str(d) for d in group.get("dependents", [])]
        checks = sorted({matrix.check_of(by_name.get(n, {"name": n})) for n in names})
        rows.append({"kernel": group["kernel"], "checks": checks,
                     "fix": by_name.get(group.get("root_cause"), {}).get("message") or group.get("message", "")})
    return rows


def ordering_of(summary):
    """[(device, what its ordering checks saw)] from summary.json's devices,
    in device order; a device without `ordering` (none of them ran) is left out."""
    devices = summary.get("devices") if isinstance(summary.get("devices"), dict) else {}
    found = [(d, entry["ordering"]) for d, entry in devices.items()
             if isinstance(entry, dict) and isinstance(entry.get("ordering"), str)]
    return sorted(found, key=lambda item: device_order(item[0]))


def bench_results(results_dir):
    reader = upstream.bench_results
    found = []
    bench = os.path.join(results_dir, "bench")
    for name in sorted(os.listdir(bench)) if os.path.isdir(bench) else []:
        if name.endswith(".json"):
            try:
                found += reader.load(os.path.join(bench, name))[1]
            except InputError:
                continue
    return found


def view(results_dir):
    summary = _read_json(os.path.join(results_dir, "summary.json"), "summary.json")
    context = _read_json(os.path.join(results_dir, "context.json"), "context.json", required=False) \
        or (summary.get("context") if isinstance(summary.get("context"), dict) else {})
    tests = [t for t in summary.get("tests", []) if isinstance(t, dict) and isinstance(t.get("name"), str)]
    if not tests:
        raise InputError(f"{results_dir}/summary.json has no tests: nothing to report")
    totals = {status: sum(1 for t in tests if t.get("status") == status) for status in STATUSES}
    problems = []
    recorded = summary.get("totals") if isinstance(summary.get("totals"), dict) else {}
    if recorded and any(recorded.get(s, 0) != totals[s] for s in STATUSES):
        problems.append(f"summary.json's totals {recorded} differ from its tests {totals}")
    cells = matrix.cells_of(tests)
    devices = sorted(cells, key=device_order)
    checks = sorted({check for by_check in cells.values() for check in by_check})
    instances = {}
    for test in tests:
        key = f"{test.get('device') or 'host'}|{matrix.check_of(test)}"
        text = f"{test['name']}: {str(test.get('status')).replace('_', ' ')}"
        if test.get("message"):
            text += f": {test['message']}"
        instances.setdefault(key, []).append(text)
    grid, details = {}, {}
    for device, by_check in cells.items():
        for check, cell in by_check.items():
            key = f"{device}|{check}"
            grid[key] = cell
            status = cell["status"].replace("_", " ")
            if cell.get("root_cause"):
                status += f": prerequisite failed (checked by {cell['root_cause']})"
            details[key] = {"title": f"{check} on {device}", "status": status,
                            "message": cell.get("message", ""), "items": instances.get(key, [])}
    results = bench_results(results_dir)
    errors = [r for r in results if r.error]
    why = "no benchmark results in bench/ (ci/conformance --bench=off?)"
    if errors:
        why = (f"{len(errors)} of {len(results)} benchmark series reported an error, e.g. "
               f"{errors[0].run_name}: {upstream.one_line(errors[0].error)}")
    bench_charts = {"bandwidth": charts.bandwidth(results), "latency": charts.latency(results), "why": why}
    git = context.get("git") if isinstance(context.get("git"), dict) else {}
    libtorch = matrix.libtorch_of(context)
    subtitle = " · ".join(str(part) for part in (
        f"level {context.get('level')}" if context.get("level") else None,
        f"LibTorch {libtorch}" if libtorch else None,
        f"suite {context.get('suite_version')}" if context.get("suite_version") else None,
        f"commit {str(git.get('commit') or '')[:12]}{' (dirty)' if git.get('dirty') else ''}" if git else None,
        f"{summary.get('wall_seconds')} s" if summary.get("wall_seconds") is not None else None) if part)
    return {"kind": "run", "title": f"TDC run on {context.get('host') or 'unknown host'}",
            "subtitle": subtitle, "caveat": expectation.of_context(context), "statuses": STATUSES, "totals": totals, "tests": tests,
            "problems": problems, "what_to_add": what_to_add_of(summary),
            "missing_kernels": missing_kernels(summary, tests),
            "root_causes": root_causes(summary, tests), "devices": devices,
            "checks": checks, "grid": grid, "cells": details, "waivers": waivers_of(tests),
            "ordering": ordering_of(summary), "ordering_observed": upstream.ordering.OBSERVED,
            "charts": bench_charts, "environment": flatten(context),
            "environment_line": environment_line(context)}


def write_run_report(results_dir, out=None):
    """Writes the run's report (RESULTS_DIR/report.html unless out) and returns its path."""
    check_requirements()
    path = out or os.path.join(results_dir, "report.html")
    return render.write(path, render.render("run.html.j2", **view(results_dir)))


def main(argv=None):
    def body(args):
        parser = upstream.Parser("report", __doc__)
        parser.add_argument("results", help="a results folder (summary.json, context.json, bench/)")
        parser.add_argument("--out", help="the HTML file to write, or a folder to write report.html into "
                                          "(default RESULTS/report.html)")
        options = parser.parse_args(args)
        if not os.path.isdir(options.results):
            raise InputError(f"{options.results}: not a results folder")
        out = options.out
        if out and os.path.isdir(out):   # `--out /tmp`: the page goes in it, never beside it as /tmp.tmp
            out = os.path.join(out, "report.html")
        elif out and not os.path.isdir(os.path.dirname(os.path.abspath(out))):
            raise InputError(f"--out {out}: folder {os.path.dirname(os.path.abspath(out))} does not exist")
        print(write_run_report(options.results, out))
        return 0
    return upstream.run_main("report", body, argv)


if __name__ == "__main__":
    sys.exit(main())
