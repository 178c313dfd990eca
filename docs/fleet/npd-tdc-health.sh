#!/usr/bin/env bash
# node-problem-detector custom plugin: exit 0 OK, 1 problem, 2 unknown, with
# one short line of output (npd keeps max_output_length characters).
tdc_root="${TDC_ROOT:-/opt/tdc}"
build_dir="${TDC_BUILD_DIR:-$tdc_root/build/conformance-2.13.0}"
verdict=$("$tdc_root/ci/health" --build-dir="$build_dir" --budget="${TDC_HEALTH_BUDGET:-45}")
status=$?
python3 -c 'import json, sys; v = json.loads(sys.stdin.read()); print((v["verdict"] + ": " + v["message"])[:80])' \
  <<<"$verdict" 2>/dev/null || echo "unknown: ci/health printed no verdict"
exit "$status"
