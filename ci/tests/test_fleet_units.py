"""Units of the fleet tools that need no cluster, each with the case that
must fail: the drain rule, Slurm's record and gres parsing, the expectation
from an allocation, context.json's GPU map, the tasks file's rows, the run
tree's path rewrite. (The tools on a real Slurm cluster:
suites/selftest/fleet_cluster.py.)"""
import json

import pytest

from tdc.fleet import allocation, drain, run_tree, slurm, slurm_tasks


@pytest.mark.parametrize("verdict, state, reason, action", [  # sinfo state and reason -> action
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
])
def test_drain_rule(verdict, state, reason, action):
    assert drain.decide(verdict, state, reason)[0] == action


def test_a_drain_reason_is_one_line_of_at_most_200_characters_led_by_tdc():
    line = drain.drain_reason("unhealthy", "a\nb " + "x" * 300)
    assert line.startswith("TDC: unhealthy: a b")
    assert "\n" not in line
    assert len(line) <= 200


def test_a_drain_reason_names_the_action_or_says_unknown():
    assert drain.drain_reason("unhealthy", "cuda:3 EventBlock timed out", "reset_device") == \
        "TDC: reset_device: cuda:3 EventBlock timed out"
    assert drain.drain_reason("unknown", "no verdict", "rerun") == "TDC: unknown: no verdict"


def test_slurm_record_values_with_spaces_keys_with_colons_and_the_reason_last():
    record = slurm.record("NodeName=n3 OS=Linux 6.1 #1 SMP State=IDLE+DRAIN ReqB:S:C:T=0:0:*:* "
                          "Reason=TDC: unhealthy: x [root@2026-12-01T10:39:50]")
    assert record.get("OS") == "Linux 6.1 #1 SMP"
    assert record.get("ReqB:S:C:T") == "0:0:*:*"
    assert record.get("Reason") == "TDC: unhealthy: x [root@2026-12-01T10:39:50]"


@pytest.mark.parametrize("gres, count", [
    ("gpu:8", 8), ("gpu:a100:4(S:0-1)", 4), ("gpu:a100:2,gpu:t4:1", 3), ("gpu:a100:2(S:0),mps:200", 2),
    ("(null)", 0), ("mps:100", 0), ("", 0)])
def test_gres_gpus(gres, count):
    assert slurm.gres_gpus(gres) == count


LOOPBACK = "/b/lib/libtdc_loopback.so"


@pytest.mark.parametrize("env, backend, wanted", [
    ({"SLURM_JOB_GPUS": "4,5"}, None, "cuda:2"),
    ({"SLURM_STEP_GPUS": "1"}, None, "cuda:1"),
    ({"CUDA_VISIBLE_DEVICES": "0,1,2"}, None, "cuda:3"),
    ({"SLURM_JOB_GPUS": "0,1"}, LOOPBACK, "cuda:2"),     # GPUs win: the loopback only stands in
    ({}, LOOPBACK, "loopback:2"),
    ({"TDC_LOOPBACK_DEVICES": "3"}, LOOPBACK, "loopback:3"),
    ({}, "/vendor/libx.so", None),
    ({}, None, None),
])
def test_expectation_from_an_allocation(env, backend, wanted):
    assert allocation.expectation(env, backend) == wanted


def test_expectation_takes_the_builds_name_for_privateuse1(tmp_path):
    # A LibTorch that cannot name PrivateUse1 (1.13) shows the loopback as
    # privateuseone; without a readable build the name is the loopback's.
    (tmp_path / "CMakeCache.txt").write_text("TDC_PRIVATEUSE1_NAME:INTERNAL=privateuseone\n")
    assert allocation.expectation({}, LOOPBACK, str(tmp_path)) == "privateuseone:2"
    assert allocation.expectation({}, LOOPBACK, str(tmp_path / "absent")) == "loopback:2"


def test_the_jobs_gpu_map():
    devices = {"devices": [{"device": "cuda:0", "uuid": "GPU-aa", "pci_bus_id": "0000:17:00.0"}]}
    context = allocation.slurm_context({"SLURM_JOB_ID": "7", "SLURM_JOB_GPUS": "4,6",
                                        "CUDA_VISIBLE_DEVICES": "0,1", "SLURMD_NODENAME": "n1"}, devices)
    assert [(g["device"], g["global_index"], g["uuid"], g["initialised"]) for g in context["gpus"]] == \
        [("cuda:0", "4", "GPU-aa", True), ("cuda:1", "6", None, False)]
    assert allocation.slurm_context({}, devices) is None  # no Slurm job: no slurm field


TASK = {"index": 3, "node": "n4", "build": "2.13.0"}


def test_a_completed_healthy_task_row_has_exactly_the_contracts_keys(tmp_path):
    package = tmp_path / "p.tar.gz"
    package.write_text("")
    done = {"stage": "done", "verdict": "healthy", "message": "ok", "package": str(package)}
    row = slurm_tasks.task_row(TASK, "42", {"JobState": "COMPLETED", "ExitCode": "0:0", "BatchHost": "n4"},
                               done, str(tmp_path))
    assert (row["state"], row["exit_code"], row["package"], row["reason"], row["job_id"]) == \
        ("COMPLETED", 0, str(package), "", "42")
    assert sorted(row) == sorted(["host", "build", "job_id", "array_task_id", "state", "exit_code",
                                  "package", "reason"])
    json.dumps(row)


def test_a_timed_out_task_says_why_and_where_it_stopped(tmp_path):
    row = slurm_tasks.task_row(TASK, "42", {"JobState": "TIMEOUT", "ExitCode": "0:15", "Reason": "TimeLimit",
                                            "RunTime": "00:01:20", "TimeLimit": "00:01:00"},
                               {"stage": "level 1"}, str(tmp_path))
    assert (row["state"], row["package"]) == ("TIMEOUT", None)
    for part in ("TIMEOUT", "signal 15", "stopped at 'level 1'"):
        assert part in row["reason"]


def test_a_task_cancelled_before_it_ran(tmp_path):
    row = slurm_tasks.task_row(TASK, "42", {"JobState": "CANCELLED", "ExitCode": "0:0",
                                            "Reason": "DependencyNeverSatisfied", "NodeList": "(null)"},
                               None, str(tmp_path))
    assert row["host"] == "n4"
    assert "never started" in row["reason"]


def test_an_unfinished_state_is_not_passed_on(tmp_path):
    assert slurm_tasks.task_row(TASK, "42", {"JobState": "RUNNING"}, None, str(tmp_path))["state"] == "UNKNOWN"


def test_a_package_that_does_not_exist_is_none(tmp_path):
    done = {"stage": "done", "verdict": "healthy", "message": "ok", "package": str(tmp_path / "gone.tar.gz")}
    row = slurm_tasks.task_row(TASK, "42", {"JobState": "COMPLETED", "ExitCode": "0:0"}, done, str(tmp_path))
    assert row["package"] is None


def test_the_builds_path_is_rewritten_only_as_a_whole_component():
    text = 'include("/b/x/y.cmake") "/b/xy" [==[/b/x]==] /b/x;/b/x:'
    assert run_tree._rewrite(text, "/b/x", "/t") == 'include("/t/y.cmake") "/b/xy" [==[/t]==] /t;/t:'
