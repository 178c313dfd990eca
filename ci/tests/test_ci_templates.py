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
