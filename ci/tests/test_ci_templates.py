"""The CI templates in ci/templates/ are valid YAML (Debian's python3-yaml),
have the shape their platform needs (a build matrix on GPU runners,
packages as artefacts, a merge job with history between nights), and call
only tools that exist in ci/, with only flags those tools' --help names."""
import os
import re
import subprocess

import pytest
from conftest import ROOT

yaml = pytest.importorskip("yaml", reason="Debian's python3-yaml")

TEMPLATES = os.path.join(ROOT, "ci", "templates")
# A call: ci/<tool> and the rest of its logical line (continuations joined),
# up to a pipe, a list operator or the end.
TOOL = re.compile(r"(?<![\w/.-])ci/([A-Za-z0-9_-]+)([^\n|;&]*)")


def scripts(document):
    """Every shell text of a GitHub workflow (run:) or GitLab file (script:)."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "run" and isinstance(value, str):
                    found.append(value)
                elif key in ("script", "before_script", "after_script"):
                    found.extend(value if isinstance(value, list) else [value])
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    walk(document)
    return found


def problems_of(document):
    """Calls of ci/ tools that do not exist, and flags their --help does not name."""
    problems, calls = [], []
    helps = {}
    for text in scripts(document):
        for match in TOOL.finditer(re.sub(r"\\\n\s*", " ", text)):
            tool, arguments = match.group(1), match.group(2)
            calls.append(tool)
            path = os.path.join(ROOT, "ci", tool)
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                problems.append(f"ci/{tool} does not exist in ci/")
                continue
            if tool not in helps:
                run = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60)
                helps[tool] = run.stdout + run.stderr
            for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", arguments):
                if flag not in helps[tool]:
                    problems.append(f"ci/{tool} {flag}: not an option of ci/{tool} (its --help does not name it)")
    return problems, calls


def load(name):
    with open(os.path.join(TEMPLATES, name)) as f:
        return yaml.safe_load(f)


def test_github_workflow_is_a_matrix_on_gpu_runners_with_a_merge_job():
    flow = load("github-actions.yml")
    jobs = flow["jobs"]
    build = jobs["conformance"]
    assert build["strategy"]["matrix"]["torch"] and build["strategy"]["fail-fast"] is False
    assert "self-hosted" in build["runs-on"]
    uses = [step.get("uses", "") for step in build["steps"]]
    assert any(u.startswith("actions/upload-artifact") for u in uses)
    merge = jobs["merge"]
    assert merge["needs"] == "conformance" and merge["if"] == "always()"
    merge_uses = [step.get("uses", "") for step in merge["steps"]]
    assert any(u.startswith("actions/download-artifact") for u in merge_uses)
    assert any(u.startswith("actions/cache/restore") for u in merge_uses)
    assert any(u.startswith("actions/cache/save") for u in merge_uses)


def test_gitlab_pipeline_is_a_matrix_on_gpu_runners_with_a_merge_job():
    pipeline = load("gitlab-ci.yml")
    assert pipeline["stages"] == ["conformance", "merge"]
    build = pipeline["conformance"]
    assert build["parallel"]["matrix"][0]["TORCH"] and build["artifacts"]["when"] == "always"
    merge = pipeline["merge"]
    assert merge["when"] == "always" and "history/" in merge["cache"]["paths"]
    assert merge["artifacts"]["reports"]["junit"] == "merged/junit.xml"


@pytest.mark.parametrize("name", ["github-actions.yml", "gitlab-ci.yml"])
def test_templates_call_only_tools_and_flags_that_exist(name):
    problems, calls = problems_of(load(name))
    assert problems == []
    assert {"conformance", "package", "merge"} <= set(calls)


def test_the_check_catches_a_missing_tool_and_an_unknown_flag():
    doctored = {"jobs": {"x": {"steps": [{"run": "ci/not-a-tool --x\nci/merge p.tar.gz --out m --frobnicate"}]}}}
    problems, _ = problems_of(doctored)
    assert problems == ["ci/not-a-tool does not exist in ci/",
                        "ci/merge --frobnicate: not an option of ci/merge (its --help does not name it)"]


def test_broken_yaml_is_not_accepted(tmp_path):
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load("jobs:\n  merge:\n    steps: [\n")


# Issue 35, "CI templates that work for a fleet": each template's matrix,
# rendered to its jobs, is runner x build (one job per host and build, each
# pinned to its host's runner), `system` (Debian's 1.13.1, CPU only) never
# shares a host with the GPU builds, and an empty signers setting fails the
# merge job before ci/merge could run with checks off.
SYSTEM = "system"


def github_jobs(flow):
    """[(host, build, runner labels)] of the conformance matrix, as GitHub expands it."""
    job = flow["jobs"]["conformance"]
    matrix = dict(job["strategy"]["matrix"])
    include = matrix.pop("include", [])
    combos = [{}]
    for key, values in matrix.items():
        combos = [dict(c, **{key: v}) for c in combos for v in values]
    combos += [dict(extra) for extra in include]
    return [(c["host"], c["torch"], [label.replace("${{ matrix.host }}", c["host"])
                                     .replace("${{ matrix.torch }}", c["torch"]) for label in job["runs-on"]])
            for c in combos]


def gitlab_jobs(pipeline):
    job = pipeline["conformance"]
    found = []
    for entry in job["parallel"]["matrix"]:
        for host in entry["HOST"]:
            for build in entry["TORCH"]:
                found.append((host, build, [t.replace("$HOST", host).replace("$TORCH", build) for t in job["tags"]]))
    return found


def fleet_problems(jobs):
    problems = []
    if len({host for host, _, _ in jobs}) < 2:
        problems.append("fewer than two hosts: the matrix does not fan out per host")
    if len(set((h, b) for h, b, _ in jobs)) != len(jobs):
        problems.append("a host and build appear twice")
    for host, build, labels in jobs:
        if host not in labels:
            problems.append(f"{host} {build}: not pinned to its host's runner (labels {labels})")
    gpu_hosts = {host for host, build, _ in jobs if build != SYSTEM}
    for host, build, _ in jobs:
        if build == SYSTEM and host in gpu_hosts:
            problems.append(f"{host}: system (CPU only) on a GPU host")
    return problems


def test_github_matrix_is_runner_by_build_with_system_off_gpu_hosts():
    jobs = github_jobs(load("github-actions.yml"))
    assert fleet_problems(jobs) == [] and ("cpu-node-01", SYSTEM) in [(h, b) for h, b, _ in jobs]


def test_gitlab_matrix_is_runner_by_build_with_system_off_gpu_hosts():
    jobs = gitlab_jobs(load("gitlab-ci.yml"))
    assert fleet_problems(jobs) == [] and ("cpu-node-01", SYSTEM) in [(h, b) for h, b, _ in jobs]


def test_the_fleet_check_finds_the_old_matrices_wrong():
    old_github = {"jobs": {"conformance": {"strategy": {"matrix": {"torch": ["2.13.0", "2.14.1", "system"]}},
                                           "runs-on": ["self-hosted", "linux", "tdc-gpu"]}}}
    old = [("tdc-gpu", b, ["self-hosted", "linux", "tdc-gpu"]) for b in ("2.13.0", "2.14.1", SYSTEM)]
    assert "fewer than two hosts: the matrix does not fan out per host" in fleet_problems(old)
    assert "tdc-gpu: system (CPU only) on a GPU host" in fleet_problems(old)
    with pytest.raises(KeyError):   # no host in the matrix at all
        github_jobs(old_github)
    flow = load("github-actions.yml")
    flow["jobs"]["conformance"]["strategy"]["matrix"]["torch"].append(SYSTEM)
    assert any("system (CPU only) on a GPU host" in p for p in fleet_problems(github_jobs(flow)))
    flow = load("github-actions.yml")
    flow["jobs"]["conformance"]["runs-on"] = ["self-hosted", "linux", "tdc-gpu"]
    assert any("not pinned to its host's runner" in p for p in fleet_problems(github_jobs(flow)))
    pipeline = load("gitlab-ci.yml")
    pipeline["conformance"]["tags"] = ["tdc-gpu"]
    assert any("not pinned" in p for p in fleet_problems(gitlab_jobs(pipeline)))


def merge_script(name, document):
    if name == "github-actions.yml":
        step = next(s for s in document["jobs"]["merge"]["steps"] if s.get("id") == "merge")
        return step["run"]
    return "\n".join(document["merge"]["script"])


def run_merge_step(tmp_path, script, signers):
    """The merge step's own shell, in a folder whose ci/merge only records that it ran."""
    (tmp_path / "ci").mkdir(exist_ok=True)
    stub = tmp_path / "ci" / "merge"
    stub.write_text('#!/bin/sh\necho "$@" > merge-called; mkdir -p merged; echo {} > merged/matrix.json\n')
    stub.chmod(0o755)
    (tmp_path / "packages").mkdir(exist_ok=True)
    (tmp_path / "packages" / "a.tar.gz").write_text("")
    run = subprocess.run(["bash", "-ec", script], cwd=tmp_path, capture_output=True, text=True, timeout=30,
                         env=dict(os.environ, TDC_ALLOWED_SIGNERS=signers, GITHUB_OUTPUT=str(tmp_path / "out")))
    return run.returncode, (tmp_path / "merge-called").exists()


@pytest.mark.parametrize("name", ["github-actions.yml", "gitlab-ci.yml"])
def test_an_empty_signers_setting_fails_the_merge_job(tmp_path, name):
    script = merge_script(name, load(name))
    (tmp_path / "empty").mkdir()
    assert run_merge_step(tmp_path / "empty", script, "") == (2, False)
    (tmp_path / "set").mkdir()
    assert run_merge_step(tmp_path / "set", script, "allowed_signers") == (0, True)
    # The check fails a template without the guard: ci/merge runs with checks off.
    unguarded = "\n".join(line for line in script.splitlines() if "TDC_ALLOWED_SIGNERS\" ]" not in line
                          and "TDC_ALLOWED_SIGNERS:-}\" ]" not in line and "echo \"TDC_ALLOWED" not in line
                          and line.strip() not in ("fi",))
    (tmp_path / "unguarded").mkdir()
    assert run_merge_step(tmp_path / "unguarded", unguarded, "") == (0, True)
