"""The report of one run: RESULTS_DIR/report.html from summary.json,
context.json and bench/ (what ci/conformance leaves).

  tdc report RESULTS_DIR [--out FILE]
It has the run's counts; "What to add" (one line per root cause, most
failures first, each with its fix and docs/backends.md section) and the
missing kernels (kernel, the checks that needed it, the fix); failures by
root cause, dependents folded under them; a device x check grid coloured by status (a cell folds the check's
instances on that device, as in the fleet matrix), whose cells show their
message and tests when clicked; per device, whether its ordering checks
observed ordering (tdc.ordering); the waivers applied with tracker and expiry;
bandwidth, collectives' bus bandwidth (busbw, per collective, size, device
type and world) and latency charts per device; the environment; every test.
Exit status 0 (prints the path), 2 bad input (one line)."""
import json
import os
import re
import sys

from tdc import ROOT, expectation, names, ordering, packaging, results
from tdc.bench import results as bench_reader
from tdc.bench import thresholds as bench_thresholds
from tdc.cli import Parser, run_main
from tdc.errors import InputError, one_line
from tdc.report import charts, render

# A message longer than this is cut in the page, with a pointer to
# summary.json, which keeps it whole: 1 MB messages made an 8 MB page.
MESSAGE_CAP = 4000
# The seed's four lines (device_select: suites/device_select), which
# ci/conformance keeps in the results folder as SEED_FILE.
SEED_FILE = "device_select.txt"
SEED_KEYS = ("selected_device", "model_device", "input_device", "output_device")
# The backend TDC brings as its reference (the loopback): its devices are
# labelled as such, never read as the node's hardware.
REFERENCE = "loopback"


def capped(message, cap=MESSAGE_CAP):
    text = str(message or "")
    if len(text) <= cap:
        return text
    return text[:cap] + f" … ({len(text) - cap} more characters: the whole message is in summary.json)"


def seed_of(results_dir):
    """{key: value} of the seed's report (device_select's lines), or None
    when the run kept none (tdc report on an older run, `tdc run` alone)."""
    try:
        with open(os.path.join(results_dir, SEED_FILE), encoding="utf-8", errors="replace") as f:
            text = f.read(65536)
    except OSError:
        return None
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and re.fullmatch(r"[a-z_]+", key) and key not in values:
            values[key] = value
    return values


def skip_reasons(tests):
    """[(reason, count, example devices)] of the skipped tests, most first."""
    reasons = {}
    for test in tests:
        if test.get("status") != results.SKIPPED:
            continue
        reason = capped(str(test.get("message") or "(no reason recorded)").splitlines()[0]
                        if test.get("message") else "(no reason recorded)", 400)
        entry = reasons.setdefault(reason, {"reason": reason, "count": 0, "devices": []})
        entry["count"] += 1
        device = str(test.get("device") or "host")
        if device not in entry["devices"]:
            entry["devices"].append(device)
    return sorted(reasons.values(), key=lambda e: (-e["count"], e["reason"]))


def labelled(tests):
    """The tests as the page's grid shows them: a reference (twin) result on
    a device of its own, "loopback:0 (reference)"."""
    return [dict(t, device=f"{t.get('device') or 'host'} (reference)") if t.get("twin") else t for t in tests]


def bench_table(results):
    """The numbers the console prints, one row per benchmark series."""
    rows = []
    for r in results:
        row = {"device": r.where(), "family": r.family,
               "pattern": r.pattern + (f" w{r.world}" if r.world else ""),
               "size": bench_reader.human_bytes(r.size) if r.size else "",
               "bandwidth": f"{r.bytes_per_second / 1e9:.3f}" if r.bytes_per_second else "",
               "busbw": f"{r.busbw_gbps:.3f}" if r.busbw_gbps is not None else "",
               "time": f"{r.seconds * 1e6:.1f}" if r.seconds is not None else "",
               "cv": f"{r.cv * 100:.1f}%" if r.cv is not None else "", "repetitions": r.repetitions,
               "error": capped(r.error, 400) if r.error else "",
               "reference": r.device_type == REFERENCE}
        rows.append(row)
    return rows


