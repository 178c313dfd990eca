"""resource_spec: writes CTest's resource specification (JSON, to stdout or
--out) from device discovery: one resource kind per device
(tdc/device_resources.h), for the devices the plain entries run on (this
environment: TDC_BACKEND_LIBS, TDC_DEVICES) and those of the loopback twins.
Valid with no accelerator: an empty kind list.

  ci/resource_spec.py --build-dir BUILD [--slots N] [--out FILE]
Exit status: 0 written; 1 discovery failed; 2 bad input."""
import json
import os
import subprocess
import sys
import tempfile

from tdc import cli, safeio
from tdc.errors import InputError, one_line


class DiscoveryFailed(Exception):
    pass


def discovered(device_select, env, slots):
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "spec.json")
        try:
            run = subprocess.run([device_select, f"--resource-spec={spec}", f"--resource-slots={slots}"],
                                 env=env, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            raise DiscoveryFailed(f"{device_select} did not answer within 600 s")
        if run.returncode != 0:
            said = [l for l in (run.stderr or run.stdout).splitlines() if l.strip()]
            raise DiscoveryFailed(f"device_select exited {run.returncode}: "
                                  f"{said[-1] if said else 'no message'}")
        document = safeio.load_json(spec, "resource spec", kind=dict)
    try:
        return document["local"][0]
    except (KeyError, IndexError, TypeError):
        raise DiscoveryFailed(f"device_select wrote a resource spec without local[0]")


def spec(build_dir, slots, environment=None):
    """The resource spec document; DiscoveryFailed with one line."""
    environment = dict(os.environ if environment is None else environment)
    device_select = os.path.join(build_dir, "bin", "device_select")
    if not os.access(device_select, os.X_OK):
        raise InputError(f"{device_select} is missing (build first)")
    kinds = discovered(device_select, environment, slots)
    loopback = os.path.join(build_dir, "lib", "libtdc_loopback.so")
    if os.path.exists(loopback):
        # The twins' settings (cmake/TdcTesting.cmake, twin_environment).
        twin = dict(environment, TDC_BACKEND_LIBS=loopback, TDC_DEVICES="privateuseone",
                    TDC_EXPECT="privateuseone:2")
        kinds.update(discovered(device_select, twin, slots))
    return {"version": {"major": 1, "minor": 0}, "local": [kinds]}


def parser():
    p = cli.Parser("resource_spec", __doc__)
    p.add_argument("--build-dir", required=True, help="a built tree (bin/device_select)")
    p.add_argument("--slots", type=cli.whole(1, 100), default=100, help="slots per device, 1..100 (default 100)")
    p.add_argument("--out", help="write here instead of stdout")
    return p


def run(argv):
    args = parser().parse_args(argv)
    try:
        document = spec(args.build_dir, args.slots)
    except DiscoveryFailed as error:
        print(f"resource_spec: {one_line(error)}", file=sys.stderr)
        return 1
    text = json.dumps(document, indent=2) + "\n"
    if args.out:
        safeio.write_text(args.out, text, "resource spec")
    else:
        sys.stdout.write(text)
    return 0


def main(argv=None):
    return cli.run_main("resource_spec", run, argv)
