#!/usr/bin/env bash
# node-problem-detector custom plugin: exit 0 OK, 1 problem, 2 unknown, with
# one short line of output (npd keeps max_output_length characters). It
# reports only; draining is the scheduler's adapters' (docs/fleet.md).
# Settings: common.sh (TDC_FLEET_CONF, TDC_BUILD_DIR; TDC_HEALTH_BUDGET, 45 s
# of the rule's 60 s timeout).
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"
tdc_node_check --budget="${TDC_HEALTH_BUDGET:-45}" --width=80
