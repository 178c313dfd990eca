"""The CI templates in ci/templates/ are valid YAML (Debian's python3-yaml),
have the shape their platform needs (a build matrix on GPU runners,
packages as artefacts, a merge job with history between nights), and call
only tools that exist (ci/ programs, `bin/tdc <verb>`), with only flags
those tools' --help names."""
import json
import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT

from tdc import verbs

yaml = pytest.importorskip("yaml", reason="Debian's python3-yaml")

TEMPLATES = os.path.join(ROOT, "ci", "templates")
# A call: ci/<tool> or bin/tdc <verb>, and the rest of its logical line
# (continuations joined), up to a pipe, a list operator or the end; not a
# path into ci/ (ci/templates/...).
TOOL = re.compile(r"(?<![\w/.-])(?:ci/([A-Za-z0-9_-]+)(?![\w/-])|bin/tdc ([a-z][a-z-]*))([^\n|;&]*)")


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
    """Calls of ci/ tools and tdc verbs that do not exist, and flags their --help does not name."""
    problems, calls = [], []
    helps = {}
    for text in scripts(document):
        for match in TOOL.finditer(re.sub(r"\\\n\s*", " ", text)):
            script, verb, arguments = match.groups()
            calls.append(script or verb)
            if script:
                name, command = f"ci/{script}", [os.path.join(ROOT, "ci", script)]
                if not (os.path.isfile(command[0]) and os.access(command[0], os.X_OK)):
                    problems.append(f"{name} does not exist in ci/")
                    continue
            else:
                name, command = f"bin/tdc {verb}", [os.path.join(ROOT, "bin", "tdc"), verb]
                if verb not in verbs.VERBS:
                    problems.append(f"{name}: not a verb of tdc (tdc --help lists them)")
                    continue
            if name not in helps:
                run = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
                helps[name] = run.stdout + run.stderr
            for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", arguments):
                if flag not in helps[name]:
                    problems.append(f"{name} {flag}: not an option of {name} (its --help does not name it)")
    return problems, calls


def load(name):
    with open(os.path.join(TEMPLATES, name)) as f:
        return yaml.safe_load(f)


