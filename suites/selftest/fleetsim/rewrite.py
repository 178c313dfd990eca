"""Rewriting real packages into others: the synthetic fleet (simulate) and
the self-tests' forgeries. A Package is read once (safely, through
tdc.packaging.extract), held in memory, changed, re-manifested, optionally
re-signed, and written as a new .tar.gz.

The changes are the ones a fleet has: another host name, other device
models and drivers, a check failing on a device (in summary.json and
junit.xml alike, so the package still verifies), a device whose benchmarks
are slower, run-to-run noise on the benchmark medians."""
import hashlib
import io
import json
import math
import os
import tarfile
import tempfile
import xml.etree.ElementTree as ET

from tdc import junit_report, packaging, results
from tdc.bench import results as bench_results
from tdc.errors import InputError
from tdc.fleet import signing


class Package:
    def __init__(self, top, files):
        self.top, self.files = top, files          # files: relative path -> bytes
        self._json = {}

    @classmethod
    def read(cls, path):
        with tempfile.TemporaryDirectory(prefix="tdc-rewrite-") as tmp:
            stage = packaging.extract(path, tmp)
            files = {}
            for folder, _, names in os.walk(stage):
                for name in names:
                    full = os.path.join(folder, name)
                    with open(full, "rb") as f:
                        files[os.path.relpath(full, stage).replace(os.sep, "/")] = f.read()
        return cls(os.path.basename(stage), files)

    def copy(self):
        """An independent copy (its JSON is parsed again from the bytes: faster than a deep copy)."""
        self._flush()
        return Package(self.top, dict(self.files))

    def json(self, name):
        if name not in self._json:
            self._json[name] = json.loads(self.files[name])
        return self._json[name]

    def _flush(self):
        for name, value in self._json.items():
            self.files[name] = json.dumps(value, indent=1).encode()
        self._json = {}

    # --- what a fleet varies --------------------------------------------
    def set_host(self, host):
        old = self.json("context.json")["host"]
        self.json("context.json")["host"] = host
        self.top = self.top.replace(f"tdc-{old}-", f"tdc-{host}-", 1) if f"tdc-{old}-" in self.top \
            else f"tdc-{host}-{self.top.split('-', 2)[-1]}"

    def set_devices(self, model, driver, types=None):
        """Every device (but cpu, or only of `types`) becomes model/driver."""
        context = self.json("context.json")
        for key in ("devices", "loopback_devices"):
            for device in (context.get(key) or {}).get("devices", []):
                kind = device["device"].split(":")[0]
                if kind != "cpu" and (types is None or kind in types):
                    device["name"], device["driver"] = model, driver

    def set_libtorch(self, version):
        for key in ("devices", "loopback_devices"):
            if self.json("context.json").get(key):
                self.json("context.json")[key]["libtorch_version"] = version

    def set_suite_version(self, version):
        """The run's suite version (context, summary, JUnit properties,
        STATEMENT) becomes version: a base package made before a VERSION
        bump verifies against this tree's series. Only for a base with the
        same mustpass digest (the part after '+'): the same checks, so the
        package still holds every check the series requires; another digest
        is refused (its checks are not this tree's). Returns the old version."""
        old = self.json("context.json")["suite_version"]
        if old == version:
            return old
        if old.partition("+")[2] != version.partition("+")[2]:
            raise InputError(f"the base package's suite {old} has other mustpass lists than this "
                             f"tree's {version}: make a new base from a run of this tree")
        self._flush()
        for name, data in self.files.items():
            self.files[name] = data.replace(old.encode(), version.encode())
        return old

    def set_run_id(self, run_id):
        """The package becomes run run_id (context, summary, JUnit, STATEMENT
        alike): what the self-tests' later nights need, since a run merged on
        one night is a replay on the next (ci/merge --history). Returns the old id."""
        old = self.json("context.json")["run_id"]
        self._flush()
        for name, data in self.files.items():
            self.files[name] = data.replace(old.encode(), run_id.encode())
        return old

    def fail(self, check, device, message, prerequisite=None, twins=False):
        """Every test of `check` on `device` fails with message (a dependent
        when prerequisite names the check it depends on); the loopback
        reference twins too only with twins=True. The summary, the per-check
        junit.xml, the GoogleTest result and its ctest entry in
        ctest-junit.xml all say so, as a run that failed would. Returns how many."""
        summary = self.json("summary.json")
        names = []
        for test in summary["tests"]:
            if test["check"] == check and test["device"] == device and test["status"] != results.FAILED \
                    and (twins or not test["twin"]):
                test.update(status=results.FAILED, message=message, prerequisite=prerequisite)
                names.append(test["name"])
        if not names:
            return 0
        chosen = set(names)
        entries = {t.get("entry") for t in summary["tests"] if t["name"] in chosen and t.get("entry")}
        self._edit_xml("junit.xml", lambda case: case.get("name") in chosen, _make_failure(message))
        self._edit_xml("ctest-junit.xml", lambda case: case.get("name") in entries, _make_failure(message, ctest=True))
        for name in self._gtest_files():
            self._edit_xml(name, lambda case: _property(case, "test") in chosen, _make_failure(message))
        _recount(summary)
        self._edit_xml("junit.xml", None, None, totals=summary)
        return len(names)

    def drop_tests(self, keep):
        """Removes every test for which keep(test) is false, from summary.json,
        junit.xml, gtest/ and (an entry left with no check) ctest-junit.xml
        alike (an 8-device loopback run's reference twins on loopback:2..7,
        which a GPU host's twins, on two devices, never have). Returns how
        many were dropped."""
        summary = self.json("summary.json")
        gone = {t["name"] for t in summary["tests"] if not keep(t)}
        if not gone:
            return 0
        entries_before = {t.get("entry") for t in summary["tests"] if t.get("entry")}
        summary["tests"] = [t for t in summary["tests"] if t["name"] not in gone]
        entries_after = {t.get("entry") for t in summary["tests"] if t.get("entry")}
        emptied = entries_before - entries_after
        self._edit_xml("junit.xml", lambda case: case.get("name") in gone, _REMOVE)
        self._edit_xml("ctest-junit.xml", lambda case: case.get("name") in emptied, _REMOVE)
        for name in self._gtest_files():
            if not self._edit_xml(name, lambda case: _property(case, "test") in gone, _REMOVE):
                del self.files[name]  # no testcase left in it
        _recount(summary)
        self._edit_xml("junit.xml", None, None, totals=summary)
        return len(gone)

    def _gtest_files(self):
        return [n for n in self.files if n.startswith("gtest/") and n.endswith(".xml")]

    def _edit_xml(self, name, chosen, change, totals=None):
        """Applies change(parent, case) to each <testcase> chosen(case) picks
        in file `name` (if the package has it), then the <testsuite> counts
        from `totals` (a summary); returns how many testcases remain."""
        if name not in self.files:
            return 0
        root = ET.fromstring(self.files[name])
        remaining = 0
        for parent in [root, *root.iter()]:
            for case in [c for c in parent if c.tag == "testcase"]:
                if chosen is not None and chosen(case):
                    change(parent, case)
                if case in list(parent):
                    remaining += 1
        if totals is not None:
            junit_report.set_suite_counts(root, totals["tests"])
        self.files[name] = ET.tostring(root, encoding="utf-8", xml_declaration=True)
        return remaining

    def scale_benchmarks(self, factor, device=None):
        """Benchmark rates on `device` (every device when None) times factor:
        times divided by it, bandwidths multiplied."""
        for name in [n for n in self.files if n.startswith("bench/") and n.endswith(".json")]:
            try:
                data = self.json(name)
            except ValueError:
                continue
            for entry in data.get("benchmarks", []) if isinstance(data, dict) else []:
                parts = entry.get("run_name", entry.get("name", "")).split("/")
                if len(parts) < 3 or (device is not None and parts[2].split("->")[0] != device):
                    continue
                _scale(entry, factor)

    def equalise_devices(self):
        """Every device of a series gets the geometric mean of the devices'
        medians (times and bandwidths scaled alike): a synthetic fleet's
        devices of one model start alike, the base run's differences between
        its devices being its host's noise, not theirs."""
        for name in [n for n in self.files if n.startswith("bench/") and n.endswith(".json")]:
            data = self.json(name)
            entries = data.get("benchmarks", []) if isinstance(data, dict) else []
            series = {}
            for entry in entries:
                parts = entry.get("run_name", entry.get("name", "")).split("/")
                if len(parts) >= 3:
                    key = "/".join(parts[:2] + ["*"] + parts[3:])
                    series.setdefault(key, {}).setdefault(parts[2], []).append(entry)
            for by_device in series.values():
                medians = {device: next((e["real_time"] for e in group if e.get("aggregate_name") == "median"), None)
                           for device, group in by_device.items()}
                known = [m for m in medians.values() if isinstance(m, (int, float)) and m > 0]
                if len(known) < 2:
                    continue
                target = math.exp(sum(math.log(m) for m in known) / len(known))
                for device, group in by_device.items():
                    if not medians[device] or medians[device] <= 0:
                        continue
                    factor = medians[device] / target   # > 1: slower than the mean, made faster
                    for entry in group:
                        _scale(entry, factor)

    def bench_devices(self):
        found = set()
        for name in [n for n in self.files if n.startswith("bench/") and n.endswith(".json")]:
            data = self.json(name)
            for entry in data.get("benchmarks", []) if isinstance(data, dict) else []:
                parts = entry.get("run_name", entry.get("name", "")).split("/")
                if len(parts) >= 3:
                    found.add(parts[2].split("->")[0])
        return sorted(found)

    # --- writing -------------------------------------------------------
    def write(self, folder, sign_key=None, remanifest=True, name=None):
        """The package as folder/<top>.tar.gz; with remanifest the MANIFEST is
        rewritten (a careful forger does that too), with sign_key re-signed,
        else any old signature is kept as it was."""
        digest = f"bench/{bench_results.MEDIANS}"
        if digest in self.files:  # the digest follows the benchmarks it was made from
            documents = [(name, self.json(name)) for name in sorted(self.files)
                         if name.startswith("bench/") and name.endswith(".json") and name != digest]
            self.files[digest] = json.dumps(bench_results.medians_of(documents)).encode()
            self._json.pop(digest, None)
        self._flush()
        if remanifest:
            self.files[packaging.MANIFEST] = "".join(
                f"{hashlib.sha256(self.files[path]).hexdigest()}  {path}\n" for path in sorted(self.files)
                if path not in (packaging.MANIFEST, packaging.SIGNATURE)).encode()
        if sign_key:
            with tempfile.TemporaryDirectory(prefix="tdc-sign-") as tmp:
                manifest = os.path.join(tmp, packaging.MANIFEST)
                with open(manifest, "wb") as f:
                    f.write(self.files[packaging.MANIFEST])
                with open(signing.sign(manifest, sign_key), "rb") as f:
                    self.files[packaging.SIGNATURE] = f.read()
        path = os.path.join(folder, (name or self.top) + ".tar.gz")
        partial = path + ".partial"  # renamed when whole: a package file is never half written
        with tarfile.open(partial, "w:gz", format=tarfile.PAX_FORMAT, compresslevel=6) as tar:
            folders = sorted({"/".join(p.split("/")[:i]) for p in self.files for i in range(1, p.count("/") + 1)})
            for folder_name in [""] + folders:
                info = tarfile.TarInfo(f"{self.top}/{folder_name}".rstrip("/"))
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            for relative, data in sorted(self.files.items()):
                info = tarfile.TarInfo(f"{self.top}/{relative}")
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
        os.replace(partial, path)
        return path


