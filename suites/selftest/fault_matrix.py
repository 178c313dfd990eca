#!/usr/bin/env python3
"""Runs the conformance suites against the loopback backend in each of its
fault modes and checks, for each, that the run fails and that the checks
meant to catch that fault are among the failures. A fault no check catches
is a hole in the suite.

  PYTHONPATH=<root>/ci fault_matrix.py --build-dir BUILD --backend-name loopback
                                       [--markdown FILE] [--only MODE]
  PYTHONPATH=<root>/ci fault_matrix.py --list

The rows come from the fault registry (fixtures/loopback/faults/registry.json,
read by ci/tdc/faults.py): what must fail (and pass) under each fault, said
in checks, devices and dtypes and matched against the metadata each test
records in GoogleTest's XML; the text a failure must print; the extra
environment; the builds a fault does not apply to; the check that owns the
root cause; what the run's "What to add" must name, and nothing else."""
import argparse
import concurrent.futures
import os
import re
import sys
import time

from expect_failures import run_ctest

try:
    from tdc import faults as registry
    from tdc import summarize
except ImportError as e:
    print(f"fault_matrix: {e}: run with PYTHONPATH=<root>/ci", file=sys.stderr)
    sys.exit(2)

Check = registry.Check


def each(check, indices=(0, 1), dtypes=(None,)):
    """One Check per device index and dtype: each of them must show the verdict."""
    return [Check(check, index, dtype) for index in indices for dtype in dtypes]


def check_selection(globs):
    """The TDC_CHECKS selection (globs over Suite.Name, ":"-joined) that runs
    the checks `globs` name; None for all of them. The one place a fault's
    `runs` become the entries' selection: every ctest entry is a batch, and
    TDC_CHECKS keeps the checks it names in each."""
    if not globs:
        return None
    return ":".join(globs)


# The 256 MiB copies and the level-3 endurance runs would multiply every
# row's time; the quick checks catch every fault (docs/measurements.md has the runs).
EXCLUDED_LABELS = "^(long|level3)$"
# The collectives suite starts a world of rank processes: only the rows of
# its own faults (group "collectives") run it.
EXCLUDED_LABELS_BUT_COLLECTIVES = "^(long|level3|collectives)$"


def excluded_labels(fault):
    """The ctest labels a fault's row leaves out."""
    return EXCLUDED_LABELS if fault.group == "collectives" else EXCLUDED_LABELS_BUT_COLLECTIVES


def unnamed_failures(owner, failed, must_fail, metadata, outputs, backend):
    """Failures that are neither the fault's own check nor name its owner."""
    if owner is None:
        return []
    return [name for name in failed
            if not any(check.matches(metadata.get(name, {}), backend) for check in must_fail)
            and metadata.get(name, {}).get("check") != owner
            and not ("prerequisite failed: " in outputs.get(name, "")
                     and f"(checked by {owner}" in outputs.get(name, ""))]


def missing_messages(texts, shown, checks, metadata, outputs, backend):
    """'does not print ...' for each text that no test of `checks` among
    `shown` (the failed ones, and the skipped ones of must-skip checks)
    printed."""
    caught = [name for name in shown
              if any(check.matches(metadata.get(name, {}), backend) for check in checks)]
    return [f"no failure of its checks prints {text!r}" for text in texts
            if not any(text in outputs.get(name, "") for name in caught)]


def test_metadata(records, names):
    """Each result's metadata (check, device, device_type, dtype) from the
    run's own GoogleTest XML (tdc.gtest records). A check that left none (it
    crashed or hung) has none, so it can satisfy no Check: a hole, never a
    catch."""
    return {name: records[name].properties for name in names if name in records}


def verdict_problems(checks, wanted, verdicts, metadata, backend):
    """'not <wanted>: <check>' for each Check no test with that verdict satisfies."""
    problems = []
    for check in checks:
        chosen = [n for n in verdicts if check.matches(metadata.get(n, {}), backend)]
        if not any(verdicts[n] == wanted for n in chosen):
            unknown = sum(1 for n in verdicts if n not in metadata)
            why = f" ({unknown} entries left no GoogleTest XML)" if not chosen and unknown else ""
            problems.append(f"not {wanted}: {check.describe(backend)}{why}")
    return problems


