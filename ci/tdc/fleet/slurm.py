"""Asking Slurm: one way to run its commands and read its records.

Every command is named by an environment variable (SBATCH, SCONTROL, SINFO)
so a site can point at wrappers; the tools use the default names."""
import os
import re
import subprocess


class SlurmError(Exception):
    """A Slurm command failed or could not run; the message is one line."""


def command(name):
    return os.environ.get(name.upper(), name)


def run(args, timeout=60, input_text=None):
    """stdout of a Slurm command; SlurmError with its last stderr line otherwise."""
    args = [command(args[0]), *args[1:]]
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, input=input_text)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SlurmError(f"{args[0]}: {error}")
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        raise SlurmError(f"{' '.join(args[:3])}: {lines[-1] if lines else f'exit {done.returncode}'}")
    return done.stdout


# `scontrol show ... -o` prints one record a line as Key=Value pairs; values
# may hold spaces (OS=Linux 6.1 ..., Reason=...), keys never do.
_KEY = re.compile(r"(?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=")


def record(line):
    keys = list(_KEY.finditer(line))
    fields = {}
    for i, match in enumerate(keys):
        end = keys[i + 1].start() if i + 1 < len(keys) else len(line)
        fields[match.group(1)] = line[match.end():end].strip()
    return fields


def records(text):
    return [record(line) for line in text.splitlines() if line.strip()]


def show_job(job_id):
    """Every record Slurm still holds for JOB_ID (an array: one per task)."""
    return records(run(["scontrol", "show", "job", str(job_id), "-o"]))


def config_value(name):
    """One value of `scontrol show config` (MinJobAge, ...), or None."""
    try:
        text = run(["scontrol", "show", "config"])
    except SlurmError:
        return None
    match = re.search(rf"^{re.escape(name)}\s*=\s*(.*)$", text, re.M)
    return match.group(1).strip() if match else None


def gres_gpus(gres):
    """The GPU count in a gres string (sinfo %G): gpu:8, gpu:a100:4(S:0-1),gpu:t4:2."""
    total = 0
    for item in re.split(r",(?![^(]*\))", gres or ""):
        match = re.match(r"^gpu(?::[^:(]+)?:(\d+)", item.strip())
        total += int(match.group(1)) if match else 0
    return total