def test_github_workflow_is_a_planned_matrix_on_host_runners_with_a_merge_job():
    flow = load("github-actions.yml")
    jobs = flow["jobs"]
    assert jobs["plan"]["outputs"]["matrix"] == "${{ steps.plan.outputs.matrix }}"
    build = jobs["conformance"]
    assert build["needs"] == "plan" and build["strategy"]["fail-fast"] is False
    assert build["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    assert "self-hosted" in build["runs-on"]
    uses = [step.get("uses", "") for step in build["steps"]]
    assert any(u.startswith("actions/upload-artifact") for u in uses)
    merge = jobs["merge"]
    assert merge["needs"] == ["plan", "conformance"] and merge["if"] == "always()"
    merge_uses = [step.get("uses", "") for step in merge["steps"]]
    assert any(u.startswith("actions/download-artifact") for u in merge_uses)
    assert any(u.startswith("actions/cache/restore") for u in merge_uses)
    assert any(u.startswith("actions/cache/save") for u in merge_uses)


def test_gitlab_pipeline_plans_a_child_pipeline_with_a_matrix_and_a_merge_job():
    parent = load("gitlab-ci.yml")
    assert parent["stages"] == ["plan", "nightly"]
    assert "tdc-nightly.yml" in parent["tdc-plan"]["artifacts"]["paths"]
    trigger = parent["tdc-nightly"]["trigger"]
    assert trigger["include"] == [{"artifact": "tdc-nightly.yml", "job": "tdc-plan"}]
    assert trigger["strategy"] == "depend"   # the child's outcome is the pipeline's
    child = load("gitlab-nightly.yml")
    assert child["stages"] == ["conformance", "merge"]
    build = child["conformance"]
    assert build["extends"] == ".tdc-fleet-matrix" and build["artifacts"]["when"] == "always"
    merge = child["merge"]
    assert merge["when"] == "always" and "history/" in merge["cache"]["paths"]
    assert merge["artifacts"]["reports"]["junit"] == "merged/junit.xml"


GITLAB = ["gitlab-ci.yml", "gitlab-nightly.yml"]


@pytest.mark.parametrize("names", [["github-actions.yml"], GITLAB])
def test_templates_call_only_tools_and_flags_that_exist(names):
    calls = []
    for name in names:
        problems, called = problems_of(load(name))
        assert problems == []
        calls += called
    assert {"fleet-plan", "conformance", "package", "merge"} <= set(calls)


def test_the_check_catches_a_missing_tool_and_an_unknown_flag():
    doctored = {"jobs": {"x": {"steps": [{"run": "ci/not-a-tool --x\nci/merge p.tar.gz --out m --frobnicate\n"
                                                 "bin/tdc not-a-verb --x\nbin/tdc fleet-plan h --tasks=t --shred"}]}}}
    problems, _ = problems_of(doctored)
    assert problems == ["ci/not-a-tool does not exist in ci/",
                        "ci/merge --frobnicate: not an option of ci/merge (its --help does not name it)",
                        "bin/tdc not-a-verb: not a verb of tdc (tdc --help lists them)",
                        "bin/tdc fleet-plan --shred: not an option of bin/tdc fleet-plan (its --help does not name it)"]
    # A verb whose ci/ wrapper issue 30 removed is no ci/ tool any more: a template says bin/tdc.
    removed = "fleet-plan"
    assert removed not in verbs.KNOWN_COMMANDS
    assert problems_of({"x": {"script": [f"ci/{removed} h --tasks=t"]}})[0] == [f"ci/{removed} does not exist in ci/"]


def test_broken_yaml_is_not_accepted(tmp_path):
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load("jobs:\n  merge:\n    steps: [\n")


# Issue 35, "CI templates that work for a fleet": one host x build list
# (ci/templates/fleet-hosts.json) makes each template's matrix, rendered to
# its jobs by the template's own plan step and the real `bin/tdc fleet-plan`: runner
# x build (one job per host and build, each pinned to its host's runner),
# `system` (Debian's 1.13.1, CPU only) never on a GPU host. The merge job's
# tasks come from the same list, so a job whose package is missing is a "no
# package" row (end to end, with the real ci/merge on signed packages); an
# empty signers setting fails the merge job before ci/merge could run with
# checks off.
SYSTEM = "system"
HOSTS = os.path.join(ROOT, "ci", "templates", "fleet-hosts.json")


def workspace(folder, merge=None):
    """A job's checkout: bin/tdc (a copy, which finds the tools beside it), ci/tdc,
    ci/tools.sh (bin/tdc's Python path) and ci/templates are the tree's;
    ci/merge is the tree's too, or a stub script (text) when merge is given."""
    ci = folder / "ci"
    ci.mkdir(parents=True)
    (folder / "bin").mkdir()
    shutil.copy(os.path.join(ROOT, "bin", "tdc"), folder / "bin" / "tdc")
    for name in ("tdc", "tools.sh", "templates") + (() if merge else ("merge",)):
        (ci / name).symlink_to(os.path.join(ROOT, "ci", name))
    if merge:
        (ci / "merge").write_text(merge)
        (ci / "merge").chmod(0o755)
    return folder


def run_script(folder, script, **env):
    return subprocess.run(["bash", "-ec", script], cwd=folder, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **env))


def github_plan(tmp_path, hosts=None, flow=None):
    """The matrix the plan job's own step makes from the list (default: the template's)."""
    flow = flow or load("github-actions.yml")
    step = next(s for s in flow["jobs"]["plan"]["steps"] if s.get("id") == "plan")
    folder = workspace(tmp_path / "plan")
    output = tmp_path / "github-output"
    run = run_script(folder, step["run"], GITHUB_OUTPUT=str(output),
                     TDC_FLEET_HOSTS=hosts or flow["env"]["TDC_FLEET_HOSTS"])
    assert run.returncode == 0, run.stderr
    lines = output.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("matrix=")
    return json.loads(lines[0][len("matrix="):])


def github_jobs(flow, matrix=None):
    """[(host, build, runner labels)] of the conformance matrix, as GitHub expands it
    (matrix: the plan's output, which the template's fromJSON expression reads)."""
    job = flow["jobs"]["conformance"]
    matrix = dict(job["strategy"]["matrix"] if matrix is None else matrix)
    include = matrix.pop("include", [])
    combos = [{}] if matrix else []   # an include-only matrix is its includes
    for key, values in matrix.items():
        combos = [dict(c, **{key: v}) for c in combos for v in values]
    combos += [dict(extra) for extra in include]
    return [(c["host"], c["torch"], [label.replace("${{ matrix.host }}", c["host"])
                                     .replace("${{ matrix.torch }}", c["torch"]) for label in job["runs-on"]])
            for c in combos]


