#!/usr/bin/env python3
"""Checks device_select --verbose output against what this host really has:
on a host without an NVIDIA GPU, a CUDA build must read
"compiled: cuda, available: no, selected: cpu", and the seed's four lines must
all name the selected device type."""
import os
import re
import shutil
import subprocess
import sys


def host_has_nvidia_gpu():
    if shutil.which("nvidia-smi"):
        run = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
        return run.returncode == 0 and "GPU" in run.stdout
    return os.path.exists("/dev/nvidia0")


def main(path):
    text = open(path).read()
    match = re.search(r"^accelerator=compiled: (\S+), available: (yes|no), selected: (\S+)$",
                      text, re.M)
    if not match:
        print(f"{path}: no 'accelerator=compiled: ...' line")
        return 1
    compiled, available, selected = match.groups()
    lines = dict(re.findall(r"^(\w+_device)=(\S+)$", text, re.M))
    problems = []
    if len(lines) != 4 or len(set(lines.values())) != 1:
        problems.append(f"seed lines disagree: {lines}")
    elif lines["selected_device"] != selected.split(":")[0]:
        problems.append(f"seed lines say {lines['selected_device']}, report says {selected}")
    if compiled == "cuda" and not host_has_nvidia_gpu():
        if (available, selected) != ("no", "cpu"):
            problems.append(f"CUDA build on a GPU-less host reads available={available}, "
                            f"selected={selected}; expected no, cpu")
    if available == "no" and selected != "cpu":
        problems.append(f"nothing available but selected {selected}")
    for problem in problems:
        print(f"{path}: {problem}")
    if not problems:
        print(f"selection report ok: compiled: {compiled}, available: {available}, selected: {selected}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
