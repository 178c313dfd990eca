"""Fleets: many hosts' packages merged into one matrix (tdc.fleet.merge),
compared with earlier nights (history), with their peers (outliers), and
grouped by failure signature (signatures); package provenance (signing).
Slurm: job arrays (slurm_submit, slurm_task, slurm_tasks), node health
adapters (node_check, drain) and the node-private run tree of a shared build
(run_tree). docs/fleet.md is the reference."""
