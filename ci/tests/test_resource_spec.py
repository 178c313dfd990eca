"""cmake/tdc_resource_spec.cmake read by a real ctest (`ctest -N` of a test file
that includes it, as a build's CTestTestfile does), with a stand-in for
device_select whose devices the test chooses: a spec that lacks a claimed
kind is written again from discovery, beside the old one and renamed onto
it, so a ctest reading it meanwhile never finds it missing; when discovery
fails then, the old spec stays and ctest prints one line saying so.
The same on a real build: selftest.resource_spec_follows_the_device_list."""
import json
import os
import shutil
import stat
import subprocess

import pytest
from conftest import ROOT

CMAKE = os.path.join(ROOT, "cmake")


def spec_text(count):
    kinds = {f"loopback_{i}": [{"id": "0", "slots": 100}] for i in range(count)}
    return json.dumps({"version": {"major": 1, "minor": 0}, "local": [kinds]})


@pytest.fixture
def build(tmp_path):
    """A folder ctest reads: a test file as cmake/TdcResourceSpec.cmake.in
    makes one, whose suite claims loopback_2, and a device_select that reports what devices.json holds (or fails)."""
    select = tmp_path / "device_select"
    select.write_text(f"""#!/bin/sh
for a; do case "$a" in --resource-spec=*) out="${{a#--resource-spec=}}";; esac; done
if [ -e {tmp_path}/broken ]; then echo "the backend cannot initialise" >&2; exit 3; fi
cp {tmp_path}/devices.json "$out"
""")
    select.chmod(select.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "devices.json").write_text(spec_text(2))
    (tmp_path / "CTestTestfile.cmake").write_text(f"""
cmake_policy(VERSION 3.22)
set(CMAKE_COMMAND "{shutil.which('cmake')}")
include("{CMAKE}/tdc_discovery_fingerprint.cmake")
include("{CMAKE}/tdc_resource_spec.cmake")
include("{CMAKE}/tdc_resource_spec_covers.cmake")
tdc_resource_spec(DEVICE_SELECT "{select}" LOOPBACK "" LIBRARIES DIR "{tmp_path}" TIMEOUT 60)
if(EXISTS "{tmp_path}/claims")
  tdc_resource_spec_covers(loopback_0 loopback_2)
  tdc_resource_spec_covers(loopback_2)
endif()
add_test(entry /bin/true)
""")
    return tmp_path


def ctest(folder):
    run = subprocess.run(["ctest", "-N", "--test-dir", str(folder)], capture_output=True, text=True, timeout=60,
                         env={k: v for k, v in os.environ.items() if not k.startswith("TDC_")})
    assert run.returncode == 0, run.stdout + run.stderr
    return run


def specs(folder):
    return sorted(p for p in os.listdir(folder) if p.startswith("resources.") and p != "resources.lock")


def test_a_spec_lacking_a_claimed_kind_is_written_again_from_discovery(build):
    ctest(build)
    [spec] = specs(build)
    (build / "devices.json").write_text(spec_text(8))   # discovery now sees 8; the fingerprint is the same
    (build / "claims").write_text("")
    run = ctest(build)
    assert specs(build) == [spec]
    assert "loopback_7" in (build / spec).read_text()
    assert "TDC:" not in run.stdout + run.stderr   # mended: nothing to say


def test_when_discovery_fails_again_the_old_spec_stays_and_ctest_says_so(build):
    ctest(build)
    [spec] = specs(build)
    old = (build / spec).read_text()
    (build / "broken").write_text("")
    (build / "claims").write_text("")
    run = ctest(build)
    # Removed first, the spec ctest was told to read would be gone (for a
    # ctest of this build reading it meanwhile, too).
    assert specs(build) == [spec] and (build / spec).read_text() == old
    said = [line for line in (run.stdout + run.stderr).splitlines() if line.startswith("TDC:")]
    assert len(said) == 1, run.stdout + run.stderr
    assert "lacks loopback_2" in said[0] and "the backend cannot initialise" in said[0], said