def _make_failure(message, ctest=False):
    """change() for _edit_xml: the testcase becomes a failure with message."""
    def change(parent, case):
        junit_report.set_outcome(case, results.FAILED, message, ctest=ctest)
    return change


def _REMOVE(parent, case):
    parent.remove(case)


def _property(case, key):
    for prop in case.iter("property"):
        if prop.get("name") == key:
            return prop.get("value")
    return None


def _recount(summary):
    for key in ("devices", "other"):
        for counts in summary.get(key, {}).values():
            counts.update(results.counts())
    for test in summary["tests"]:
        group = "devices" if test["scope"] == "device" else "other"
        summary.setdefault(group, {}).setdefault(test["device"], results.counts())[test["status"]] += 1
    totals = results.counts(summary["tests"])
    summary["totals"] = totals
    failures = []
    for test in summary["tests"]:
        if test["status"] == results.FAILED and not test.get("prerequisite"):
            failures.append({"root_cause": test["name"], "message": test["message"], "dependents": [
                t["name"] for t in summary["tests"] if t["status"] == results.FAILED and t.get("prerequisite")
                and (t["prerequisite"] == test["name"] or test["name"].startswith(t["prerequisite"] + "/")
                     or t["prerequisite"] == test["check"])]})
    summary["failures_by_root_cause"] = failures


def _scale(entry, factor):
    """One benchmark entry's rate times factor: its times divided by it, its
    bandwidth multiplied; a coefficient of variation (a percentage) is left."""
    if entry.get("aggregate_name") == "cv" or entry.get("aggregate_unit") == "percentage":
        return
    for key in ("real_time", "cpu_time"):
        if isinstance(entry.get(key), (int, float)):
            entry[key] = entry[key] / factor
    if isinstance(entry.get("bytes_per_second"), (int, float)):
        entry["bytes_per_second"] = entry["bytes_per_second"] * factor
