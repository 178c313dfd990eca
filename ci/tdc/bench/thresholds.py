"""check-thresholds: checks tdc_bench_* results against per-device minimum bandwidths (a
copy's; a collective's bus bandwidth, nccl-tests' busbw) and maximum times (bench/thresholds.json), in the spirit of DCGM's per-SKU
diagnostics: a device is judged by the entry for its name ("NVIDIA H200")
if there is one, else by the entry for its type ("cuda").

Fails closed. Exit status:
  0  every result had a threshold entry for its device, at least one result
     was checked, and none violated its threshold;
  1  a threshold was violated, or a benchmark did not run (verification
     failed, the device threw);
  2  bad input: an unreadable or damaged file, an unknown key or pattern in
     the thresholds (a typo such as 'min_bandwith_GBps', 'loopbak',
     'h2d_pined'), a size key that is not a byte count, a value that is not a
     positive number; or partial coverage: no results, a device without any
     thresholds entry, nothing checked, or (with --require-thresholds, for
     qualification) any result without a threshold.
Results without a threshold are listed as not checked, always.
"""
import json
import math
import os
import re
import sys

from tdc import ROOT, cli, safeio
from tdc.bench import results as bench_results
from tdc.errors import InputError

DEFAULT_THRESHOLDS = os.path.join(ROOT, "bench", "thresholds.json")

# Which thresholds key judges which family, and the patterns each may name.
DTYPES = ("float32", "float16", "bfloat16")
COPY_PATTERNS = ("memcpy", "d2d", "clone", "h2d", "d2h", "h2d_pinned", "d2h_pinned", "d2d_peer")
COLLECTIVES = ("allreduce", "allgather", "reduce_scatter", "broadcast", "alltoall")
FORWARD_CASE = re.compile(r"^(seed|linear1024_b[0-9]+)_(%s)$" % "|".join(DTYPES))
LATENCY_CASE = re.compile(r"^(seed_(%s)|d2d|h2d|d2h)$" % "|".join(DTYPES))
KEYS = {
    "min_bandwidth_GBps": ("transfer", lambda p: p in COPY_PATTERNS, "steps"),
    "max_forward_us": ("forward", lambda p: bool(FORWARD_CASE.match(p)) or p == "*", "number"),
    "max_latency_us": ("latency", lambda p: bool(LATENCY_CASE.match(p)) or p == "*", "number"),
    "max_sync_us": ("sync", lambda p: p in ("device", "*"), "number"),
    "min_busbw_GBps": ("collectives", lambda p: p in COLLECTIVES, "steps"),
}
# What a floor by size ("steps") is compared with, per family, in GB/s: a
# transfer's bandwidth, a collective's bus bandwidth (nccl-tests' busbw,
# the tdc_bench_collectives counter), each the median of the repetitions.
# (what the violation line calls it, how it is read)
STEP_MEASURES = {
    "transfer": ("", lambda r: r.bytes_per_second / 1e9 if r.bytes_per_second else None),
    "collectives": (" busbw", lambda r: r.busbw_gbps),
}
FAMILY_KEY = {family: key for key, (family, _, _) in KEYS.items()}
# Device types LibTorch knows (c10/core/DeviceType.h) plus the loopback
# backend's name. A lowercase key that is none of these, nor the type of a
# device in the results, is a typo ('loopbak'), not a marketing name.
DEVICE_TYPES = {"cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia",
                "xla", "vulkan", "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu",
                "mtia", "privateuseone", "loopback"}
TYPE_LIKE = re.compile(r"^[a-z][a-z0-9_]*$")


class BadThresholds(InputError):
    pass


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
        and value > 0


def validate_entry(where, entry):
    if not isinstance(entry, dict):
        raise BadThresholds(f"{where}: expected an object, got {type(entry).__name__}")
    for key, value in entry.items():
        if key == "about":
            continue
        if key not in KEYS:
            raise BadThresholds(f"{where}: unknown key '{key}' (expected one of: "
                                f"{', '.join(sorted(KEYS))}, about)")
        _, pattern_ok, shape = KEYS[key]
        if not isinstance(value, dict):
            raise BadThresholds(f"{where}.{key}: expected an object of patterns, "
                                f"got {type(value).__name__}")
        for pattern, limit in value.items():
            here = f"{where}.{key}.{pattern}"
            if not pattern_ok(pattern):
                raise BadThresholds(f"{where}.{key}: unknown pattern '{pattern}'")
            if shape == "number":
                if not is_number(limit):
                    raise BadThresholds(f"{here}: {json.dumps(limit)} is not a positive number")
                continue
            if not isinstance(limit, dict) or not limit:
                raise BadThresholds(f"{here}: expected {{\"<from bytes>\": GB/s, ...}}, "
                                    f"got {json.dumps(limit)}")
            for size, floor in limit.items():
                if not size.isdigit() or int(size) <= 0:
                    raise BadThresholds(f"{here}: size key '{size}' is not a byte count "
                                        f"(write 4 KiB as \"4096\")")
                if not is_number(floor):
                    raise BadThresholds(f"{here}.{size}: {json.dumps(floor)} is not a positive number")


