"""ci/selftest's options: a bad --long (a build not in --builds, or one
without the tool self-tests, where the long ones are) is one line and exit 2
before anything is provisioned or built, and the label ci/selftest leaves
out is the one suites/selftest/evidence_checks.cmake gives the long tier."""
import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT

SELFTEST = os.path.join(ROOT, "ci", "selftest")
EVIDENCE = os.path.join(ROOT, "suites", "selftest", "evidence_checks.cmake")


def selftest(tmp_path, *args):
    """ci/selftest with a PATH of bash, dirname and sed only: were it to
    provision (dpkg-query, apt-get) or build (cmake) before checking its
    options, it would stop on a missing command, never install or build."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("bash", "dirname", "sed"):
        os.symlink(shutil.which(name), tools / name)
    env = {"PATH": str(tools), "HOME": str(tmp_path), "TDC_NO_PROVISION": "1", "TDC_JOBS": "1"}
    return subprocess.run([str(tools / "bash"), SELFTEST, *args], capture_output=True, text=True, timeout=60,
                          env=env, cwd=str(tmp_path))


@pytest.mark.parametrize("args, said", [
    (["--long=bogus"], "tdc: --long: 'bogus' is not one of the builds (2.13.0 system 2.14.1)"),
    (["--builds=2.13.0", "--long=system"], "tdc: --long: 'system' is not one of the builds (2.13.0)"),
])
def test_a_bad_long_is_one_line_before_anything_runs(tmp_path, args, said):
    run = selftest(tmp_path, *args)
    assert (run.returncode, run.stderr.strip(), run.stdout) == (2, said, ""), run


def test_help_names_the_long_tier_and_its_command(tmp_path):
    run = selftest(tmp_path, "--help")
    assert run.returncode == 0, run.stderr
    assert "[--long=BUILDS|all|none]" in run.stdout
    assert "ci/selftest --builds=2.13.0 --long=2.13.0" in run.stdout


def label_problem(selftest_text, cmake_text):
    """What is wrong with the long tier's label (None when ci/selftest
    leaves out, anchored, a label evidence_checks.cmake gives, and it is not
    `long`, the conformance suite copies_long's, which must stay in)."""
    named = re.findall(r"^long_label=(\S+)$", selftest_text, re.M)
    if len(named) != 1:
        return f"ci/selftest names the long tier's label {len(named)} times, not once (long_label=)"
    label = named[0]
    if label == "long":
        return "the long tier's label is `long`: -LE would leave copies_long's conformance entries out too"
    if '(-LE "^$long_label\\$")' not in selftest_text:
        return "ci/selftest does not leave out ^$long_label$ (anchored) by default"
    if f"set(labels {label})" not in cmake_text:
        return f"evidence_checks.cmake gives no test the label {label}: ci/selftest would leave out nothing"
    return None


def test_the_left_out_label_is_the_long_tiers():
    with open(SELFTEST, encoding="utf-8") as handle:
        selftest_text = handle.read()
    with open(EVIDENCE, encoding="utf-8") as handle:
        cmake_text = handle.read()
    assert label_problem(selftest_text, cmake_text) is None, label_problem(selftest_text, cmake_text)
    # The negatives: a renamed label on one side, the bare `long`, an unanchored -LE.
    assert "gives no test" in label_problem(selftest_text, cmake_text.replace("set(labels long_selftest)",
                                                                             "set(labels slow)"))
    assert "copies_long" in label_problem(selftest_text.replace("long_label=long_selftest", "long_label=long"),
                                          cmake_text)
    assert "anchored" in label_problem(selftest_text.replace('"^$long_label\\$"', '"$long_label"'), cmake_text)
    assert "not once" in label_problem("", cmake_text)
