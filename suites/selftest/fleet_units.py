#!/usr/bin/env python3
"""Units of the fleet tools that need no cluster, each with the case that
must fail: the drain rule, Slurm's record and gres parsing, the expectation
from an allocation, context.json's GPU map, the tasks file's rows, the run
tree's path rewrite. (The tools on a real Slurm cluster: fleet_cluster.py.)

  fleet_units.py        exit 0 when every case holds, 1 naming each that does not
"""
import json
import os
import sys
import tempfile

from tdc.fleet import allocation, drain, run_tree, slurm, slurm_tasks

FAILURES = []


def expect(actual, wanted, what):
    if actual != wanted:
        FAILURES.append(f"{what}: got {actual!r}, expected {wanted!r}")


def drain_rule():
    cases = [  # verdict, sinfo state, sinfo reason -> action
        ("unhealthy", "idle", "none", "drain"),
        ("unknown", "allocated", "none", "drain"),            # a check that could not finish is no pass
        ("unhealthy", "drained", "TDC: unhealthy: old", "drain"),
        ("unhealthy", "drained", "admin: replace fan", "keep"),  # another's reason is kept
        ("unhealthy", "drained", "NHC: check_fs_mount", "keep"),
        ("healthy", "drained", "TDC: unhealthy: x", "resume"),
        ("healthy", "draining", "TDC: unknown: y", "resume"),
        ("healthy", "drained*", "TDC: unhealthy: x", "resume"),
        ("healthy", "drained", "admin: replace fan", "none"),  # never lifts another's drain
        ("healthy", "idle", "none", "none"),
        ("healthy", "idle", "TDC: stale note", "none"),        # not drained: nothing to resume
        ("healthy", "mixed+drain", "TDC: drain: x", "resume"),  # a drained node still running a job
        ("healthy", "idle+drain", "TDC: reboot: x", "resume"),
        ("healthy", "mixed", "TDC: drain: x", "none"),
        ("healthy", "mixed+drain", "admin: replace fan", "none"),
    ]
    for verdict, state, reason, action in cases:
        expect(drain.decide(verdict, state, reason)[0], action, f"decide({verdict}, {state}, {reason!r})")
    line = drain.drain_reason("unhealthy", "a\nb " + "x" * 300)
    expect((line.startswith("TDC: unhealthy: a b"), "\n" in line, len(line) <= 200), (True, False, True),
           "a drain reason is one line of at most 200 characters, led by TDC:")
    expect(drain.drain_reason("unhealthy", "cuda:3 EventBlock timed out", "reset_device"),
           "TDC: reset_device: cuda:3 EventBlock timed out", "an unhealthy reason names the action")
    expect(drain.drain_reason("unknown", "no verdict", "rerun"), "TDC: unknown: no verdict",
           "an unknown reason says unknown")


def slurm_parsing():
    record = slurm.record("NodeName=n3 OS=Linux 6.1 #1 SMP State=IDLE+DRAIN ReqB:S:C:T=0:0:*:* "
                          "Reason=TDC: unhealthy: x [root@2026-12-01T10:39:50]")
    expect(record.get("OS"), "Linux 6.1 #1 SMP", "a value with spaces")
    expect(record.get("ReqB:S:C:T"), "0:0:*:*", "a key with colons")
    expect(record.get("Reason"), "TDC: unhealthy: x [root@2026-12-01T10:39:50]", "the reason, last")
    for gres, count in (("gpu:8", 8), ("gpu:a100:4(S:0-1)", 4), ("gpu:a100:2,gpu:t4:1", 3),
                        ("gpu:a100:2(S:0),mps:200", 2), ("(null)", 0), ("mps:100", 0), ("", 0)):
        expect(slurm.gres_gpus(gres), count, f"gres_gpus({gres!r})")


