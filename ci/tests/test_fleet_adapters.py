"""The NHC check reads TDC's settings in a subshell: NHC's PATH and
environment are the same after check_tdc, and a check that cannot run
(no build here) still dies with one unknown line."""
import os
import subprocess

from tdc import ROOT


def test_check_tdc_leaves_nhc_path_and_environment_alone(tmp_path):
    conf = tmp_path / "fleet.conf"
    conf.write_text(f"TDC_BUILD_DIR={tmp_path}/no-build\nTDC_HEALTH_STATE={tmp_path}/state\n"
                    "PATH=/fleet/bin:$PATH\n")
    script = ('die() { echo "die $1 $2"; return "$1"; }; PATH=/nhc/sbin:/usr/bin:/bin; '
              f'source "{ROOT}/ci/fleet/tdc.nhc"; check_tdc; '
              'echo "PATH=$PATH"; echo "BUILD=${TDC_BUILD_DIR-unset}"; echo "ROOT=${TDC_ROOT-unset}"')
    env = {"HOME": str(tmp_path), "TDC_FLEET_CONF": str(conf), "MARK_OFFLINE": "0", "HOSTNAME": "n1"}
    done = subprocess.run(["/bin/bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("die 1 unknown: "), done.stdout + done.stderr
    assert "PATH=/nhc/sbin:/usr/bin:/bin" in lines, lines
    assert "BUILD=unset" in lines and "ROOT=unset" in lines, lines
