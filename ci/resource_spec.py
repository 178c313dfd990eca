#!/usr/bin/env python3
"""Writes a CTest resource specification (JSON, to stdout) describing this
host's GPUs, 100 slots each, so that conformance tests on a GPU claim a share
of one (TDC_GPU_PERCENT). Valid with no GPU: an empty list."""
import json
import shutil
import subprocess


def nvidia_gpu_count():
    if not shutil.which("nvidia-smi"):
        return 0
    run = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return sum(1 for line in run.stdout.splitlines() if line.startswith("GPU ")) if run.returncode == 0 else 0


gpus = [{"id": str(index), "slots": 100} for index in range(nvidia_gpu_count())]
print(json.dumps({"version": {"major": 1, "minor": 0}, "local": [{"gpus": gpus}]}, indent=2))
