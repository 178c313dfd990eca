"""selection-report: checks device_select --verbose output against what this
host really has: on a host without an NVIDIA GPU, a CUDA build must read
"compiled: cuda, available: no, selected: cpu", and the seed's four lines must
all name the selected device type.

  tdc selection-report FILE
Exit status: 0 consistent, 1 not, 2 unreadable input."""
import os
import re
import shutil
import subprocess

from tdc import cli, safeio


def host_has_nvidia_gpu():
    if shutil.which("nvidia-smi"):
        run = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
        return run.returncode == 0 and "GPU" in run.stdout
    return os.path.exists("/dev/nvidia0")


def problems_of(text):
    match = re.search(r"^accelerator=compiled: (\S+), available: (yes|no), selected: (\S+)$", text, re.M)
    if not match:
        return None, ["no 'accelerator=compiled: ...' line"]
    compiled, available, selected = match.groups()
    lines = dict(re.findall(r"^(\w+_device)=(\S+)$", text, re.M))
    problems = []
    if len(lines) != 4 or len(set(lines.values())) != 1:
        problems.append(f"seed lines disagree: {lines}")
    elif lines["selected_device"] != selected.split(":")[0]:
        problems.append(f"seed lines say {lines['selected_device']}, report says {selected}")
    if compiled == "cuda" and not host_has_nvidia_gpu() and (available, selected) != ("no", "cpu"):
        problems.append(f"CUDA build on a GPU-less host reads available={available}, "
                        f"selected={selected}; expected no, cpu")
    if available == "no" and selected != "cpu":
        problems.append(f"nothing available but selected {selected}")
    return (compiled, available, selected), problems


def run(argv):
    p = cli.Parser("selection-report", __doc__)
    p.add_argument("report", help="device_select --verbose output")
    args = p.parse_args(argv)
    found, problems = problems_of(safeio.read_text(args.report, "selection report"))
    for problem in problems:
        print(f"{args.report}: {problem}")
    if not problems:
        print("selection report ok: compiled: {}, available: {}, selected: {}".format(*found))
    return 1 if problems else 0


def main(argv=None):
    return cli.run_main("selection-report", run, argv)
