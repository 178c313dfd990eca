"""A configured build's CMakeCache.txt as {name: value}: what context.json,
the discovery fingerprint, an installed run's facts (share/tdc/build) and the
loopback's device type (tdc.fleet.allocation) read of a build. Its own
module, below all of them, so that none imports another for it."""
import os
import re

from tdc.errors import InputError


def read(build_dir):
    """{name: value} of BUILD_DIR/CMakeCache.txt; InputError when the folder
    is not a configured build."""
    values = {}
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8", errors="replace") as f:
            for line in f:
                match = re.match(r"^([A-Za-z_0-9]+):[A-Z]+=(.*)$", line.rstrip("\n"))
                if match:
                    values[match.group(1)] = match.group(2)
    except OSError:
        raise InputError(f"{build_dir} is not a configured build (no CMakeCache.txt)")
    return values