def gitlab_child(tmp_path, hosts=None):
    """The child pipeline the parent's tdc-plan job writes from the list."""
    parent = load("gitlab-ci.yml")
    folder = workspace(tmp_path / "plan")
    run = run_script(folder, "\n".join(parent["tdc-plan"]["script"]),
                     TDC_FLEET_HOSTS=hosts or parent["variables"]["TDC_FLEET_HOSTS"])
    assert run.returncode == 0, run.stderr
    return yaml.safe_load((folder / "tdc-nightly.yml").read_text())


def gitlab_jobs(pipeline):
    job = dict(pipeline["conformance"])
    base = pipeline.get(job.pop("extends", None), {})
    job = dict(base, **job)   # GitLab's extends: the job's own keys win
    found = []
    for entry in job["parallel"]["matrix"]:
        for host in entry["HOST"]:
            for build in entry["TORCH"]:
                found.append((host, build, [t.replace("$HOST", host).replace("$TORCH", build) for t in job["tags"]]))
    return found


def fleet_problems(jobs, hosts=HOSTS):
    """What is wrong with a rendered matrix against the list it came from."""
    with open(hosts) as f:
        listed = json.load(f)
    problems = []
    if len({host for host, _, _ in jobs}) < 2:
        problems.append("fewer than two hosts: the matrix does not fan out per host")
    if len(set((h, b) for h, b, _ in jobs)) != len(jobs):
        problems.append("a host and build appear twice")
    want = [(entry["host"], build) for entry in listed for build in entry["builds"]]
    if sorted((h, b) for h, b, _ in jobs) != sorted(want):
        problems.append(f"the matrix is not the list's runner x build: {sorted((h, b) for h, b, _ in jobs)}")
    for host, build, labels in jobs:
        if host not in labels:
            problems.append(f"{host} {build}: not pinned to its host's runner (labels {labels})")
    gpu_hosts = {entry["host"] for entry in listed if entry["kind"] == "gpu"} | \
                {host for host, build, _ in jobs if build != SYSTEM}
    for host, build, _ in jobs:
        if build == SYSTEM and host in gpu_hosts:
            problems.append(f"{host}: system (CPU only) on a GPU host")
    return problems


def test_github_matrix_is_the_lists_runner_by_build_with_system_off_gpu_hosts(tmp_path):
    jobs = github_jobs(load("github-actions.yml"), github_plan(tmp_path))
    assert fleet_problems(jobs) == [] and ("cpu-node-01", SYSTEM) in [(h, b) for h, b, _ in jobs]
    assert len(jobs) == 5


def test_gitlab_matrix_is_the_lists_runner_by_build_with_system_off_gpu_hosts(tmp_path):
    jobs = gitlab_jobs(gitlab_child(tmp_path))
    assert fleet_problems(jobs) == [] and ("cpu-node-01", SYSTEM) in [(h, b) for h, b, _ in jobs]
    assert len(jobs) == 5


def test_an_edited_list_is_the_matrix_of_both_platforms(tmp_path):
    """The lab edits one file; both matrices follow it."""
    edited = tmp_path / "hosts.json"
    edited.write_text(json.dumps([{"host": f"n{i}", "kind": "gpu", "builds": ["2.14.1"]} for i in range(7)]))
    want = sorted((f"n{i}", "2.14.1") for i in range(7))
    github = github_jobs(load("github-actions.yml"), github_plan(tmp_path / "g", str(edited)))
    gitlab = gitlab_jobs(gitlab_child(tmp_path / "l", str(edited)))
    for jobs in (github, gitlab):
        assert sorted((h, b) for h, b, _ in jobs) == want and fleet_problems(jobs, str(edited)) == []


def test_the_fleet_check_finds_the_old_matrices_wrong(tmp_path):
    old = [("tdc-gpu", b, ["self-hosted", "linux", "tdc-gpu"]) for b in ("2.13.0", "2.14.1", SYSTEM)]
    assert "fewer than two hosts: the matrix does not fan out per host" in fleet_problems(old)
    assert "tdc-gpu: system (CPU only) on a GPU host" in fleet_problems(old)
    assert any(p.startswith("the matrix is not the list's runner x build") for p in fleet_problems(old))
    flow = load("github-actions.yml")
    matrix = github_plan(tmp_path, flow=flow)
    matrix["include"].append({"host": "gpu-node-01", "torch": SYSTEM})
    assert any("gpu-node-01: system (CPU only) on a GPU host" in p for p in fleet_problems(github_jobs(flow, matrix)))
    matrix["include"].pop()
    matrix["include"].pop(0)   # a job the list has that the matrix lost
    assert any(p.startswith("the matrix is not the list's") for p in fleet_problems(github_jobs(flow, matrix)))
    flow["jobs"]["conformance"]["runs-on"] = ["self-hosted", "linux", "tdc-gpu"]
    assert any("not pinned to its host's runner" in p
               for p in fleet_problems(github_jobs(flow, github_plan(tmp_path / "again", flow=flow))))
    pipeline = gitlab_child(tmp_path / "gitlab")
    pipeline["conformance"]["tags"] = ["tdc-gpu"]
    assert any("not pinned" in p for p in fleet_problems(gitlab_jobs(pipeline)))