def thresholds_of(results, path=None):
    """(rows, summary line, problem) of the run's results against
    bench/thresholds.json, as check_thresholds judges them."""
    path = path or bench_thresholds.DEFAULT_THRESHOLDS
    if not results:
        return [], "no benchmark results: no threshold checked", None
    try:
        entries = bench_thresholds.load_thresholds(path, {r.device_type for r in results})
    except InputError as error:
        return [], f"thresholds not checked: {path}: {one_line(error)}", "unreadable"
    rows = []
    for r in results:
        row = bench_thresholds.judge(entries, r)
        row["measured"] = "" if row["measured"] is None else (
            f"{row['measured']:.3f}" if row["unit"] == "GB/s" else f"{row['measured']:.1f}")
        row["limit"] = "" if row["limit"] is None else (
            f"≥ {row['limit']:g}" if row["unit"] == "GB/s" else f"≤ {row['limit']:g}")
        row["reference"] = r.device_type == REFERENCE
        rows.append(row)
    checked = sum(1 for row in rows if row["verdict"] in ("passed", "violated"))
    violated = sum(1 for row in rows if row["verdict"] in ("violated", "did not run"))
    line = f"thresholds: {checked} of {len(rows)} results checked, {violated} violation(s)"
    return rows, line, None


def banner_of(context, summary, totals, threshold_rows):
    """PASS or FAIL, with host, date and level, and why a FAIL failed."""
    reasons = []
    if totals[results.FAILED]:
        reasons.append(f"{totals[results.FAILED]} test(s) failed")
    violated = [row for row in threshold_rows if row["verdict"] in ("violated", "did not run")]
    if violated:
        reasons.append(f"{len(violated)} benchmark threshold violation(s)")
    date = str(context.get("date") or context.get("started") or summary.get("run_id") or "")
    match = re.match(r"(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z", str(summary.get("run_id") or ""))
    if match and not context.get("date"):
        date = "{}-{}-{} {}:{}:{} UTC".format(*match.groups())
    level = summary.get("level") or context.get("level")
    return {"verdict": "FAIL" if reasons else "PASS", "reasons": reasons,
            "host": str(context.get("host") or "unknown host"), "date": date or "unknown date",
            "level": f"level {level}" if level else "level unknown"}


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
        raise InputError(f"{path}: {what} is not JSON ({one_line(error)})")
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
    devices = results.devices_of(context)
    named = ", ".join(f"{d} {info['name']}" + (f" (driver {info['driver']})" if info["driver"] else "")
                      for d, info in sorted(devices.items(), key=lambda item: device_order(item[0])))
    return " · ".join(part for part in (str(context.get("host") or ""), str(context.get("os") or ""),
                                        f"LibTorch {results.libtorch_of(context)}", named) if part)


