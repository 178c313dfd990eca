# Sourced by the adapters in this folder. Slurm runs a HealthCheckProgram, a
# Prolog and an Epilog with almost no environment (no PATH, no TDC_*), so the
# site's settings come from one file: TDC_FLEET_CONF (default
# /etc/tdc/fleet.conf), shell assignments such as
#   TDC_BUILD_DIR=/shared/tdc/build/2.13.0
#   TDC_EXPECT=cuda:8            # optional: otherwise from Slurm (docs/fleet.md)
#   TDC_HEALTH_STATE=/var/tmp/tdc-health
# No PATH from slurmd (bash's default one ends in "."), no HOME (ci/lib.sh
# needs it): both set here; the settings file may extend PATH.
export PATH="/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
HOME="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
export HOME="${HOME:-/}"
TDC_FLEET_CONF="${TDC_FLEET_CONF:-/etc/tdc/fleet.conf}"
if [ -r "$TDC_FLEET_CONF" ]; then
  set -a
  # shellcheck source=/dev/null
  . "$TDC_FLEET_CONF"
  set +a
fi
TDC_ROOT="${TDC_ROOT:-$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)}"
export TDC_ROOT
export TDC_BUILD_DIR="${TDC_BUILD_DIR:-$TDC_ROOT/build/conformance-2.13.0}"
source "$TDC_ROOT/ci/tools.sh"  # tdc_python

# tdc_node_check ARGS...: tdc.fleet.node_check (level 1 from a run tree, the
# drain rule with --drain); one line on stdout, exit 0/1/2.
tdc_node_check() {
  tdc_python python3 -m tdc.fleet.node_check "$@"
}
