"""tdc check-waivers --memo keeps a passing verdict only while its inputs
are unchanged: the same waiver file, edited in place to hold a typo, must be
asked about again and fail, and a failing verdict is never kept.

It asks a suite binary of a build for its tests: ctest runs it as
selftest.waiver_matched_no_test.after_a_kept_pass with TDC_CHECK_WAIVERS_RUN
naming that binary (suites/selftest/waiver_checks.cmake); without it, it is
skipped, saying so.

  TDC_CHECK_WAIVERS_RUN=BUILD/bin/tdc_mismatch_guard python3 -m pytest ci/tests/test_waiver_memo.py"""
import os
import shutil
import subprocess

import pytest

from conftest import ROOT

from tdc import verbs

WAIVERS = os.path.join(ROOT, "suites", "selftest", "waivers")
RUN = os.environ.get("TDC_CHECK_WAIVERS_RUN", "")

pytestmark = pytest.mark.skipif(not RUN, reason="TDC_CHECK_WAIVERS_RUN names no suite binary to ask")


def check(waivers, memo):
    """tdc check-waivers' exit status and output, with this waiver file."""
    command, env = verbs.child("check-waivers", env=dict(os.environ, TDC_KNOWN_FAILURES=str(waivers)))
    run = subprocess.run([*command, f"--run={RUN}", f"--memo={memo}"], env=env, capture_output=True, text=True,
                         timeout=600)
    return run.returncode, run.stdout + run.stderr


def test_a_passing_verdict_is_kept_until_the_file_changes_and_a_failure_never(tmp_path):
    waivers, memo = tmp_path / "waivers.txt", tmp_path / "memo"
    shutil.copyfile(os.path.join(WAIVERS, "waives_the_sabotaged_guard.txt"), waivers)
    code, output = check(waivers, memo)
    assert (code, "matched no test" in output, "(kept" in output) == (0, True, False), \
        f"the first pass asks:\n{output}"
    code, output = check(waivers, memo)
    assert (code, "(kept" in output) == (0, True), f"the second pass is kept:\n{output}"
    shutil.copyfile(os.path.join(WAIVERS, "typo_in_check.txt"), waivers)  # same path, new text
    for what in ("the edited file is asked about again", "a failure is never kept"):
        code, output = check(waivers, memo)
        assert (code, "waiver matched no test" in output, "(kept" in output) == (1, True, False), \
            f"{what}:\n{output}"
