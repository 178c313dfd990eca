"""The Prolog's check (tdc.fleet.node_check --mode=recorded, as
ci/fleet/slurm-prolog-epilog runs it in prolog_slurmd): the recorded verdict
and the device list of a build's loopback, never a run. A young healthy
verdict of this configuration covering the devices present passes; each
case the Prolog must not pass is shown to fail closed: no verdict, an old
one, one of another configuration, one that did not check a device, a
recorded failure, and a job GPU that is not there. (Draining on a real Slurm:
suites/selftest/fleet_cluster.py.)

It lists the devices with a build's bin/tdc_context: ctest runs it as
selftest.fleet.prolog_device_list with TDC_PROLOG_BUILD naming the build
(suites/selftest/fleet.cmake); without it, it is skipped, saying so.

  TDC_PROLOG_BUILD=BUILD python3 -m pytest ci/tests/test_prolog_device_list.py"""
import glob
import os
import subprocess
import sys

import pytest

from conftest import ROOT, recorded_verdict
from tdc import fingerprint, verbs
from tdc.fleet import allocation, node_check

BUILD = os.environ.get("TDC_PROLOG_BUILD", "")
NODE = "n1"
pytestmark = pytest.mark.skipif(not os.path.isfile(os.path.join(BUILD, "bin", "tdc_context")),
                                reason="TDC_PROLOG_BUILD names no build with bin/tdc_context")


@pytest.fixture
def node(tmp_path):
    """The node's environment (2 loopback devices), its verdict's path and device names."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TDC_", "SLURM"))}
    env.update(TDC_BACKEND_LIBS=os.path.join(BUILD, "lib", "libtdc_loopback.so"), TDC_LOOPBACK_DEVICES="2")
    env = verbs.tools_env(env)
    kind = allocation.loopback_type(BUILD)
    state = str(tmp_path / "state")
    return {"env": env, "state": state, "devices": [f"{kind}:0", f"{kind}:1"],
            "path": node_check.verdict_path(BUILD, state, NODE)}


def prolog(node, *extra, env=None):
    done = subprocess.run([sys.executable, "-m", "tdc.fleet.node_check", "--mode=recorded", f"--build-dir={BUILD}",
                           f"--node={NODE}", f"--state-dir={node['state']}", *extra],
                          env=env or node["env"], capture_output=True, text=True, timeout=300)
    assert not glob.glob(os.path.join(node["state"], "run-*")), "the Prolog made a run tree: it ran a check"
    return done.returncode, done.stdout.strip()


def now(node, env=None):
    """The node's fingerprint now, as the node check computes it."""
    return fingerprint.of(node_check.check_environment(env or node["env"], NODE, "", BUILD), BUILD)


def test_a_young_healthy_verdict_of_the_devices_present_passes(node):
    recorded_verdict(node["path"], "healthy", "none", now(node), node["devices"])
    assert prolog(node) == (0, "healthy: healthy (none)")


def test_no_old_or_other_configurations_verdict_is_unknown(node):
    assert prolog(node)[0] == 2 and "no verdict yet" in prolog(node)[1]
    recorded_verdict(node["path"], "healthy", "none", now(node), node["devices"], finished="2026-01-01T00:00:00+00:00")
    status, line = prolog(node)
    assert status == 2 and "old" in line, line
    recorded_verdict(node["path"], "healthy", "none", now(node, dict(node["env"], TDC_LOOPBACK_DEVICES="3")),
                     node["devices"] + [node["devices"][0][:-1] + "2"])
    status, line = prolog(node)
    assert status == 2 and "another configuration" in line and "TDC_LOOPBACK_DEVICES" in line, line


def test_a_device_the_verdict_did_not_check_is_unknown(node):
    recorded_verdict(node["path"], "healthy", "none", now(node), node["devices"][:1])
    status, line = prolog(node)
    assert status == 2 and f"did not check {node['devices'][1]}" in line, line


def test_a_recorded_failure_blocks_the_job_with_its_action(node):
    recorded_verdict(node["path"], "unhealthy", "reset_device", now(node), node["devices"])
    assert prolog(node) == (1, "unhealthy: unhealthy (reset_device)")


def test_a_job_gpu_missing_now_is_unhealthy_and_named_both_ways(node):
    # This build's LibTorch sees no CUDA device: the job's GPU 1 is not there.
    recorded_verdict(node["path"], "healthy", "none", now(node), node["devices"])
    status, line = prolog(node, "--job-gpus=1")
    assert status == 1 and line.startswith("unhealthy: [job GPUs cuda:0=GPU 1] device list: cuda:0 missing now"), line


def test_a_device_list_that_cannot_be_made_is_unknown(node):
    recorded_verdict(node["path"], "healthy", "none", now(node), node["devices"])
    broken = dict(node["env"], TDC_BACKEND_LIBS="/nonexistent/libtdc_loopback.so")
    recorded_verdict(node["path"], "healthy", "none", now(node, broken), node["devices"])
    status, line = prolog(node, env=broken)
    assert status == 2 and "device list: cannot list the devices" in line, line
