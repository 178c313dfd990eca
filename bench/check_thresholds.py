#!/usr/bin/env python3
"""Checks tdc_bench_* results against per-device minimum bandwidths and
maximum latencies (bench/thresholds.json), in the spirit of DCGM's per-SKU
diagnostics: a device is judged by the entry for its name ("NVIDIA H200")
if there is one, else by the entry for its type ("cuda").

Prints one line per violation (device, pattern, measured, required) and exits
1 if there is any; a benchmark that errored (verification failed) is a
violation too. Exit 2 on unreadable input.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_results  # noqa: E402


def load_thresholds(path):
    with open(path) as f:
        data = json.load(f)
    # Keys starting with "_" are commented out (JSON has no comments).
    return {k: v for k, v in data.get("devices", {}).items() if not k.startswith("_")}


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


def check(thresholds, results):
    violations, checked = [], 0
    for r in results:
        key, entry = entry_for(thresholds, r)
        if r.error:
            violations.append(f"{r.where()}: {r.family} {r.pattern}"
                              f"{' ' + bench_results.human_bytes(r.size) if r.size else ''}: "
                              f"did not run: {r.error}")
            continue
        if entry is None:
            continue
        if r.family == "transfer":
            steps = entry.get("min_bandwidth_GBps", {}).get(r.pattern)
            required = step_value(steps, r.size) if steps else None
            if required is None or r.bytes_per_second is None:
                continue
            checked += 1
            measured = r.bytes_per_second / 1e9
            if measured < required:
                violations.append(
                    f"{r.where()}: transfer {r.pattern} {bench_results.human_bytes(r.size)}: "
                    f"{measured:.3f} GB/s < required {required:g} GB/s (thresholds '{key}')")
        elif r.family == "forward":
            limits = entry.get("max_latency_us", {})
            required = limits.get(r.pattern, limits.get("*"))
            if required is None or r.seconds is None:
                continue
            checked += 1
            measured = r.seconds * 1e6
            if measured > required:
                violations.append(
                    f"{r.where()}: forward {r.pattern}: {measured:.1f} us > allowed "
                    f"{required:g} us (thresholds '{key}')")
    return checked, violations


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thresholds", required=True)
    parser.add_argument("results", nargs="+", help="Google Benchmark JSON files")
    args = parser.parse_args()
    try:
        thresholds = load_thresholds(args.thresholds)
        results = bench_results.load_all(args.results)
    except (OSError, ValueError, KeyError) as error:
        print(f"check_thresholds: {error}", file=sys.stderr)
        return 2
    checked, violations = check(thresholds, results)
    for line in violations:
        print(line)
    print(f"thresholds: {checked} results checked, {len(violations)} violation(s)")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
