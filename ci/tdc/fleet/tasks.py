"""A fleet night's task list (ci/merge --tasks FILE): one object per task,
written after the tasks end by write() below, the one writer: for a Slurm
array by tdc.fleet.slurm_tasks, for a CI matrix (ci/templates) by
tdc.fleet.plan from the same host x build list that made the matrix.

  [{"host": "n7", "build": "2.13.0", "job_id": "4242", "array_task_id": 7,
    "state": "COMPLETED", "exit_code": 0,
    "package": "/shared/night/tdc-n7-torch2.13.0_cpu-level2-20261201T020000Z.tar.gz", "reason": ""}, ...]

state is Slurm's job state (scontrol's JobState; UNKNOWN when Slurm no
longer holds the record, and for a CI job, whose platform state the merge
job does not read: the package, or its absence, speaks). package is null when
the task left none; a relative path is relative to the task file's folder.
Anything else (another key, a missing one, a wrong type, an unknown state)
is bad input: one line, exit 2."""
import json
import os
from dataclasses import dataclass
from typing import Optional

from tdc import safeio
from tdc.errors import InputError


STATES = ("COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY",
          "PREEMPTED", "BOOT_FAIL", "DEADLINE", "UNKNOWN")  # UNKNOWN: Slurm no longer holds the record
FIELDS = {"host": str, "build": str, "job_id": (str, int), "array_task_id": (int, type(None)),
          "state": str, "exit_code": (int, type(None)), "package": (str, type(None)),
          "reason": (str, type(None))}


@dataclass(frozen=True)
class Task:
    host: str
    build: str
    job_id: str
    array_task_id: Optional[int]
    state: str
    exit_code: Optional[int]
    package: Optional[str]
    reason: str


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as error:
        raise InputError(f"--tasks {path}: cannot read ({error.strerror})")
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError(f"--tasks {path}: not JSON ({error})")
    return parse(data, path)


def write(path, rows):
    """Writes rows (dicts of exactly FIELDS) as the tasks file, atomically,
    after checking them as read() will: a writer's defect is refused here,
    not by the merge."""
    parse(rows, path)
    safeio.write_json(path, rows, "tasks file")


def parse(data, path):
    if not isinstance(data, list):
        raise InputError(f"--tasks {path}: expected a JSON list of tasks, found {type(data).__name__}")
    base = os.path.dirname(os.path.abspath(path))
    tasks, seen = [], {}
    for index, item in enumerate(data):
        where = f"--tasks {path}: task {index}"
        safeio.check_object(item, where, FIELDS)
        for key, kind in FIELDS.items():
            if not isinstance(item[key], kind) or isinstance(item[key], bool):
                raise InputError(f"{where}: {key!r} is {type(item[key]).__name__}, "
                                 f"expected {_names(kind)}")
        if not item["host"].strip() or not item["build"].strip():
            raise InputError(f"{where}: host and build must not be empty")
        odd = next((item[k] for k in ("host", "build") if not item[k].isprintable()), None)
        if odd is not None:
            raise InputError(f"{where}: {odd!r} holds a control or unprintable character: not a host or build")
        if item["state"] not in STATES:
            raise InputError(f"{where}: state {item['state']!r} is not a finished Slurm state "
                             f"({', '.join(STATES)})")
        package = item["package"]
        if package is not None:
            package = package if os.path.isabs(package) else os.path.join(base, package)
        key = (item["host"], item["build"])
        if key in seen:
            raise InputError(f"{where}: host {key[0]!r} build {key[1]!r} is also task {seen[key]}")
        seen[key] = index
        tasks.append(Task(host=item["host"], build=item["build"], job_id=str(item["job_id"]),
                          array_task_id=item["array_task_id"], state=item["state"],
                          exit_code=item["exit_code"], package=package, reason=item["reason"] or ""))
    return tasks


def _names(kind):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join("null" if k is type(None) else {str: "a string", int: "an integer"}[k] for k in kinds)