def test_a_bad_list_fails_the_plan_job_with_one_line(tmp_path):
    """A duplicate or a bad build name stops the night at its plan, never a matrix without them."""
    for index, entries in enumerate([
            [{"host": "n1", "kind": "gpu", "builds": ["2.13.0"]}, {"host": "n1", "kind": "gpu", "builds": ["2.14.1"]}],
            [{"host": "n1", "kind": "gpu", "builds": ["2.13"]}]]):
        bad = tmp_path / f"bad{index}.json"
        bad.write_text(json.dumps(entries))
        flow = load("github-actions.yml")
        step = next(s for s in flow["jobs"]["plan"]["steps"] if s.get("id") == "plan")
        run = run_script(workspace(tmp_path / f"g{index}"), step["run"], TDC_FLEET_HOSTS=str(bad),
                         GITHUB_OUTPUT=str(tmp_path / f"out{index}"))
        assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, run.stderr
        assert not (tmp_path / f"out{index}").exists()   # no matrix reached the conformance job
        parent = load("gitlab-ci.yml")
        run = run_script(workspace(tmp_path / f"l{index}"), "\n".join(parent["tdc-plan"]["script"]),
                         TDC_FLEET_HOSTS=str(bad))
        assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, run.stderr
        assert not (tmp_path / f"l{index}" / "tdc-nightly.yml").exists()


def merge_script(name, document=None):
    document = document or load(name)
    if name == "github-actions.yml":
        step = next(s for s in document["jobs"]["merge"]["steps"] if s.get("id") == "merge")
        return step["run"]
    return "\n".join(document["merge"]["script"])


MERGES = ["github-actions.yml", "gitlab-nightly.yml"]
# A ci/merge that records its arguments and the tasks file it was given.
STUB = ('#!/bin/sh\necho "$@" > merge-called\n'
        'while [ $# -gt 0 ]; do [ "$1" = --tasks ] && cp "$2" tasks-seen.json; shift; done\n'
        'mkdir -p merged; echo {} > merged/matrix.json\n')


def run_merge_step(folder, script, signers, hosts=HOSTS, merge=STUB):
    """The merge step's own shell in a checkout whose ci/merge is `merge`
    (the stub by default; None: the real one), packages/ as the artefacts left it."""
    workspace(folder, merge)
    (folder / "packages").mkdir(exist_ok=True)
    run = run_script(folder, script, TDC_ALLOWED_SIGNERS=signers, TDC_FLEET_HOSTS=hosts,
                     GITHUB_OUTPUT=str(folder / "out"), GITHUB_RUN_ID="4242", CI_PIPELINE_ID="4242")
    return run.returncode, (folder / "merge-called").exists()


@pytest.mark.parametrize("name", MERGES)
def test_an_empty_signers_setting_fails_the_merge_job(tmp_path, name):
    script = merge_script(name)
    assert run_merge_step(tmp_path / "empty", script, "") == (2, False)
    assert run_merge_step(tmp_path / "set", script, "allowed_signers") == (0, True)
    # The check fails a template without the guard: ci/merge runs with checks off.
    unguarded = "\n".join(line for line in script.splitlines() if "TDC_ALLOWED_SIGNERS\" ]" not in line
                          and "TDC_ALLOWED_SIGNERS:-}\" ]" not in line and "echo \"TDC_ALLOWED" not in line
                          and line.strip() not in ("fi",))
    assert run_merge_step(tmp_path / "unguarded", unguarded, "") == (0, True)


def tasks_of_merge(folder, script):
    """(host, build) of the tasks file the merge step handed to ci/merge, or None without --tasks."""
    assert run_merge_step(folder, script, "allowed_signers") == (0, True)
    seen = folder / "tasks-seen.json"
    return [(t["host"], t["build"]) for t in json.loads(seen.read_text())] if seen.exists() else None


