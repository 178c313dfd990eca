"""Reads the Google Benchmark JSON the tdc_bench_* programs write.

Benchmark names are "<family>/<pattern>/<device>[/w<world>][/<size>]/manual_time", e.g.
"transfer/h2d_pinned/loopback:0/65536/manual_time",
"forward/seed_float32/cpu/manual_time", "latency/d2d/cpu/4096/manual_time" or
"collectives/allreduce/cpu/w2/4096/manual_time" (a collective names its device
type and its world's size: ranks); a copy between two devices names both
("loopback:0->loopback:1"). The JSON keeps every repetition and the
aggregates (mean, median, stddev, cv); the medians are what every tool here
reads.

Fails closed: a file that is not JSON (NaN and Infinity are not), a
benchmark entry whose time or bandwidth is not a finite non-negative number,
a context value that is not a string, is BadResults with one line.
"""
import math
import re
from dataclasses import dataclass, field
from typing import Optional

from tdc import safeio
from tdc.errors import InputError, one_line

_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


class BadResults(InputError):
    """A results file that cannot be read: the message is one line."""


@dataclass
class Result:
    run_name: str
    family: str                 # "transfer" | "forward" | "latency" | "sync" | "collectives"
    pattern: str                # "h2d_pinned" | "seed_float32"
    device: str                 # "loopback:0", "loopback:0->loopback:1"
    size: Optional[int]         # bytes, for transfers
    seconds: Optional[float]    # median time per iteration
    bytes_per_second: Optional[float]
    counters: dict
    cv: Optional[float]         # coefficient of variation of the time, a fraction
    repetitions: int
    error: Optional[str]
    source: str = ""            # the file it came from
    context: dict = field(default_factory=dict)
    samples: list = field(default_factory=list)   # seconds per iteration, each repetition
    world: Optional[int] = None  # ranks, for collectives

    @property
    def busbw_gbps(self):
        """A collective's bus bandwidth in GB/s (nccl-tests' busbw, the
        tdc_bench_collectives counter): what its floors, report and tables
        read. bytes_per_second is its algbw."""
        value = self.counters.get(BUSBW_COUNTER) if self.family == "collectives" else None
        return float(value) if value is not None else None

    @property
    def device_type(self):
        return self.device.split("->")[0].split(":")[0]

    @property
    def device_name(self):
        """The device's marketing name from the run's context, if known."""
        first = self.device.split("->")[0]
        return self.context.get(f"tdc.device.{first}.name", "")

    def where(self):
        name = self.device_name
        return f"{self.device} ({name})" if name else self.device


BUSBW_COUNTER = "busbw_GBps"
_WORLD = re.compile(r"^w[0-9]+$")


def parse_name(run_name):
    """(family, pattern, device, size or None, world or None), or None."""
    parts = [p for p in run_name.split("/") if p != "manual_time"]
    if len(parts) < 3:
        return None
    rest = parts[3:]
    world = None
    if rest and _WORLD.match(rest[0]):
        world, rest = int(rest[0][1:]), rest[1:]
    size = int(rest[0]) if rest and rest[0].isdigit() else None
    return parts[0], parts[1], parts[2], size, world


def read_json(path):
    """The parsed file; BadResults with one line naming the file if damaged."""
    try:
        return safeio.load_json(path, "benchmark results")
    except InputError as error:
        raise BadResults(str(error))


def number(entry, key, path, run_name, required=False):
    value = entry.get(key)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0:
        raise BadResults(f"{path}: {run_name}: {key} is {value!r}, not a finite non-negative number")
    return float(value)


def checked_context(data, path):
    context = data.get("context", {})
    if not isinstance(context, dict):
        raise BadResults(f"{path}: 'context' is not an object")
    for key, value in context.items():
        if key.startswith("tdc.device.") and not isinstance(value, str):
            raise BadResults(f"{path}: context {key} is {safeio.json_type(value)}, expected a string")
    return context


def error_of(errors):
    """The error message of a benchmark that did not run: never None, so a
    null message cannot turn an error into a pass."""
    if not errors:
        return None
    message = errors[0].get("error_message")
    return message.strip() if isinstance(message, str) and message.strip() else "error (no message given)"