def load_thresholds(path, result_types):
    """Validated {device key: entry}; raises BadThresholds (one line)."""
    try:
        data = safeio.load_json(path, "thresholds file")
    except InputError as error:
        raise BadThresholds(str(error))
    if not isinstance(data, dict) or not isinstance(data.get("devices"), dict):
        raise BadThresholds("expected an object with a 'devices' object")
    unknown = sorted(set(data) - {"about", "devices"})
    if unknown:
        raise BadThresholds(f"unknown top-level key '{unknown[0]}' (expected: about, devices)")
    entries = {}
    for key, entry in data["devices"].items():
        if key.startswith("_"):  # commented out (JSON has no comments)
            continue
        if TYPE_LIKE.match(key) and key not in DEVICE_TYPES | result_types:
            raise BadThresholds(f"devices: '{key}' is no device type LibTorch knows and no device "
                                f"in the results (a typo? a name is written as reported, "
                                f"e.g. 'NVIDIA H200')")
        validate_entry(f"devices.{key}", entry)
        entries[key] = entry
    return entries


def entry_for(thresholds, result):
    if result.device_name and result.device_name in thresholds:
        return result.device_name, thresholds[result.device_name]
    if result.device_type in thresholds:
        return result.device_type, thresholds[result.device_type]
    return None, None


def step_value(steps, size):
    """{"4096": a, "1048576": b}: a from 4 KiB, b from 1 MiB up."""
    applicable = [(int(k), v) for k, v in steps.items() if int(k) <= size]
    return max(applicable)[1] if applicable else None


def describe(r):
    size = f" {bench_results.human_bytes(r.size)}" if r.size else ""
    world = f" w{r.world}" if r.world else ""
    return f"{r.where()}: {r.family} {r.pattern}{world}{size}"


def judge(thresholds, r):
    """One result against its device's entry: a dict with verdict ("did not
    run", "no entry", "not checked", "passed", "violated"), the entry's key,
    measured and limit (numbers in unit: "GB/s" at least, "us" at most) and
    the line check_thresholds prints for a violation. The report's
    thresholds table and the command's lines both come from here."""
    key, entry = entry_for(thresholds, r)
    row = {"result": describe(r), "key": key, "measured": None, "limit": None, "unit": None, "line": None}
    if r.error:
        return dict(row, verdict="did not run", line=f"{describe(r)}: did not run: {r.error}")
    if entry is None:
        return dict(row, verdict="no entry")
    limits = entry.get(FAMILY_KEY.get(r.family, ""), {})
    if r.family in STEP_MEASURES:
        what, measure = STEP_MEASURES[r.family]
        steps = limits.get(r.pattern)
        required = step_value(steps, r.size) if steps and r.size else None
        measured = measure(r)
        row.update(unit="GB/s", measured=measured, limit=required)
        if required is None or measured is None:
            return dict(row, verdict="not checked")
        if measured < required:
            return dict(row, verdict="violated", line=f"{describe(r)}: {measured:.3f} GB/s{what} < required "
                                                      f"{required:g} GB/s{what} (thresholds '{key}')")
        return dict(row, verdict="passed")
    required = limits.get(r.pattern, limits.get("*"))
    measured = r.seconds * 1e6 if r.seconds is not None else None
    row.update(unit="us", measured=measured, limit=required)
    if required is None or measured is None:
        return dict(row, verdict="not checked")
    if measured > required:
        return dict(row, verdict="violated", line=f"{describe(r)}: {measured:.1f} us > allowed {required:g} us "
                                                  f"(thresholds '{key}')")
    return dict(row, verdict="passed")


def check(thresholds, results):
    """Returns (checked, violations, unchecked, devices without an entry)."""
    violations, unchecked, no_entry, checked = [], [], {}, 0
    for r in results:
        row = judge(thresholds, r)
        if row["verdict"] == "no entry":
            no_entry.setdefault(r.where(), r.device_type)
        elif row["verdict"] == "not checked":
            unchecked.append(row["result"])
        else:
            checked += row["verdict"] != "did not run"
            if row["line"]:
                violations.append(row["line"])
    return checked, violations, unchecked, no_entry


def parser():
    p = cli.Parser("check_thresholds", __doc__)
    p.add_argument("results", nargs="+", help="Google Benchmark JSON files")
    p.add_argument("--thresholds", default=DEFAULT_THRESHOLDS,
                   help="per-device thresholds (default bench/thresholds.json)")
    p.add_argument("--require-thresholds", action="store_true",
                   help="fail (exit 2) when any result has no threshold (qualification)")
    return p


def run(argv):
    args = parser().parse_args(argv)
    results = bench_results.load_all(args.results)
    try:
        thresholds = load_thresholds(args.thresholds, {r.device_type for r in results})
    except BadThresholds as error:
        raise InputError(f"{args.thresholds}: {error}")
    if not results:
        raise InputError(f"no benchmark results in {', '.join(args.results)}: checked nothing")

    checked, violations, unchecked, no_entry = check(thresholds, results)
    for line in violations:
        print(line)
    problems = [f"no thresholds entry for {where} (add '{kind}' or its name to {args.thresholds})"
                for where, kind in sorted(no_entry.items())]
    if unchecked:
        print(f"not checked (no threshold): {len(unchecked)} result(s): " + "; ".join(unchecked))
        if args.require_thresholds:
            problems.append(f"--require-thresholds: {len(unchecked)} result(s) have no threshold")
    if checked == 0:
        problems.append("no result was checked against a threshold")
    for line in problems:
        print(f"check_thresholds: {line}", file=sys.stderr)
    print(f"thresholds: {checked} of {len(results)} results checked, {len(violations)} violation(s)"
          f"{', INCOMPLETE' if problems else ''}")
    if problems:
        return 2
    return 1 if violations else 0


def main(argv=None):
    return cli.run_main("check_thresholds", run, argv)
