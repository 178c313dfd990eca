"""Reads the Google Benchmark JSON the tdc_bench_* programs write.

Benchmark names are "<family>/<pattern>/<device>[/<size>]/manual_time", e.g.
"transfer/h2d_pinned/loopback:0/65536/manual_time",
"forward/seed_float32/cpu/manual_time" or "latency/d2d/cpu/4096/manual_time";
a copy between two devices names both ("loopback:0->loopback:1"). The JSON keeps every repetition and the
aggregates (mean, median, stddev, cv); the medians are what every tool here
reads.
"""
import json
import os
from dataclasses import dataclass, field
from typing import Optional

_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


@dataclass
class Result:
    run_name: str
    family: str                 # "transfer" | "forward" | "latency"
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


def parse_name(run_name):
    parts = [p for p in run_name.split("/") if p != "manual_time"]
    if len(parts) < 3:
        return None
    size = int(parts[3]) if len(parts) > 3 and parts[3].isdigit() else None
    return parts[0], parts[1], parts[2], size


class BadResults(Exception):
    """A results file that cannot be read: the message is one line."""


def one_line(error):
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def read_json(path):
    """The parsed file; BadResults with one line naming the file if damaged."""
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as error:
        raise BadResults(f"{path}: cannot read: {error.strerror or one_line(error)}")
    except (ValueError, UnicodeDecodeError) as error:
        size = os.path.getsize(path) if os.path.exists(path) else 0
        raise BadResults(f"{path}: not valid JSON ({size} bytes; truncated or damaged?): "
                         f"{one_line(error)}")


def load(path):
    """Returns (context, [Result]) for one benchmark JSON file."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks", []), list):
        raise BadResults(f"{path}: not a Google Benchmark JSON file (no 'benchmarks' list)")
    context = data.get("context", {}) if isinstance(data.get("context", {}), dict) else {}
    groups = {}
    for entry in data.get("benchmarks", []):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise BadResults(f"{path}: a benchmark entry without a name")
        run_name = entry.get("run_name", entry["name"])
        groups.setdefault(run_name, []).append(entry)

    results = []
    for run_name, entries in groups.items():
        parsed = parse_name(run_name)
        if parsed is None:
            continue
        family, pattern, device, size = parsed
        iterations = [e for e in entries if e.get("run_type") != "aggregate"]
        aggregates = {e.get("aggregate_name"): e for e in entries if e.get("run_type") == "aggregate"}
        errors = [e for e in entries if e.get("error_occurred")]
        error = errors[0].get("error_message", "error") if errors else None
        median = aggregates.get("median") or (iterations[0] if iterations and not error else None)
        seconds = bytes_per_second = None
        counters = {}
        if median is not None and not error:
            try:
                seconds = float(median["real_time"]) * _SECONDS[median.get("time_unit", "ns")]
            except (KeyError, TypeError, ValueError):
                raise BadResults(f"{path}: {run_name}: no usable real_time/time_unit")
            bytes_per_second = median.get("bytes_per_second")
            counters = {k: v for k, v in median.items() if isinstance(v, (int, float))}
        cv_entry = aggregates.get("cv")
        results.append(Result(
            run_name=run_name, family=family, pattern=pattern, device=device, size=size,
            seconds=seconds, bytes_per_second=bytes_per_second, counters=counters,
            cv=cv_entry["real_time"] if cv_entry else None,
            repetitions=len(iterations), error=error, source=str(path), context=context))
    return context, results


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
