#!/usr/bin/env bash
# node-problem-detector custom plugin (npd-tdc-health.json, made by
# `python3 -m tdc.fleet.npd_config --write`), one short line of output (npd
# keeps max_output_length characters). It reports only; draining is the
# scheduler's adapters' (docs/fleet.md).
#   npd-tdc-health.sh          condition TorchDeviceProblem: exit 0 healthy, 1 unhealthy, 2 unknown
#   npd-tdc-health.sh ACTION   condition TorchDeviceNeeds<Action>: exit 1 while ACTION
#                              (tdc.fleet.actions) is the node's recommended action, else 0
# Detached (docs/fleet.md): the node's last recorded verdict at once, a
# background level-1 run when it is older than TDC_HEALTH_INTERVAL.
# Settings: common.sh (TDC_FLEET_CONF, TDC_BUILD_DIR; TDC_HEALTH_BUDGET, the
# background run's budget).
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"
tdc_node_check --mode=detached --budget="${TDC_HEALTH_BUDGET:-45}" --width=80 ${1:+--condition="$1"}
