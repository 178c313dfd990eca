#!/usr/bin/env python3
"""The level-3 benchmark gate: bench/check_thresholds.py with
--require-thresholds (every benchmarked device and pattern must have a
threshold, and meet it) over the run's benchmark JSON. Writes the verdict to
<bench-dir>/gate.json for ci/package and ci/verify.

  qualification_gate.py --bench-dir DIR [--thresholds FILE]
Exit status: check_thresholds.py's (0 passed), or 1 when there is nothing to gate."""
import argparse
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench-dir", required=True)
    parser.add_argument("--thresholds", default=os.path.join(ROOT, "bench", "thresholds.json"))
    args = parser.parse_args()
    results = sorted(glob.glob(os.path.join(args.bench_dir, "transfer_*.json")) +
                     glob.glob(os.path.join(args.bench_dir, "forward_*.json")))
    command = [sys.executable, os.path.join(ROOT, "bench", "check_thresholds.py"),
               "--require-thresholds", "--thresholds", args.thresholds, *results]
    if results:
        run = subprocess.run(command, capture_output=True, text=True, timeout=600)
        status, output = run.returncode, run.stdout + run.stderr
    else:
        status, output = 1, f"no benchmark results in {args.bench_dir}: nothing to gate"
    gate = {"require_thresholds": True, "exit_status": status, "output": output,
            "results": [os.path.basename(r) for r in results],
            "command": " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in command)}
    os.makedirs(args.bench_dir, exist_ok=True)
    with open(os.path.join(args.bench_dir, "gate.json"), "w") as f:
        json.dump(gate, f, indent=2)
    print(output.rstrip())
    print(f"qualification gate: {'passed' if status == 0 else f'FAILED (exit {status})'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
