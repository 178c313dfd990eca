"""The environment variables that change which tests exist, read from the
one list the CMake discovery reads too: cmake/discovery-environment.txt.
A name written "!NAME" there changes the entries ctest makes at every start,
not a suite's cached list; both kinds change which tests exist."""
import os
import re

from tdc import ROOT
from tdc.errors import InputError

LIST = os.path.join(ROOT, "cmake", "discovery-environment.txt")
# The loopback's behaviour settings (each in the list): what a tool that
# measures, compares or builds fixtures clears from what it inherits, so that
# a user's fault, delay or synchronous mode never leaks into its figures.
LOOPBACK_BEHAVIOUR = ("TDC_LOOPBACK_FAULT", "TDC_LOOPBACK_DELAY_US", "TDC_LOOPBACK_HOLD_US",
                      "TDC_LOOPBACK_SYNCHRONOUS")


def minus(environment, names):
    """A copy of `environment` without `names` (the caller's own settings go on after)."""
    return {k: v for k, v in environment.items() if k not in names}
_ENTRY = re.compile(r"^[A-Za-z0-9_\[\]+*-]+$")


def entries(path=LIST):
    """[(pattern, what it changes)] in file order."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the discovery environment list {path}: {error}")
    found = []
    for number, line in enumerate(lines, 1):
        text, _, comment = line.partition("#")
        text = text.strip()
        if not text:
            continue
        if not _ENTRY.match(text.removeprefix("!")) or not comment.strip():
            raise InputError(f"{path}:{number}: expected '<NAME or regex>  # what it changes', got {line!r}")
        found.append((text.removeprefix("!"), comment.strip()))
    return found


def matcher(path=LIST):
    """A function name -> bool: does this variable change which tests exist?"""
    pattern = re.compile("^(" + "|".join(p for p, _ in entries(path)) + ")$")
    return lambda name: bool(pattern.match(name))


def of(environment, path=LIST):
    """The discovery-relevant subset of an environment, sorted."""
    changes = matcher(path)
    return {k: v for k, v in sorted(environment.items()) if changes(k)}


def without(environment, path=LIST):
    """The environment with every discovery-relevant variable removed."""
    changes = matcher(path)
    return {k: v for k, v in environment.items() if not changes(k)}
