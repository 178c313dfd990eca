"""tdc fleet-plan (tdc.fleet.plan): the CI templates' host x build list as
their matrix (runner x build) and as the tasks file ci/merge --tasks reads
(tdc.fleet.tasks, the Slurm merge's format and writer). Bad lists are one
line and exit 2. The templates themselves: test_ci_templates.py."""
import json
import os
import subprocess

import pytest
from conftest import ROOT

from tdc.fleet import plan, tasks
from tdc.errors import InputError

TDC = os.path.join(ROOT, "bin", "tdc")
LIST = [{"host": "g1", "kind": "gpu", "builds": ["2.13.0", "2.14.1"]},
        {"host": "c1", "kind": "cpu", "builds": ["system"]}]


def write_list(tmp_path, hosts, name="hosts.json"):
    path = tmp_path / name
    path.write_text(hosts if isinstance(hosts, str) else json.dumps(hosts))
    return str(path)


def tool(*argv):
    return subprocess.run([TDC, "fleet-plan", *argv], capture_output=True, text=True, timeout=60)


def test_the_matrices_are_runner_by_build_in_the_lists_order(tmp_path):
    hosts = plan.read(write_list(tmp_path, LIST))
    want = [("g1", "2.13.0"), ("g1", "2.14.1"), ("c1", "system")]
    github = plan.github_matrix(hosts)
    assert list(github) == ["include"] and [(j["host"], j["torch"]) for j in github["include"]] == want
    gitlab = plan.gitlab_matrix(hosts)["parallel"]["matrix"]
    assert [(h, b) for e in gitlab for h in e["HOST"] for b in e["TORCH"]] == want


def test_the_tool_prints_one_line_each_platform_reads(tmp_path):
    path = write_list(tmp_path, LIST)
    run = tool(path, "--github-matrix")
    assert run.returncode == 0 and run.stdout.count("\n") == 1  # one line for $GITHUB_OUTPUT
    assert json.loads(run.stdout) == plan.github_matrix(plan.read(path))
    run = tool(path, "--gitlab-matrix")
    assert run.returncode == 0 and run.stdout.count("\n") == 1
    yaml = pytest.importorskip("yaml", reason="Debian's python3-yaml")
    assert yaml.safe_load(run.stdout) == {".tdc-fleet-matrix": plan.gitlab_matrix(plan.read(path))}


def package(folder, name="tdc-x.tar.gz"):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(b"not read here")
    return path


def test_every_job_is_a_task_and_a_missing_package_is_a_task_without_one(tmp_path):
    packages = tmp_path / "packages"
    made = package(str(packages / "g1" / "2.13.0"))
    out = str(tmp_path / "tasks.json")
    run = tool(write_list(tmp_path, LIST), f"--tasks={out}", f"--packages={packages}", "--run-id=991")
    assert run.returncode == 0, run.stderr
    rows = json.load(open(out))
    assert [(r["host"], r["build"], r["array_task_id"]) for r in rows] == [
        ("g1", "2.13.0", 0), ("g1", "2.14.1", 1), ("c1", "system", 2)]
    assert rows[0]["package"] == os.path.abspath(made) and rows[0]["reason"] == ""
    assert rows[1]["package"] is None and rows[1]["reason"].startswith("no package: the CI job for host 'g1'")
    assert {r["state"] for r in rows} == {"UNKNOWN"} and {r["job_id"] for r in rows} == {"991"}
    read = tasks.read(out)   # the reader ci/merge uses accepts what was written
    assert [t.package for t in read] == [os.path.abspath(made), None, None]


def test_no_artefact_at_all_is_every_task_without_a_package(tmp_path):
    out = str(tmp_path / "tasks.json")
    assert tool(write_list(tmp_path, LIST), f"--tasks={out}", f"--packages={tmp_path / 'none'}").returncode == 0
    assert [r["package"] for r in json.load(open(out))] == [None, None, None]


def test_a_retried_jobs_newest_package_fills_its_task_and_says_so(tmp_path):
    folder = str(tmp_path / "packages" / "c1" / "system")
    package(folder, "tdc-c1-torch1.13.1-level2-20261201T010000Z.tar.gz")
    newest = package(folder, "tdc-c1-torch1.13.1-level2-20261201T020000Z.tar.gz")
    rows = plan.task_rows(plan.read(write_list(tmp_path, LIST)), str(tmp_path / "packages"), "")
    assert rows[2]["package"] == newest
    assert rows[2]["reason"] == "2 packages from this job; merged the newest, not " \
                                "tdc-c1-torch1.13.1-level2-20261201T010000Z.tar.gz"