def expectations():
    loopback = "/b/lib/libtdc_loopback.so"
    cases = [
        ({"SLURM_JOB_GPUS": "4,5"}, None, "cuda:2"),
        ({"SLURM_STEP_GPUS": "1"}, None, "cuda:1"),
        ({"CUDA_VISIBLE_DEVICES": "0,1,2"}, None, "cuda:3"),
        ({"SLURM_JOB_GPUS": "0,1"}, loopback, "cuda:2"),     # GPUs win: the loopback only stands in
        ({}, loopback, "loopback:2"),
        ({"TDC_LOOPBACK_DEVICES": "3"}, loopback, "loopback:3"),
        ({}, "/vendor/libx.so", None),
        ({}, None, None),
    ]
    for env, backend, wanted in cases:
        expect(allocation.expectation(env, backend), wanted, f"expectation({env}, {backend})")
    # A LibTorch that cannot name PrivateUse1 (1.13) shows the loopback as
    # privateuseone; the expectation takes the build's name for it.
    with tempfile.TemporaryDirectory() as build:
        with open(os.path.join(build, "CMakeCache.txt"), "w") as f:
            f.write("TDC_PRIVATEUSE1_NAME:INTERNAL=privateuseone\n")
        expect(allocation.expectation({}, loopback, build), "privateuseone:2", "expectation on a 1.13 build")
        expect(allocation.expectation({}, loopback, os.path.join(build, "absent")), "loopback:2",
               "expectation without a readable build")
    devices = {"devices": [{"device": "cuda:0", "uuid": "GPU-aa", "pci_bus_id": "0000:17:00.0"}]}
    context = allocation.slurm_context({"SLURM_JOB_ID": "7", "SLURM_JOB_GPUS": "4,6",
                                        "CUDA_VISIBLE_DEVICES": "0,1", "SLURMD_NODENAME": "n1"}, devices)
    expect([(g["device"], g["global_index"], g["uuid"], g["initialised"]) for g in context["gpus"]],
           [("cuda:0", "4", "GPU-aa", True), ("cuda:1", "6", None, False)], "the job's GPU map")
    expect(allocation.slurm_context({}, devices), None, "no Slurm job: no slurm field")


def tasks_rows():
    with tempfile.TemporaryDirectory() as tmp:
        package = os.path.join(tmp, "p.tar.gz")
        open(package, "w").close()
        task = {"index": 3, "node": "n4", "build": "2.13.0"}
        done = {"stage": "done", "verdict": "healthy", "message": "ok", "package": package}
        row = slurm_tasks.task_row(task, "42", {"JobState": "COMPLETED", "ExitCode": "0:0", "BatchHost": "n4"},
                                   done, tmp)
        expect((row["state"], row["exit_code"], row["package"], row["reason"], row["job_id"]),
               ("COMPLETED", 0, package, "", "42"), "a completed, healthy task")
        expect(sorted(row), sorted(["host", "build", "job_id", "array_task_id", "state", "exit_code",
                                    "package", "reason"]), "exactly the contract's keys")
        row = slurm_tasks.task_row(task, "42", {"JobState": "TIMEOUT", "ExitCode": "0:15", "Reason": "TimeLimit",
                                                "RunTime": "00:01:20", "TimeLimit": "00:01:00"},
                                   {"stage": "level 1"}, tmp)
        expect((row["state"], row["package"]), ("TIMEOUT", None), "a timed-out task")
        for part in ("TIMEOUT", "signal 15", "stopped at 'level 1'"):
            expect(part in row["reason"], True, f"the timed-out task's reason names {part!r}: {row['reason']}")
        row = slurm_tasks.task_row(task, "42", {"JobState": "CANCELLED", "ExitCode": "0:0",
                                                "Reason": "DependencyNeverSatisfied", "NodeList": "(null)"},
                                   None, tmp)
        expect((row["host"], "never started" in row["reason"]), ("n4", True), "a task cancelled before it ran")
        row = slurm_tasks.task_row(task, "42", {"JobState": "RUNNING"}, None, tmp)
        expect(row["state"], "UNKNOWN", "an unfinished state is not passed on")
        missing = dict(done, package=os.path.join(tmp, "gone.tar.gz"))
        row = slurm_tasks.task_row(task, "42", {"JobState": "COMPLETED", "ExitCode": "0:0"}, missing, tmp)
        expect(row["package"], None, "a package that does not exist is none")
        json.dumps(row)


def rewrite():
    text = 'include("/b/x/y.cmake") "/b/xy" [==[/b/x]==] /b/x;/b/x:'
    expect(run_tree._rewrite(text, "/b/x", "/t"), 'include("/t/y.cmake") "/b/xy" [==[/t]==] /t;/t:',
           "the build's path is rewritten only as a whole component")


def main():
    for case in (drain_rule, slurm_parsing, expectations, tasks_rows, rewrite):
        case()
    for failure in FAILURES:
        print("FAILED:", failure)
    print(f"fleet units: {len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
