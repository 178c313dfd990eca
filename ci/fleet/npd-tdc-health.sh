#!/usr/bin/env bash
# node-problem-detector custom plugin: exit 0 OK, 1 problem, 2 unknown, with
# one short line of output (npd keeps max_output_length characters). It
# reports only; draining is the scheduler's adapters' (docs/fleet.md).
# Detached (docs/fleet.md): the node's last recorded verdict at once, a
# background level-1 run when it is older than TDC_HEALTH_INTERVAL.
# Settings: common.sh (TDC_FLEET_CONF, TDC_BUILD_DIR; TDC_HEALTH_BUDGET, the
# background run's budget).
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"
tdc_node_check --mode=detached --budget="${TDC_HEALTH_BUDGET:-45}" --width=80
