"""qualification-gate: the level-3 benchmark gate: tdc check-thresholds with
--require-thresholds (every benchmarked device and pattern must have a
threshold, and meet it) over the run's benchmark JSON: every file tdc
run-benchmarks measured (transfer, forward and collectives:
run_all.results_files). Writes the verdict to <bench-dir>/gate.json for
ci/package and ci/verify.

  tdc qualification-gate --bench-dir DIR [--thresholds FILE]
Exit status: check-thresholds' (0 passed), or 1 when there is nothing to gate."""
import os
import subprocess

from tdc import ROOT, cli, results, safeio, verbs
from tdc.bench import run_all


def run(argv):
    p = cli.Parser("qualification_gate", __doc__)
    p.add_argument("--bench-dir", required=True)
    p.add_argument("--thresholds", default=os.path.join(ROOT, "bench", "thresholds.json"))
    args = p.parse_args(argv)
    found = run_all.results_files(args.bench_dir)
    thresholds, env = verbs.child("check-thresholds")
    command = [*thresholds, "--require-thresholds", "--thresholds", args.thresholds, *found]
    if found:
        run_ = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=600, env=env)
        status, output = run_.returncode, run_.stdout + run_.stderr
    else:
        status, output = 1, f"no benchmark results in {args.bench_dir}: nothing to gate"
    safeio.ensure_writable_folder(args.bench_dir, "--bench-dir")
    results.write(os.path.join(args.bench_dir, "gate.json"), {
        "require_thresholds": True, "exit_status": status, "output": output,
        "results": [os.path.basename(r) for r in found],
        "command": " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in command)}, "gate")
    print(output.rstrip())
    print(f"qualification gate: {'passed' if status == 0 else f'FAILED (exit {status})'}")
    return status


def main(argv=None):
    return cli.run_main("qualification_gate", run, argv)
