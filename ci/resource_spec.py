#!/usr/bin/env python3
"""Writes CTest's resource specification (JSON, to stdout) from device
discovery: one resource kind per device (tdc/device_resources.h), for the
devices the plain entries run on (this environment: TDC_BACKEND_LIBS,
TDC_DEVICES) and those of the loopback twins. Valid with no accelerator: an
empty kind list.

  resource_spec.py --build-dir BUILD [--slots N]
Exit status: 0 written; 1 discovery failed; 2 bad input."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def discovered(device_select, env, slots):
    with tempfile.NamedTemporaryFile(suffix=".json") as spec:
        run = subprocess.run([device_select, f"--resource-spec={spec.name}", f"--resource-slots={slots}"],
                             env=env, capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            raise SystemExit(f"resource_spec.py: device_select exited {run.returncode}: "
                             f"{run.stderr.strip() or run.stdout.strip()}")
        with open(spec.name) as f:
            return json.load(f)["local"][0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--slots", type=int, default=100)
    args = parser.parse_args()
    device_select = os.path.join(args.build_dir, "bin", "device_select")
    if not os.access(device_select, os.X_OK):
        print(f"resource_spec.py: {device_select} is missing (build first)", file=sys.stderr)
        return 2
    kinds = discovered(device_select, dict(os.environ), args.slots)
    loopback = os.path.join(args.build_dir, "lib", "libtdc_loopback.so")
    if os.path.exists(loopback):
        # The twins' settings (cmake/TdcTesting.cmake, twin_environment).
        twin = dict(os.environ, TDC_BACKEND_LIBS=loopback, TDC_DEVICES="privateuseone",
                    TDC_EXPECT="privateuseone:2")
        kinds.update(discovered(device_select, twin, args.slots))
    print(json.dumps({"version": {"major": 1, "minor": 0}, "local": [kinds]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