def test_a_package_no_job_of_the_list_made_is_refused(tmp_path):
    package(str(tmp_path / "packages" / "g9" / "2.13.0"))
    with pytest.raises(InputError, match=r"g9/2.13.0/tdc-x.tar.gz is no job's of the host list"):
        plan.task_rows(plan.read(write_list(tmp_path, LIST)), str(tmp_path / "packages"), "")


def test_the_writer_refuses_a_row_the_reader_would(tmp_path):
    with pytest.raises(InputError, match="state 'LOST' is not a finished Slurm state"):
        tasks.write(str(tmp_path / "t.json"), [{"host": "h", "build": "b", "job_id": "", "array_task_id": 0,
                                                 "state": "LOST", "exit_code": None, "package": None,
                                                 "reason": ""}])
    assert not os.path.exists(tmp_path / "t.json")


BAD = {
    "a bad build name": ([{"host": "g1", "kind": "gpu", "builds": ["2.13.0; rm -rf /"]}],
                         "build '2.13.0; rm -rf /' is not a LibTorch"),
    "a prefix path as build": ([{"host": "g1", "kind": "gpu", "builds": ["/opt/libtorch"]}],
                               "build '/opt/libtorch' is not a LibTorch"),
    "a build twice": ([{"host": "g1", "kind": "gpu", "builds": ["2.13.0", "2.13.0"]}],
                      "host 'g1' lists build '2.13.0' twice"),
    "a host twice": ([LIST[0], dict(LIST[0], builds=["2.14.1"])], "entry 1: host 'g1' is listed twice"),
    "system on a gpu host": ([{"host": "g1", "kind": "gpu", "builds": ["2.13.0", "system"]}],
                             "host 'g1' is a gpu host: system (Debian's 1.13.1) is CPU only"),
    "a host that is a path": ([{"host": "../up", "kind": "cpu", "builds": ["system"]}],
                              "host '../up' is not a host name"),
    "an unknown key": ([dict(LIST[0], runner="x")], "unknown key(s) 'runner'"),
    "a missing key": ([{"host": "g1", "builds": ["2.13.0"]}], "has no 'kind'"),
    "a wrong type": ([{"host": "g1", "kind": "gpu", "builds": "2.13.0"}], "'builds' is a JSON string"),
    "an unknown kind": ([{"host": "g1", "kind": "tpu", "builds": ["2.13.0"]}], "kind 'tpu' is not one of gpu, cpu"),
    "no build": ([{"host": "g1", "kind": "gpu", "builds": []}], "host 'g1' has no build"),
    "an empty list": ([], "is empty: the nightly would test nothing"),
    "an object": ({"hosts": LIST}, "is a JSON object, expected a list"),
    "not JSON": ("[{\"host\": ", "not"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_list_is_one_line_and_exit_2(tmp_path, case):
    hosts, message = BAD[case]
    run = tool(write_list(tmp_path, hosts), "--github-matrix")
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith("fleet-plan: "), run.stderr
    assert message in run.stderr


def test_the_good_list_passes_the_same_checks(tmp_path):
    """The negatives' positive: the list they doctor is accepted."""
    assert tool(write_list(tmp_path, LIST), "--github-matrix").returncode == 0


def test_more_jobs_than_a_platform_runs_is_refused(tmp_path):
    many = [{"host": f"g{i}", "kind": "gpu", "builds": ["2.13.0", "2.14.1"]} for i in range(101)]
    path = write_list(tmp_path, many)
    assert plan.github_matrix(plan.read(path))   # 202 jobs fit GitHub's 256 ...
    run = tool(path, "--gitlab-matrix")          # ... not GitLab's 200
    assert run.returncode == 2 and "202 jobs: gitlab's matrix runs at most 200" in run.stderr


@pytest.mark.parametrize("argv, message", [
    (["--tasks=t.json"], "--tasks needs --packages"),
    (["--github-matrix", "--packages=p"], "--packages and --run-id go with --tasks"),
    (["--github-matrix", "--gitlab-matrix"], "not allowed with argument"),
    ([], "one of the arguments"),
])
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, argv, message):
    run = tool(write_list(tmp_path, LIST), *argv)
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1 and message in run.stderr
