"""Fleet tooling: Slurm job arrays (slurm_submit, slurm_task, slurm_tasks),
node health adapters (node_check, drain) and the node-private run tree of a
shared build (run_tree). docs/fleet.md is the reference."""
