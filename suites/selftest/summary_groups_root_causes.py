#!/usr/bin/env python3
"""tdc summarize lists a failure whose output says "prerequisite failed: ...
(checked by X)" under X, root causes first, in summary.json and on the
console, each group with the root cause's reason (its first failure line,
not ctest's empty or generic message) and its dependents counted on one line."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = "loopback:Placement.ModuleToMovesParametersAndBuffers/loopback_0"
DEPENDENTS = ["loopback:Forward.SeedModelMatchesFloat64Reference/loopback_0_float32",
              "loopback:MismatchGuard.RejectsMetaInput/loopback_0"]
REASON = "Module::to(loopback:0) threw: set_data: incompatible tensor type"


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "summary.json")
        run = subprocess.run([sys.executable, "-m", "tdc", "summarize", "--junit",
                              os.path.join(HERE, "damaged", "root_causes.xml"), "--out", out],
                             capture_output=True, text=True)
        groups = json.load(open(out)).get("failures_by_root_cause") if os.path.exists(out) else None
    problems = []
    if run.returncode != 1:
        problems.append(f"exit {run.returncode}, expected 1")
    if groups != [{"root_cause": ROOT, "message": REASON, "dependents": DEPENDENTS}]:
        problems.append(f"summary.json groups: {groups}")
    # The dependents are one line (issue 35): their names are in summary.json.
    failed_lines = [l.strip() for l in run.stdout.splitlines()
                    if l.strip().startswith(("FAILED", "prerequisite of", "and "))]
    expected = [f"FAILED  {ROOT}: {REASON}", f"and {len(DEPENDENTS)} dependents (summary.json)"]
    if failed_lines != expected:
        problems.append(f"console lists {failed_lines}, expected {expected}")
    for problem in problems:
        print("FAILED:", problem)
    print(run.stdout, run.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