def waivers_of(tests):
    """Each waived test with its waiver's origin, category, tracker and expiry
    (the expiry is read from the waiver file's line, when this tree has it)."""
    pattern = packaging.KNOWN_FAILURE
    found = []
    for test in tests:
        if test.get("status") != results.KNOWN_FAILURE:
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
    full = path if os.path.isabs(path) else os.path.join(ROOT, path)
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
                  for t in tests if t.get("status") == results.FAILED and not t.get("prerequisite")]
    listed = {}
    for group in groups:
        if not isinstance(group, dict):
            continue
        name = str(group.get("root_cause"))
        test = by_name.get(name, {"name": name})
        # A reference (twin) check keeps its `loopback:` prefix: its failure is never the node's.
        check = (names.TWIN_PREFIX if test.get("twin") else "") + results.check_of(test)
        entry = listed.setdefault(check, {
            "check": check, "tests": [], "devices": [], "dependents": [],
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
        checks = sorted({results.check_of(by_name.get(n, {"name": n})) for n in names})
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
    reader = bench_reader
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
    totals = {status: sum(1 for t in tests if t.get("status") == status) for status in results.STATUSES}
    problems = []
    recorded = summary.get("totals") if isinstance(summary.get("totals"), dict) else {}
    if recorded and any(recorded.get(s, 0) != totals[s] for s in results.STATUSES):
        problems.append(f"summary.json's totals {recorded} differ from its tests {totals}")
    # The reference backend's devices are labelled as such. With twins (a
    # fault run, a vendor's backend beside the loopback's reference run), the
    # twins' results get columns of their own, "loopback:0 (reference)", so
    # that a reference failure never reads as the node's; without them the
    # loopback's devices are the reference.
    twins = any(t.get("twin") for t in tests)
    tests = labelled(tests)
    cells = results.cells_of(tests)
    devices = sorted(cells, key=device_order)
    reference = [d for d in devices if d.endswith(" (reference)")
                 or (not twins and d.startswith(REFERENCE + ":"))]
    checks = sorted({check for by_check in cells.values() for check in by_check})
    instances = {}
    for test in tests:
        key = f"{test.get('device') or 'host'}|{results.check_of(test)}"
        text = f"{test['name']}: {str(test.get('status')).replace('_', ' ')}"
        if test.get("message"):
            text += f": {capped(test['message'])}"
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
                            "message": capped(cell.get("message", "")), "items": instances.get(key, [])}
    series = bench_results(results_dir)
    threshold_rows, threshold_line, _ = thresholds_of(series)
    errors = [r for r in series if r.error]
    why = "no benchmark results in bench/ (ci/conformance --bench=off?)"
    if errors:
        why = (f"{len(errors)} of {len(series)} benchmark series reported an error, e.g. "
               f"{errors[0].run_name}: {one_line(errors[0].error)}")
    bench_charts = {"bandwidth": charts.bandwidth(series), "busbw": charts.busbw(series),
                    "latency": charts.latency(series), "why": why}
    git = context.get("git") if isinstance(context.get("git"), dict) else {}
    libtorch = results.libtorch_of(context)
    subtitle = " · ".join(str(part) for part in (
        f"level {context.get('level')}" if context.get("level") else None,
        f"LibTorch {libtorch}" if libtorch else None,
        f"suite {context.get('suite_version')}" if context.get("suite_version") else None,
        f"commit {str(git.get('commit') or '')[:12]}{' (dirty)' if git.get('dirty') else ''}" if git else None,
        f"{summary.get('wall_seconds')} s" if summary.get("wall_seconds") is not None else None) if part)
    shown = [dict(t, message=capped(t.get("message"))) for t in tests]
    groups = [dict(g, message=capped(g["message"])) for g in root_causes(summary, tests)]
    return {"kind": "run", "title": f"TDC run on {context.get('host') or 'unknown host'}",
            "banner": banner_of(context, summary, totals, threshold_rows),
            "seed": seed_of(results_dir), "seed_keys": SEED_KEYS, "seed_file": SEED_FILE,
            "thresholds": threshold_rows, "thresholds_line": threshold_line,
            "bench_table": bench_table(series), "skips": skip_reasons(tests), "reference": REFERENCE,
            "reference_devices": reference,
            "subtitle": subtitle, "caveat": expectation.of_context(context), "statuses": results.STATUSES, "totals": totals, "tests": shown,
            "problems": problems, "what_to_add": what_to_add_of(summary),
            "missing_kernels": missing_kernels(summary, tests),
            "root_causes": groups, "devices": devices,
            "checks": checks, "grid": grid, "cells": details, "waivers": waivers_of(tests),
            "ordering": ordering_of(summary), "ordering_observed": ordering.OBSERVED,
            "charts": bench_charts, "environment": flatten(context),
            "environment_line": environment_line(context)}


def write_run_report(results_dir, out=None):
    """Writes the run's report (RESULTS_DIR/report.html unless out) and returns its path."""
    check_requirements()
    path = out or os.path.join(results_dir, "report.html")
    return render.write(path, render.render("run.html.j2", **view(results_dir)))


def main(argv=None):
    def body(args):
        parser = Parser("report", __doc__)
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
    return run_main("report", body, argv)


if __name__ == "__main__":
    sys.exit(main())
