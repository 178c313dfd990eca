#!/usr/bin/env bash
# Slurm HealthCheckProgram: drains this node when TDC's level-1 readiness
# check is not healthy. In slurm.conf:
#   HealthCheckProgram=/opt/tdc/docs/fleet/slurm-healthcheck.sh
#   HealthCheckInterval=300
# Slurm kills a health check after 60 s: the check gets 45 s, the rest is
# start-up and the drain. TDC_EXPECT (e.g. cuda:8) makes a missing GPU drain.
tdc_root="${TDC_ROOT:-/opt/tdc}"
build_dir="${TDC_BUILD_DIR:-$tdc_root/build/conformance-2.13.0}"
verdict_file="${TDC_VERDICT_FILE:-/run/tdc-health.json}"

verdict=$("$tdc_root/ci/health" --build-dir="$build_dir" --budget="${TDC_HEALTH_BUDGET:-45}" --verdict="$verdict_file")
status=$?
[ "$status" -eq 0 ] && exit 0
message=$(python3 -c 'import json, sys; v = json.loads(sys.stdin.read()); print(v["verdict"] + ": " + v["message"][:120])' \
  <<<"$verdict" 2>/dev/null || echo "unknown: ci/health printed no verdict")
"${SCONTROL:-scontrol}" update NodeName="$(hostname -s)" State=DRAIN Reason="tdc $message"
exit "$status"
