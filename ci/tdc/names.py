"""What a test's name says, for results that carry no metadata (a test that
crashed before writing its GoogleTest XML, the project's own tests). The
metadata the fixtures record always wins (tdc.gtest)."""
import re

# The loopback reference twins: every suite run again with only the
# loopback backend loaded (ctest label `loopback`, names prefixed so).
TWIN_PREFIX = "loopback:"
# A device as results name it: cpu, cuda:1, loopback:0, mybackend:3.
DEVICE = re.compile(r"^(cpu|[a-z][a-z0-9_]*:\d+)$")
EXPECTATION_CHECK = "DeviceExpectation.IsPresent"


def bare(name):
    """'loopback:Placement.X/loopback_0' -> 'Placement.X/loopback_0'."""
    head = name.split("/", 1)[0]
    return name.split(":", 1)[1] if ":" in head else name


def check_name(name):
    """'loopback:Forward.X/loopback_1_float32' -> 'Forward.X': a mustpass entry."""
    return bare(name).split("/", 1)[0]


def is_twin(name):
    return name.startswith(TWIN_PREFIX)


def device_from_name(name):
    """'loopback:Forward.X/loopback_1_bfloat16' -> 'loopback:1';
    unparameterised -> 'host'; the project's own tests -> 'selftest'."""
    if name.startswith("selftest."):
        return "selftest"
    if "/" not in name:
        return "host"
    label = name.rsplit("/", 1)[1]
    if re.match(r"cpu(_|$)", label):
        return "cpu"
    match = re.match(r"([a-z0-9]+?)_(\d+)(_|$)", label)
    return f"{match.group(1)}:{match.group(2)}" if match else label


def scope_of(device, check):
    """'device' for a check on a device, 'expectation' for TDC_EXPECT's
    checks, 'host' for the rest (discovery, selection, the project's own)."""
    if check == EXPECTATION_CHECK:
        return "expectation"
    return "device" if DEVICE.match(device) else "host"
