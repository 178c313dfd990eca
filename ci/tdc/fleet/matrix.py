"""matrix.json: host x LibTorch build x device x check -> status, message,
root cause and duration, plus benchmark medians, for one night of a fleet.

A row is one (host, build): a Slurm task, a package, or both. Its cells are
keyed device -> check, where a check is the metadata name a test records
(`Forward.SeedModelMatchesFloat64Reference`) and a cell folds the check's
instances on that device (dtypes, sizes):
  failed         any instance failed;
  known_failure  none failed, one was waived;
  passed         none failed or was waived, one passed;
  skipped        every instance skipped (its reason is the message).
Every cell has status, seconds (summed) and tests (instances); a failed
cell adds failed (instances), message and root_cause, a skipped or waived
one its message. A failed cell whose failures all name a prerequisite
("prerequisite failed: ... (checked by X)") is a dependent: root_cause names
X; otherwise it is a root cause itself (root_cause null). The schema is
ci/tdc/schemas/matrix.schema.json; docs/fleet.md describes every field."""
import json
import os

from tdc.fleet import upstream
from tdc.fleet.upstream import InputError

SCHEMA_VERSION = upstream.results.SCHEMA_VERSION   # one version for every TDC document
SCHEMA = upstream.results.schema_path("matrix")
STATUSES = ("failed", "known_failure", "passed", "skipped")     # worst first
MESSAGE_LIMIT = 300   # a cell's skip, waiver or dependent's message; a root cause's is whole


def check_of(test):
    return test.get("check") or upstream.names.check_name(test.get("name", ""))


def cells_of(tests):
    """{device: {check: cell}} from summary.json's tests."""
    cells, messages = {}, {}
    for test in tests:
        if not isinstance(test, dict) or not isinstance(test.get("name"), str):
            continue
        status = test.get("status")
        if status not in STATUSES:
            continue
        device = str(test.get("device") or "host")
        check = check_of(test)
        cell = cells.setdefault(device, {}).setdefault(check, {
            "status": status, "seconds": 0.0, "tests": 0, "failed": 0, "message": "", "root_cause": None})
        cell["tests"] += 1
        cell["seconds"] += float(test.get("seconds") or 0)
        if STATUSES.index(status) < STATUSES.index(cell["status"]):
            cell["status"] = status
        said = messages.setdefault((device, check), {})
        if status == "failed":
            cell["failed"] += 1
            prerequisite = test.get("prerequisite")
            # A dependent only while every failure names a prerequisite.
            said["roots"] = said.get("roots", 0) + (0 if prerequisite else 1)
            said.setdefault("prerequisite", str(prerequisite) if prerequisite else None)
            # A root cause's message whole (its fix is often last: issue 35);
            # a dependent's says only which prerequisite failed.
            message = str(test.get("message") or "")
            said.setdefault("failed", (message if not prerequisite else message[:MESSAGE_LIMIT])
                            or f"{test['name']} failed (no message recorded)")
        elif status != "passed":
            said.setdefault(status, str(test.get("message") or "")[:MESSAGE_LIMIT])
    for (device, check), said in messages.items():
        cell = cells[device][check]
        cell["seconds"] = round(cell["seconds"], 3)
        if cell["status"] == "failed":
            cell["message"] = said["failed"]
            cell["root_cause"] = None if said["roots"] else said["prerequisite"]
        else:  # kept small: at 1,000 hosts most cells are passed ones
            del cell["failed"], cell["root_cause"], cell["message"]
            if cell["status"] != "passed":
                cell["message"] = said.get(cell["status"], "")
    return cells


def devices_of(context):
    """{device: {"name", "driver", "type"}} from context.json's device lists."""
    found = {}
    for key in ("devices", "loopback_devices"):
        block = context.get(key)
        if not isinstance(block, dict) or not isinstance(block.get("devices"), list):
            continue
        for device in block["devices"]:
            if isinstance(device, dict) and isinstance(device.get("device"), str):
                found.setdefault(device["device"], {
                    "name": str(device.get("name") or ""), "driver": str(device.get("driver") or ""),
                    "type": device["device"].split(":")[0]})
    return found


def libtorch_of(context):
    block = context.get("devices")
    return str(block.get("libtorch_version") or "") if isinstance(block, dict) else ""


def counts_of(cells):
    counts = dict.fromkeys(STATUSES, 0)
    for by_check in cells.values():
        for cell in by_check.values():
            counts[cell["status"]] += 1
    return counts


def ran_as_task(package, task, host):
    """The package's context.json records the Slurm task that made it on that
    node (tdc.fleet.allocation): Slurm's node name need not be the host name
    (NodeHostName; several slurmd on one host)."""
    slurm = package.context.get("slurm") if isinstance(package.context, dict) else None
    return bool(task and isinstance(slurm, dict) and slurm.get("node") == host and
                str(slurm.get("array_job_id")) == str(task.job_id) and
                str(slurm.get("array_task_id")) == str(task.array_task_id))


