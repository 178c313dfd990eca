#!/usr/bin/env python3
"""Runs the hostile-input corpus (hostile/cases.py) against one entry point,
or all: each case must end with its documented exit status and its one line
(stderr, or stdout where the documented answer is there), and never a
traceback.

  hostile_inputs.py --entry ENTRY|all [--build-dir BUILD] [--ci-dir DIR]
  hostile_inputs.py --list          the number of cases per entry point
--ci-dir runs the cases against another checkout's ci/ (how they were seen
to fail before the tools were fixed; that tree's bench/*.py stand in for
the gates it did not have as ci/ commands).
Exit status: 0 every case as documented, 1 one was not, 2 bad arguments."""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

from fleetsim import synthetic_run  # this script's own folder, as hostile/ is
from hostile.cases import CASES as FILE_CASES
from hostile.fleet_cases import CASES as FLEET_CASES
from tdc import ROOT, verbs

CASES = FILE_CASES + FLEET_CASES
# What no tool may print raw, whatever a package holds (issue 34, finding 5:
# an escape sequence moves the cursor, sets the window title; tdc.terminal).
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile")
CI = os.path.join(ROOT, "ci")
PY = sys.executable


# Entry points that are verbs (`python3 -m tdc VERB`, ci/ on PYTHONPATH), and
# the files an older checkout had for them instead (--ci-dir, before the
# verbs: a script in its ci/, or in bench/ for the gates).
OLDER = {"summarize": ("ci", "summarize.py"), "verdict": ("ci", "verdict.py"), "run": ("ci", "run-level"),
         "package": ("ci", "package"), "verify": ("ci", "verify"), "merge": ("ci", "merge"),
         "fleet-plan": ("ci", "fleet-plan"), "mustpass": ("ci", "mustpass"),
         "check-thresholds": ("bench", "check_thresholds.py"), "compare": ("bench", "compare_baseline.py"),
         "check-waivers": ("ci", "check_waivers.py"), "annotate": ("ci", "annotate_junit.py"),
         "context": ("ci", "context.py")}


def commands(ci):
    """The command line of each entry point, in the ci/ folder `ci` (run with verbs.tools_env(ci=ci))."""
    has_verbs = os.path.isfile(os.path.join(ci, "tdc", "verbs.py"))

    def tool(verb):
        return [PY, "-m", "tdc", verb] if has_verbs else [PY, os.path.join(os.path.dirname(ci), *OLDER[verb])]
    found = {verb: tool(verb) for verb in OLDER}
    found["check-thresholds"] += ["--thresholds", os.path.join(ROOT, "bench", "thresholds.json")]
    found["health"] = [f"{ci}/health"]
    return found


COMMANDS = commands(CI)


def synthetic_results(folder):
    """A valid level-1 results folder that no ctest made (fleetsim.synthetic_run),
    of suite version 0+0: what package and verify need to reach the check
    under test."""
    synthetic_run.results_folder(folder, host="hostile", suite_version="0+0", command_line="hostile corpus")


def synthetic_package(results_dir, out):
    run = subprocess.run([*COMMANDS["package"], results_dir, "--product=hostile", "--submitter=corpus",
                          f"--out={out}"], capture_output=True, text=True, timeout=120,
                         env=verbs.tools_env())
    if run.returncode != 0:
        raise SystemExit(f"hostile_inputs.py: cannot make the synthetic package: {run.stderr.strip()}")
    return run.stdout.strip()


def run_case(case, build, shared, ci=CI):
    command = commands(ci)
    with tempfile.TemporaryDirectory() as tmp:
        if case.make:
            kwargs = {}
            if getattr(case.make, "needs_results", False):
                kwargs["results"] = shared["results"]
            if getattr(case.make, "needs_package", False):
                kwargs["package"] = shared["package"]
            case.make(tmp, **kwargs)
        values = {"h": HOSTILE, "t": tmp, "b": build or "/nonexistent/build", "ci": CI,
                  "results": shared.get("results", ""), "package": shared.get("package", "")}
        argv = [a.format(**values) for a in case.argv]
        env = verbs.tools_env(dict(os.environ, **case.env), ci=ci)
        run = subprocess.run(command[case.entry] + argv, capture_output=True, text=True, errors="replace",
                             env=env, timeout=300, cwd=tmp)
    problems = []
    if run.returncode != case.exit:
        problems.append(f"exit {run.returncode}, documented {case.exit}")
    if "Traceback" in run.stdout + run.stderr:
        problems.append("a traceback")
    if RAW_CONTROL.search(run.stdout + run.stderr):
        problems.append(f"a raw control character on the terminal: "
                        f"{RAW_CONTROL.search(run.stdout + run.stderr).group(0)!r}")
    err = [l for l in run.stderr.splitlines() if l.strip()]
    out = [l for l in run.stdout.splitlines() if l.strip()]
    if case.stream == "stderr":
        if len(err) != 1 or not re.search(case.line, err[0]):
            problems.append(f"stderr is not one line matching {case.line!r}: {err[:3]}")
        shown = err[0] if err else ""
    else:
        if err or not any(re.search(case.line, l) for l in out):
            problems.append(f"stdout has no line matching {case.line!r} (stderr: {err[:2]}; stdout: {out[-2:]})")
        shown = next((l for l in out if re.search(case.line, l)), out[-1] if out else "")
    return problems, run.returncode, shown


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--entry", help="an entry point, or all")
    parser.add_argument("--build-dir", help="a build, for the cases that need one")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--ci-dir", default=CI, help="the ci/ folder whose tools are run (default this tree's)")
    args = parser.parse_args()
    counts = collections.Counter(c.entry for c in CASES)
    if args.list:
        for entry, count in sorted(counts.items()):
            print(f"{entry:<18} {count}")
        print(f"{'total':<18} {len(CASES)}")
        return 0
    if not args.entry or (args.entry != "all" and args.entry not in COMMANDS):
        print(f"hostile_inputs.py: --entry must be all or one of {sorted(COMMANDS)}", file=sys.stderr)
        return 2
    cases = [c for c in CASES if args.entry in ("all", c.entry)]
    failures, skipped = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        shared = {}
        if any(getattr(c.make, "needs_results", False) or getattr(c.make, "needs_package", False)
               or {"results", "package"} & set(c.needs) for c in cases):
            shared["results"] = os.path.join(tmp, "results")
            synthetic_results(shared["results"])
            shared["package"] = synthetic_package(shared["results"], tmp)
        for case in cases:
            if "build" in case.needs and not args.build_dir:
                skipped += 1
                print(f"SKIP {case.entry}: {case.name}: needs --build-dir")
                continue
            problems, status, shown = run_case(case, args.build_dir and os.path.abspath(args.build_dir), shared,
                                               os.path.abspath(args.ci_dir))
            print(f"{'ok  ' if not problems else 'FAIL'} {case.entry}: {case.name}: exit {status}: {shown[:160]}")
            failures += [f"{case.entry}: {case.name}: {p}" for p in problems]
    for failure in failures:
        print("FAILED:", failure)
    print(f"{len(cases) - skipped} case(s) run, {len(failures)} problem(s)" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failures or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