def seconds_of(entry, path, run_name):
    unit = entry.get("time_unit", "ns")
    if unit not in _SECONDS:
        raise BadResults(f"{path}: {run_name}: time_unit {unit!r} is not one of {sorted(_SECONDS)}")
    return number(entry, "real_time", path, run_name, required=True) * _SECONDS[unit]


def load(path):
    """Returns (context, [Result]) for one benchmark JSON file."""
    return parse(read_json(path), path)


def parse(data, path):
    """(context, [Result]) of one parsed benchmark JSON document (`path`
    names it in messages)."""
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks", []), list):
        raise BadResults(f"{path}: not a Google Benchmark JSON file (no 'benchmarks' list)")
    context = checked_context(data, path)
    groups = {}
    for entry in data.get("benchmarks", []):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise BadResults(f"{path}: a benchmark entry without a name")
        run_name = entry.get("run_name", entry["name"])
        if not isinstance(run_name, str):
            raise BadResults(f"{path}: {entry['name']}: run_name is not a string")
        groups.setdefault(run_name, []).append(entry)

    results = []
    for run_name, entries in groups.items():
        parsed = parse_name(run_name)
        if parsed is None:
            continue
        family, pattern, device, size, world = parsed
        errors = [e for e in entries if e.get("error_occurred")]
        error = error_of(errors)
        iterations = [e for e in entries if e.get("run_type") != "aggregate"]
        aggregates = {e.get("aggregate_name"): e for e in entries if e.get("run_type") == "aggregate"}
        median = aggregates.get("median") or (iterations[0] if iterations and not error else None)
        seconds = bytes_per_second = None
        counters, samples = {}, []
        if not error:
            for entry in entries:  # every repetition and aggregate must be a number
                if entry.get("aggregate_name") != "cv":
                    seconds_of(entry, path, run_name)
                number(entry, "bytes_per_second", path, run_name)
            if median is not None:
                seconds = seconds_of(median, path, run_name)
                bytes_per_second = number(median, "bytes_per_second", path, run_name)
                counters = {k: v for k, v in median.items()
                            if isinstance(v, (int, float)) and not isinstance(v, bool)}
            samples = [seconds_of(e, path, run_name) for e in iterations]
        cv_entry = aggregates.get("cv")
        results.append(Result(
            run_name=run_name, family=family, pattern=pattern, device=device, size=size,
            seconds=seconds, bytes_per_second=bytes_per_second, counters=counters,
            cv=number(cv_entry, "real_time", path, run_name) if cv_entry else None,
            repetitions=len(iterations), error=error, source=str(path), context=context,
            samples=samples, world=world))
    return context, results


# The medians of a package's benchmarks, written beside them by ci/package
# (bench/medians.json): a fleet merge reads this digest, not every
# repetition of every series of every host.
MEDIANS = "medians.json"


def medians(paths):
    """{series: {seconds, bytes_per_second, cv[, error]}} of the Google
    Benchmark files at paths, a series being the benchmark's name less
    "/manual_time" ("transfer/h2d/cuda:3/268435456"); the first file to name
    a series wins. A file that is not benchmark output is left out (it is
    still in the package, and its MANIFEST line)."""
    documents = []
    for path in paths:
        try:
            documents.append((path, read_json(path)))
        except BadResults:
            continue
    return medians_of(documents)


def medians_of(documents):
    """medians() of already parsed (path, data) documents."""
    series = {}
    for path, data in documents:
        try:
            _, results = parse(data, path)
        except BadResults:
            continue
        for result in results:
            entry = {"seconds": result.seconds, "bytes_per_second": result.bytes_per_second, "cv": result.cv}
            if result.error:
                entry["error"] = one_line(result.error)[:200]
            series.setdefault(result.run_name.replace("/manual_time", ""), entry)
    return series


def load_all(paths):
    results = []
    for path in paths:
        results.extend(load(path)[1])
    return results


def human_bytes(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


__all__ = ["BadResults", "Result", "MEDIANS", "load", "load_all", "medians", "medians_of", "parse",
           "human_bytes", "one_line"]
