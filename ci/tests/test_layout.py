"""The house rules the package keeps: no sys.path edits, every command a doc
shows is executable and has a working --help of its own, every option says
what it does, every verb imports."""
import importlib
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from tdc import verbs


def tracked(*patterns):
    run = subprocess.run(["git", "-C", ROOT, "ls-files", "-s", *patterns], capture_output=True, text=True)
    if run.returncode != 0:
        pytest.skip("not a git checkout")
    return [line.split(None, 3) for line in run.stdout.splitlines()]


def python_files():
    for mode, _, _, path in tracked("*.py", "ci/*"):
        full = os.path.join(ROOT, path)
        if path.endswith(".py") or open(full, "rb").read(64).startswith(b"#!/usr/bin/env python3"):
            yield path, full


def test_no_sys_path_edits():
    found = []
    for path, full in python_files():
        for number, line in enumerate(open(full, encoding="utf-8"), 1):
            call = re.search(r"\bsys\.path\.(insert|append)\(.*", line)
            if call and "#" not in call.group(0):  # a use that says why is allowed
                found.append(f"{path}:{number}")
    assert not found, f"sys.path edits: {found}"


def documented_commands():
    """Every ci/<tool> the README and docs show being run."""
    names = set()
    for doc in ["README.md"] + [os.path.join("docs", d) for d in os.listdir(os.path.join(ROOT, "docs"))
                                if d.endswith(".md")]:
        text = open(os.path.join(ROOT, doc), encoding="utf-8").read()
        # A command, not a path into ci/ (ci/lib.sh, ci/tdc/fleet/, ci/templates/...).
        names.update(re.findall(r"(?<![\w/.])ci/([a-z][a-z_-]*(?:\.py)?)\b(?![./])", text))
    return sorted(n for n in names if not os.path.isdir(os.path.join(ROOT, "ci", n)))  # ci/tdc/ is the package


@pytest.mark.parametrize("name", documented_commands())
def test_documented_command_is_executable_with_its_own_help(name):
    path = os.path.join(ROOT, "ci", name)
    assert os.path.isfile(path), f"a doc names ci/{name}, which does not exist"
    modes = {p: m for m, _, _, p in tracked(f"ci/{name}")}
    assert modes.get(f"ci/{name}") == "100755", f"ci/{name} is not committed executable"
    run = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, PATH=os.path.dirname(sys.executable) + ":" + os.environ["PATH"]))
    assert run.returncode == 0, run.stderr
    assert "set -euo pipefail" not in run.stdout and "#!/" not in run.stdout
    assert len(run.stdout.splitlines()) >= 3


@pytest.mark.parametrize("verb, module", sorted((v, e.module) for v, e in verbs.VERBS.items() if "." in e.module))
def test_every_option_says_what_it_does(verb, module):
    loaded = importlib.import_module(module)
    if not hasattr(loaded, "parser"):
        return
    bare = [a.option_strings or [a.dest] for a in loaded.parser()._actions if not a.help]
    assert not bare, f"{verb}: options without a description: {bare}"


def test_python_m_tdc_lists_every_verb():
    run = subprocess.run([sys.executable, "-m", "tdc", "--help"], capture_output=True, text=True,
                         env=verbs.tools_env())
    assert run.returncode == 0
    for verb in verbs.VERBS:
        assert f"  {verb} " in run.stdout


# A check's file is named after its suite: `EventBlock` lives in
# suites/events/event_block.cpp. The project's own units under
# suites/selftest add `_test` (`DeviceSpec` in device_spec_test.cpp). Helpers
# (no TEST) are free. docs/conformance.md, "Names", states the rule.
SUITE = re.compile(r"^\s*(?:TEST|TEST_P|TEST_F)\(\s*([A-Za-z0-9_]+)\s*,", re.M)
# One word for one thing: cross-index suites say AcrossDevices, and "seed"
# alone is the seed program (the RNG's is manual_seed, PyTorch's own name).
RETIRED_WORDS = {"AcrossIndices": "AcrossDevices", "seeded_pattern": "salted_pattern"}


def snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def naming_problems(path, text):
    """What is wrong with the names in one suite file (empty when nothing)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    problems = []
    for suite in sorted(set(SUITE.findall(text))):
        wanted = snake(suite) + ("_test" if path.startswith("suites/selftest/") else "")
        if stem != wanted:
            problems.append(f"{path}: suite {suite} belongs in {wanted}.cpp")
    for retired, word in RETIRED_WORDS.items():
        if retired in text:
            problems.append(f"{path}: says {retired}; the tree's word is {word}")
    return problems


def test_naming_rule_catches_a_misnamed_file():
    """The negative: the names the review found (issue 19) fail the rule."""
    assert naming_problems("suites/events/stream_wait.cpp", "TEST_P(EventBlock, X) {}") == [
        "suites/events/stream_wait.cpp: suite EventBlock belongs in event_block.cpp"]
    assert naming_problems("suites/aliasing/across_indices.cpp", "TEST_P(NoAliasingAcrossIndices, X) {}")
    assert naming_problems("suites/selftest/device_spec_test.cpp", "TEST_P(MalformedDeviceSpec, X) {}")
    assert not naming_problems("suites/events/event_block.cpp", "TEST_P(EventBlock, X) {}")
    assert snake("DeviceToDeviceBandwidth") == "device_to_device_bandwidth"
    assert snake("ForwardFloat8") == "forward_float8"


def test_every_check_file_is_named_after_its_suite():
    problems = []
    suites_seen = {}
    for _, _, _, path in tracked("suites/*.cpp", "examples/*.cpp"):
        text = open(os.path.join(ROOT, path), encoding="utf-8").read()
        problems += naming_problems(path, text)
        for suite in set(SUITE.findall(text)):
            suites_seen.setdefault(suite, []).append(path)
    problems += [f"suite {s} is split over {', '.join(p)}" for s, p in suites_seen.items() if len(p) > 1]
    assert suites_seen, "no suite files found: the rule checked nothing"
    assert not problems, "\n".join(problems)


# Pip's LibTorch 2.11.0 exports a std::filesystem::remove_all that crashes
# (tdc/compat/remove_tree.h): C++ in the tree removes folders through that header.
REMOVE_ALL = re.compile(r"\bremove_all\s*\(")


def remove_all_calls(path, text):
    return [f"{path}: calls remove_all; use tdc::compat::remove_tree (tdc/compat/remove_tree.h)"
            for _ in REMOVE_ALL.findall(text)]


def test_remove_all_rule_catches_a_call():
    """The negative: the call that crashed on LibTorch 2.11.0 fails the rule."""
    assert remove_all_calls("suites/collectives/world.cpp", "  std::filesystem::remove_all(dir);")
    assert remove_all_calls("bench/x.cpp", "fs::remove_all (dir, ec);")
    assert not remove_all_calls("suites/collectives/world.cpp", "  compat::remove_tree(dir.string());")


def test_no_cpp_source_calls_filesystem_remove_all():
    problems, files = [], 0
    for _, _, _, path in tracked("*.cpp", "*.h", "*.hpp"):
        if path == "fixtures/include/tdc/compat/remove_tree.h":
            continue
        files += 1
        problems += remove_all_calls(path, open(os.path.join(ROOT, path), encoding="utf-8").read())
    assert files, "no C++ sources found: the rule checked nothing"
    assert not problems, "\n".join(problems)
