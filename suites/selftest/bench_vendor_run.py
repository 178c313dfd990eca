#!/usr/bin/env python3
"""Self-test: a vendor's backend is benchmarked. With TDC_BACKEND_LIBS and
TDC_EXPECT naming a backend's devices (here the loopback library, as a vendor
would load theirs), tdc run-benchmarks must exit 0 and its host run must hold results
for those devices: the step a vendor's level 3 gates on.

The floors it checks are bench/thresholds.json's divided by a thousand (its
limits times a thousand): the same entries, so every result still needs one
(--require-thresholds), but no load on a shared host can take a working
copy or forward below them. Whether this host meets the real floors is a
measurement (tdc run-benchmarks), not what this test is about.

  bench_vendor_run.py --build-dir BUILD --work DIR
"""
import argparse
import json
import os
import subprocess
import sys

from tdc import ROOT

# How far below bench/thresholds.json's floors this test's are.
SLACK = 1000


def loosened(thresholds):
    """bench/thresholds.json with every floor divided by SLACK and every
    time limit multiplied by it."""
    def scale(key, value):
        if isinstance(value, dict):
            return {k: scale(key, v) for k, v in value.items()}
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value / SLACK if key == "min_bandwidth_GBps" else value * SLACK
        return value
    return dict(thresholds, devices={device: {key: scale(key, value) for key, value in entry.items()}
                                     for device, entry in thresholds["devices"].items()})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    library = os.path.join(os.path.abspath(args.build_dir), "lib", "libtdc_loopback.so")
    env = dict(os.environ, TDC_BACKEND_LIBS=library, TDC_BENCH_QUICK="1")
    env.pop("TDC_DEVICES", None)
    # The backend's own name, as the vendor would write it in TDC_EXPECT.
    probe = subprocess.run([os.path.join(args.build_dir, "bin", "device_select")], env=env,
                           capture_output=True, text=True)
    selected = [line.split("=", 1)[1] for line in probe.stdout.splitlines() if line.startswith("selected_device=")]
    if probe.returncode != 0 or not selected:
        sys.exit(f"FAIL: device_select with the backend loaded: exit {probe.returncode}: {probe.stderr[-500:]}")
    device_type = selected[0]
    env["TDC_EXPECT"] = f"{device_type}:2"
    os.makedirs(args.work, exist_ok=True)
    with open(os.path.join(ROOT, "bench", "thresholds.json")) as f:
        floors = loosened(json.load(f))
    thresholds = os.path.join(args.work, "thresholds_loosened.json")
    with open(thresholds, "w") as f:
        json.dump(floors, f, indent=1)
    # One repetition: what is asserted is that the vendor's devices are
    # benchmarked and gated, not how steady the figures are (ten took 16 of
    # this test's 25 s, on every build).
    run = subprocess.run([sys.executable, "-m", "tdc", "run-benchmarks", "--build-dir", args.build_dir,
                          "--out", args.work, "--quick", "--cold-start-runs", "1", "--repetitions", "1",
                          "--thresholds", thresholds],
                         env=env, capture_output=True, text=True, timeout=600)
    print(run.stdout[-3000:], run.stderr[-2000:])
    if run.returncode != 0:
        sys.exit(f"FAIL: tdc run-benchmarks exited {run.returncode} with TDC_EXPECT={env['TDC_EXPECT']}")
    with open(os.path.join(args.work, "transfer_host.json")) as f:
        names = [b["name"] for b in json.load(f)["benchmarks"]]
    if not any(f"{device_type}:0" in n for n in names):
        sys.exit(f"FAIL: the host run has no {device_type}:0 results: the backend was not benchmarked")
    print(f"PASS: the host run benchmarked {device_type}:0 with TDC_EXPECT={env['TDC_EXPECT']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
