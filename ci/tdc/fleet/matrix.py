"""matrix.json: host x LibTorch build x device x check -> status, message,
root cause and duration, plus benchmark medians, for one night of a fleet.

A row is one (host, build): a Slurm task, a package, or both. Its cells are
keyed device -> check, where a check is the metadata name a test records
(`Forward.SeedModelMatchesFloat64Reference`) and a cell folds the check's
instances on that device (dtypes, sizes): the worst of their statuses, a
skip's or waiver's message, a failure's root cause (tdc.results.cells_of
says how). A failed cell whose failures all name a prerequisite
("prerequisite failed: ... (checked by X)") is a dependent: root_cause names
X; otherwise it is a root cause itself (root_cause null). The schema is
ci/tdc/schemas/matrix.schema.json; docs/fleet.md describes every field."""
import json
import os

from tdc import results, safeio
from tdc.errors import InputError, one_line

SCHEMA_VERSION = results.SCHEMA_VERSION   # one version for every TDC document
SCHEMA = results.schema_path("matrix")


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
        "signature": "", "devices": {}, "counts": results.counts(), "cells": {},
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
        verified=True, trust="verified", libtorch=results.libtorch_of(context),
        level=context.get("level") if isinstance(context.get("level"), int) else None,
        suite_version=str(context.get("suite_version") or ""),
        qualification=list(package.qualification_problems), devices=results.devices_of(context),
        benchmarks=package.benchmarks)
    tests = package.summary.get("tests")
    entry["cells"] = results.cells_of(tests if isinstance(tests, list) else [])
    entry["counts"] = results.cell_counts(entry["cells"])
    return entry


def check_version(document, where):
    if not isinstance(document, dict):
        raise InputError(f"{where} is not a JSON object: not a TDC fleet matrix")
    results.check_version(document, where)   # an unknown major version: refused, one line
    if document.get("kind") != KIND:
        raise InputError(f"{where}: not a TDC fleet matrix (kind {document.get('kind')!r})")


KIND = "tdc-fleet-matrix"
_ROWS = '"rows":['


class Writer:
    """Writes matrix.json one row at a time, so a 1,000-host merge never
    holds every row: the header on the first line, one row a line, then the
    fleet-wide sections. The result is one ordinary JSON document; read()
    streams files laid out this way and parses any other JSON whole."""

    def __init__(self, path, header):
        self.path, self.tmp, self.rows = path, path + ".tmp", 0
        self.file = None
        self._open(header)

    @safeio.naming(lambda self: self.tmp)
    def _open(self, header):
        self.file = open(self.tmp, "w", encoding="utf-8")
        head = json.dumps({"schema_version": SCHEMA_VERSION, "kind": KIND, **header}, separators=(",", ":"))
        self.file.write(head[:-1] + "," + _ROWS + "\n")

    @safeio.naming(lambda self: self.tmp)
    def add(self, row):
        if self.rows:
            self.file.write(",\n")
        self.file.write(json.dumps(row, separators=(",", ":")))
        self.rows += 1

    @safeio.naming(lambda self: self.tmp)
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
        raise InputError(f"{path}: not JSON ({one_line(error)})")
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
                raise InputError(f"{path}: a damaged row ({one_line(error)})")
