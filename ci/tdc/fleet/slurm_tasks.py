"""The tasks file: Slurm's view of every task of a submit array, the contract
between ci/slurm and ci/merge. A JSON list, one object per array task, in
task order, with exactly these keys:

  host           the Slurm node the task ran on (planned node if it never ran)
  build          the build's name (the LibTorch of --torch, or the build folder's name)
  job_id         the array's job id (a string): `<job_id>_<array_task_id>` names the task in Slurm
  array_task_id  the task's index in the array
  state          Slurm's JobState: COMPLETED, FAILED, TIMEOUT, CANCELLED, NODE_FAIL,
                 OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE; UNKNOWN when Slurm
                 no longer holds the record (or, never expected, still runs it)
  exit_code      the exit status Slurm reports (ExitCode's first part), or null
  package        the package's path, or null when the task left none
  reason         one line: what Slurm and the task said (empty for a completed
                 task with its package)

The state source is `scontrol show job` (docs/fleet.md, "Where task states
come from"): it needs no accounting and no site configuration, and the merge
job runs right after the last task (afterany), well inside MinJobAge.

  python3 -m tdc.fleet.slurm_tasks --plan PLAN --array-job ID --out TASKS.json
Exit 0, or 2 with one line when the plan cannot be read.
"""
import json
import os
import sys

from tdc import cli
from tdc.errors import InputError
from tdc.fleet import tasks
from tdc.fleet.slurm import SlurmError, config_value, show_job

FINISHED = ("COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY",
            "PREEMPTED", "BOOT_FAIL", "DEADLINE")


def _state_file(results, index):
    try:
        with open(os.path.join(results, "tasks", str(index), "state.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _exit_code(text):
    """ExitCode=<status>:<signal> -> (status, signal), or (None, None)."""
    status, _, signal = (text or "").partition(":")
    try:
        return int(status), int(signal or 0)
    except ValueError:
        return None, None


def task_row(task, job_id, slurm, own, results):
    """One row from the plan's task, Slurm's record (or None) and the task's state.json (or None)."""
    reasons = []
    if slurm:
        state = slurm.get("JobState", "UNKNOWN")
        if state not in FINISHED:  # afterany should exclude it; say so rather than guess
            reasons.append(f"Slurm: still {state} when the merge ran")
            state = "UNKNOWN"
        exit_code, signal = _exit_code(slurm.get("ExitCode"))
        host = slurm.get("BatchHost") or slurm.get("NodeList") or task["node"]
        if host in ("(null)", ""):
            host = task["node"]
        if state != "COMPLETED":
            said = f"Slurm: {state}"
            if slurm.get("Reason") not in (None, "", "None"):
                said += f" ({slurm['Reason']})"
            if state == "TIMEOUT":
                said += f" after {slurm.get('RunTime')} (TimeLimit={slurm.get('TimeLimit')})"
            if signal:
                said += f", signal {signal}"
            reasons.append(said)
    else:
        state, exit_code, host = "UNKNOWN", None, task["node"]
        reasons.append(f"Slurm holds no record of the task any more (MinJobAge="
                       f"{config_value('MinJobAge') or '?'}; no accounting is read)")
    package = (own or {}).get("package")
    if package and not os.path.isfile(package):
        package = None
    if own and own.get("verdict"):
        reasons.append(f"{own['verdict']}: {own.get('message') or ''}".strip())
    if own and own.get("bench_exit"):
        reasons.append(f"benchmarks failed (bench/run_all.py exit {own['bench_exit']}: "
                       "a verification failure or a threshold violation, bench/thresholds.txt)")
    if not package:
        if own is None:
            reasons.append("no package: the task never started")
        elif own.get("package_error"):
            reasons.append(f"no package: {own['package_error']}")
        else:
            reasons.append(f"no package: the task stopped at '{own.get('stage')}'")
    if state == "COMPLETED" and package and own and own.get("verdict") == "healthy":
        reasons = []
    return {"host": host, "build": task["build"], "job_id": str(job_id),
            "array_task_id": task["index"], "state": state, "exit_code": exit_code,
            "package": package, "reason": "; ".join(reasons)}


def tasks_file(plan, array_job):
    try:
        records = show_job(array_job)
    except SlurmError:
        records = []  # the records expired: every row says so (UNKNOWN)
    by_index = {}
    for rec in records:
        if rec.get("ArrayJobId") == str(array_job) and rec.get("ArrayTaskId", "").isdigit():
            by_index[int(rec["ArrayTaskId"])] = rec
    return [task_row(task, array_job, by_index.get(task["index"]), _state_file(plan["results"], task["index"]),
                     plan["results"]) for task in plan["tasks"]]


def body(argv):
    parser = cli.Parser("slurm_tasks", __doc__)
    parser.add_argument("--plan", required=True)
    parser.add_argument("--array-job", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    try:
        with open(args.plan) as f:
            plan = json.load(f)
        rows = tasks_file(plan, args.array_job)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InputError(f"cannot read the plan {args.plan}: {error}")
    tasks.write(args.out, rows)
    return 0


def main(argv=None):
    return cli.run_main("slurm_tasks", body, argv)


if __name__ == "__main__":
    sys.exit(main())