@pytest.mark.parametrize("name", MERGES)
def test_the_merge_jobs_tasks_are_the_matrix_from_the_same_list(tmp_path, name):
    matrix = (github_jobs(load("github-actions.yml"), github_plan(tmp_path / "p")) if name == "github-actions.yml"
              else gitlab_jobs(gitlab_child(tmp_path / "p")))
    assert tasks_of_merge(tmp_path / "m", merge_script(name)) == [(h, b) for h, b, _ in matrix]
    # The negative: the merge step as it was, packages and no --tasks, hands ci/merge no task list.
    before = re.sub(r"\n\s*bin/tdc fleet-plan[^\n]*", "", merge_script(name)).replace(
        "ci/merge --tasks tasks.json", "ci/merge packages/*/*/*.tar.gz")
    assert tasks_of_merge(tmp_path / "before", before) is None


@pytest.mark.parametrize("name", MERGES)
def test_a_job_that_left_no_package_is_a_no_package_row(tmp_path, name):
    """End to end: the merge step with the real `bin/tdc fleet-plan` and ci/merge, n1's
    signed package as its job's artefact left it, n2's job dead."""
    from test_fleet_provenance import Lab   # real signed packages of a synthetic run
    lab = Lab(str(tmp_path))
    hosts = tmp_path / "hosts.json"
    hosts.write_text(json.dumps([{"host": "n1", "kind": "gpu", "builds": ["2.13.0"]},
                                 {"host": "n2", "kind": "gpu", "builds": ["2.13.0"]}]))
    folder = tmp_path / "job"
    artefact = folder / "packages" / "n1" / "2.13.0"
    artefact.mkdir(parents=True)
    shutil.copy(lab.package("n1"), artefact)
    status, _ = run_merge_step(folder, merge_script(name), lab.signers, hosts=str(hosts), merge=None)
    written = (folder / "out").read_text() if name == "github-actions.yml" else ""
    assert status == (0 if name == "github-actions.yml" else 1)   # GitHub's step keeps the status for later
    assert "status=1" in written or name != "github-actions.yml"    # a row without a package fails the night
    document = json.loads((folder / "merged" / "matrix.json").read_text())
    rows = {(r["host"], r["build"]): r for r in document["rows"]}
    assert set(rows) == {("n1", "2.13.0"), ("n2", "2.13.0")}
    assert rows[("n1", "2.13.0")]["trust"] == "verified"
    dead = rows[("n2", "2.13.0")]
    assert dead["trust"] == "no package" and dead["package"] is None and dead["state"] == "UNKNOWN"
    assert dead["reason"].startswith("no package: the CI job for host 'n2' build '2.13.0' left none")
    assert dead["job_id"] == "4242"


def package_out(script, host, build):
    """Where a conformance job's ci/package writes, for one host and build."""
    text = re.sub(r"\\\n\s*", " ", script)
    out = re.search(r"ci/package [^\n]*--out=(\"[^\"]*\"|\S+)", text).group(1).strip('"')
    for name, value in (("${{ matrix.host }}", host), ("${{ matrix.torch }}", build),
                        ("$HOST", host), ("$TORCH", build)):
        out = out.replace(name, value)
    return out


def test_each_job_leaves_its_package_where_the_merge_looks_for_its_task(tmp_path):
    """`bin/tdc fleet-plan --tasks` finds a job's package in packages/<host>/<build>/."""
    flow = load("github-actions.yml")
    steps = flow["jobs"]["conformance"]["steps"]
    script = "\n".join(s.get("run", "") for s in steps)
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["path"] == "packages/"   # one root: download (merge-multiple) keeps <host>/<build>/
    download = next(s for s in flow["jobs"]["merge"]["steps"] if s.get("uses", "").startswith("actions/download"))
    assert download["with"]["path"] == "packages" and download["with"]["merge-multiple"] is True
    child = load("gitlab-nightly.yml")
    assert child["conformance"]["artifacts"]["paths"] == ["packages/"]
    for jobs, text in ((github_jobs(flow, github_plan(tmp_path / "g")), script),
                       (gitlab_jobs(gitlab_child(tmp_path / "l")), "\n".join(child["conformance"]["script"]))):
        for host, build, _ in jobs:
            assert package_out(text, host, build) == f"packages/{host}/{build}"
    # The negative: the old flat --out is caught.
    assert package_out('ci/package r --out=packages', "n1", "2.13.0") != "packages/n1/2.13.0"