def run_row(fault, build_dir, backend):
    """One fault's row: (lines to print, (mode, verdict, failed), 1 if a hole else 0)."""
    mode = fault.name
    if backend in fault.not_applicable:
        reason = fault.not_applicable[backend]
        return [f"{mode:<15} not applicable: {reason}"], (mode, "not applicable: " + reason, []), 0
    must_fail = fault.checks("must_fail", backend)
    must_pass = fault.checks("must_pass", backend)
    must_skip = fault.checks("must_skip", backend)
    proof = must_pass if fault.tolerated else must_fail + must_skip
    if not proof:
        kinds = ("must_pass",) if fault.tolerated else ("must_fail", "must_skip")
        skipped = "; ".join(c for kind in kinds for c in fault.skipped_checks(kind, backend))
        return ([f"{mode:<22} HOLE: no check that proves it applies on {backend} ({skipped})"],
                (mode, f"HOLE: no check that proves it applies on {backend}", []), 1)
    env = dict(os.environ, TDC_LOOPBACK_FAULT=mode, **fault.env)
    started = time.time()
    outputs, records, summary = {}, {}, {}
    code, verdicts, output = run_ctest(build_dir, "loopback", env, check_selection(fault.runs),
                                      outputs, exclude_label=excluded_labels(fault), records=records,
                                      summary=summary)
    seconds = time.time() - started
    if verdicts is None:
        return [output[-4000:], f"{mode:<22} HOLE: no report ({seconds:.0f} s)"], (mode, "no report", []), 1
    metadata = test_metadata(records, verdicts)
    failed = sorted(n for n, v in verdicts.items() if v == "failed")
    # A fault that must fail a check must fail the run; one that only
    # makes checks skip (or that LibTorch tolerates) must not.
    problems = ["the run passed"] if code == 0 and must_fail else []
    problems += ["the run failed" + (f": {', '.join(failed[:5])}" if failed else "")
                 if code != 0 and not must_fail else ""]
    problems = [p for p in problems if p]
    problems += verdict_problems(must_fail, "failed", verdicts, metadata, backend)
    problems += verdict_problems(must_pass, "passed", verdicts, metadata, backend)
    problems += verdict_problems(must_skip, "skipped", verdicts, metadata, backend)
    shown = failed + sorted(n for n, v in verdicts.items() if v == "skipped")
    problems += missing_messages(fault.message_contains, shown, must_fail + must_skip, metadata, outputs,
                                 backend)
    problems += [f"does not name the prerequisite: {n}"
                 for n in unnamed_failures(fault.prerequisite_owner, failed, must_fail, metadata,
                                           outputs, backend)]
    what = summary.get("what_to_add", [])
    problems += fault.what_to_add_problems(what)
    # Every failure is read by a vendor: each says why (the summary names those that don't).
    messages = {t["name"]: t["message"] for t in summary.get("tests", [])}
    problems += [f"a failure says only where or what: {name}: {messages.get(name)!r}"
                 for name in summary.get("reasonless_failures", [])]
    caught = "tolerated, its checks pass" if fault.tolerated else "caught"
    verdict = caught if not problems else "HOLE: " + "; ".join(problems)
    lines = [f"{mode:<22} {verdict}  ({len(failed)} of {len(verdicts)} failed, {seconds:.0f} s)"]
    lines += [f"    {name}" for name in failed]
    if fault.what_to_add:
        lines += ["    " + line for line in summarize.what_to_add_lines(what)]
    return lines, (mode, verdict, failed), int(bool(problems))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir")
    parser.add_argument("--backend-name", default="loopback")
    parser.add_argument("--markdown")
    parser.add_argument("--only", help="run these modes only (comma-separated)")
    parser.add_argument("--list", action="store_true", help="list the faults and exit")
    parser.add_argument("--jobs", type=int, default=2, help="rows run at once (default 2)")
    args = parser.parse_args()
    try:
        faults = registry.load()
    except registry.RegistryError as e:
        print(f"fault_matrix: {e}", file=sys.stderr)
        return 2
    if args.list:
        sys.stdout.write(registry.format_list(faults))
        return 0
    if not args.build_dir:
        print("fault_matrix: --build-dir is required (or --list)", file=sys.stderr)
        return 2
    only = [name for name in (args.only or "").split(",") if name]
    for name in only:
        if not faults.by_name(name):
            print(f"fault_matrix: --only '{name}' is not a fault of {faults.path}", file=sys.stderr)
            return 2

    backend = args.backend_name
    chosen = [fault for fault in faults.faults if not only or fault.name in only]
    # Rows run --jobs at a time: each is a ctest of its own with its own
    # settings, GoogleTest folder and test lists (cmake/tdc_suite_entries.cmake
    # keeps lists per fingerprint for this), and no fault's verdict comes
    # from a clock, so a second row beside it changes no verdict; most of a
    # row is its suites' listing, one process at a time, which leaves a core
    # idle. Results print in the registry's order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows, holes = [], 0
        for lines, row, hole in pool.map(lambda fault: run_row(fault, args.build_dir, backend), chosen):
            print("\n".join(lines), flush=True)
            rows.append(row)
            holes += hole

    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| fault (TDC_LOOPBACK_FAULT) | verdict | tests that failed |\n|---|---|---|\n")
            for mode, verdict, failed in rows:
                f.write(f"| `{mode}` | {verdict} | {'<br>'.join(failed)} |\n")
    print(f"{len(rows) - holes} passed, {holes} failed")
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main())