def row(host, build, task=None, package=None):
    """One matrix row; package is a tdc.fleet.packages.Package or None."""
    entry = {
        "host": host, "build": build, "libtorch": "", "level": None, "suite_version": "",
        "job_id": task.job_id if task else None,
        "array_task_id": task.array_task_id if task else None,
        "state": task.state if task else None,
        "exit_code": task.exit_code if task else None,
        "reason": task.reason if task else "",
        "package": package.path if package else (task.package if task else None),
        "run_id": (package.run_id or None) if package else None,
        "verified": False, "trust": "no package", "problems": [], "qualification": [],
        "signature": "", "devices": {}, "counts": dict.fromkeys(STATUSES, 0), "cells": {},
        "benchmarks": {},
    }
    if package is None:
        if task and task.package:
            entry["trust"] = "unverified"
            entry["problems"] = [f"package {task.package} named by the task does not exist"]
        return entry
    entry["signature"] = package.signature
    entry["problems"] = list(package.trust_problems)
    if package.host and package.host != host and not ran_as_task(package, task, host):
        entry["problems"].append(f"the package claims host {package.host!r} but the task ran on {host!r}")
    if entry["problems"]:
        entry["trust"] = "unverified"
        return entry  # an untrusted package's results are not merged
    context = package.context
    entry.update(
        verified=True, trust="verified", libtorch=libtorch_of(context),
        level=context.get("level") if isinstance(context.get("level"), int) else None,
        suite_version=str(context.get("suite_version") or ""),
        qualification=list(package.qualification_problems), devices=devices_of(context),
        benchmarks=package.benchmarks)
    tests = package.summary.get("tests")
    entry["cells"] = cells_of(tests if isinstance(tests, list) else [])
    entry["counts"] = counts_of(entry["cells"])
    return entry


def check_version(document, where):
    if not isinstance(document, dict):
        raise InputError(f"{where} is not a JSON object: not a TDC fleet matrix")
    upstream.results.check_version(document, where)   # an unknown major version: refused, one line
    if document.get("kind") != KIND:
        raise InputError(f"{where}: not a TDC fleet matrix (kind {document.get('kind')!r})")


KIND = "tdc-fleet-matrix"
_ROWS = '"rows":['


def naming(path_of):
    """A method whose OSError (a full disk: ENOSPC carries no file name)
    becomes one line naming the file being written."""
    def wrap(method):
        def named(self, *args):
            try:
                return method(self, *args)
            except OSError as error:
                raise InputError(f"cannot write {path_of(self)}: {error.strerror or error}")
        return named
    return wrap


class Writer:
    """Writes matrix.json one row at a time, so a 1,000-host merge never
    holds every row: the header on the first line, one row a line, then the
    fleet-wide sections. The result is one ordinary JSON document; read()
    streams files laid out this way and parses any other JSON whole."""

    def __init__(self, path, header):
        self.path, self.tmp, self.rows = path, path + ".tmp", 0
        self.file = None
        self._open(header)

    @naming(lambda self: self.tmp)
    def _open(self, header):
        self.file = open(self.tmp, "w", encoding="utf-8")
        head = json.dumps({"schema_version": SCHEMA_VERSION, "kind": KIND, **header}, separators=(",", ":"))
        self.file.write(head[:-1] + "," + _ROWS + "\n")

    @naming(lambda self: self.tmp)
    def add(self, row):
        if self.rows:
            self.file.write(",\n")
        self.file.write(json.dumps(row, separators=(",", ":")))
        self.rows += 1

    @naming(lambda self: self.tmp)
    def close(self, tail):
        body = json.dumps(tail, separators=(",", ":"), indent=None)
        self.file.write("\n],\n" + body[1:] + "\n" if tail else "\n]}\n")
        self.file.close()
        os.replace(self.tmp, self.path)

    def abandon(self):
        try:
            if self.file:
                self.file.close()
        except OSError:
            pass  # what it could not write is being thrown away
        if os.path.lexists(self.tmp):
            os.unlink(self.tmp)


def read(path):
    """(document without its rows, iterator over its rows) of a matrix.json;
    refused with one line when damaged or of another major version. A file
    laid out by Writer is read a row at a time (the iterator reads the file
    again); any other JSON is parsed whole."""
    try:
        with open(path, encoding="utf-8") as handle:
            first = handle.readline()
            if not first.rstrip("\n").endswith(_ROWS):
                document = json.loads(first + handle.read())
                check_version(document, path)
                if not isinstance(document.get("rows"), list):
                    raise InputError(f"{path}: a TDC fleet matrix without rows")
                return document, iter(document.pop("rows"))
            header = json.loads(first.rstrip("\n")[: -len(_ROWS)].rstrip(",") + "}")
            check_version(header, path)
            start = handle.tell()
            for line in iter(handle.readline, ""):
                if line.startswith("]"):
                    rest = (line[1:].lstrip(",") + handle.read()).strip()
                    tail = json.loads("{" + rest) if rest not in ("}", "") else {}
                    break
            else:
                raise ValueError("its rows never end (truncated?)")
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})")
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not JSON ({upstream.one_line(error)})")
    return {**header, **tail}, _rows(path, start)


def _rows(path, start):
    with open(path, encoding="utf-8") as handle:
        handle.seek(start)
        for line in iter(handle.readline, ""):
            if line.startswith("]"):
                return
            if not line.strip():
                continue
            try:
                yield json.loads(line.rstrip("\n").rstrip(","))
            except ValueError as error:
                raise InputError(f"{path}: a damaged row ({upstream.one_line(error)})")
