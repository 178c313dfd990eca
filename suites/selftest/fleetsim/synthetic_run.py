"""A results folder no ctest made, valid enough for ci/package and ci/verify's
integrity checks: what the self-tests (ci/tests, the hostile-input corpus
suites/selftest/hostile_inputs.py) need to reach the check under test
without a build. The run passed two level-1 checks on cpu (the corpus's
hostile/passing.xml), with GoogleTest XML for one; its host, run id, suite
version, devices and Slurm record are the caller's. Test support, like
fleetsim.simulate and fleetsim.rewrite: no tool imports it, and an install
has none of them (suites/selftest is not installed)."""
import os
import shutil

from tdc import ROOT, context as context_module, junit, results, summarize

PASSING = os.path.join(ROOT, "suites", "selftest", "hostile", "passing.xml")
RUN_ID = "20260101T000000Z-0123abcd"
_GTEST = ('<testsuites><testsuite name="Placement"><testcase name="ModuleToMovesParametersAndBuffers/cpu" '
          'classname="Placement" status="run"/></testsuite></testsuites>')


def results_folder(folder, host="synthetic", run_id=RUN_ID, suite_version=None, devices=None, slurm=None,
                   command_line="synthetic run"):
    """Writes the folder (which must not exist) and returns its path.
    suite_version: this tree's by default; devices: context.json's."""
    gtest_dir = os.path.join(folder, "gtest", "Placement.ModuleToMovesParametersAndBuffers")
    os.makedirs(gtest_dir)
    for name in ("junit.xml", "ctest-junit.xml"):
        shutil.copy(PASSING, os.path.join(folder, name))
    context = results.stamp({
        "run_id": run_id, "host": host, "devices": {} if devices is None else devices, "environment": {},
        "expect": "", "git": {"commit": None, "dirty": False, "dirty_files": []},
        "suite_version": suite_version or context_module.suite_version(), "level": 1,
        "command_line": command_line, **({"slurm": slurm} if slurm else {})})
    results.write(os.path.join(folder, "context.json"), context, "context")
    summary = summarize.build(junit.read(os.path.join(folder, "junit.xml")), {}, context, 1.0, 1)
    results.write(os.path.join(folder, "summary.json"), summary, "summary")
    with open(os.path.join(gtest_dir, "cpu.xml"), "w") as handle:
        handle.write(_GTEST)
    return folder
