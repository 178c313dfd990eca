"""The recommended action: one table from a failing check's failure class to
what the administrator (or the adapter) should do, as NVIDIA's Health
Validation gives each finding a recommended action. docs/fleet.md shows this
table; the verdict (ci/tdc/verdict.py) carries each failing check's class and
action and the node's action, the most severe of them.

Classes are told from what the run records, never from a guess about the
hardware: a check the runner killed (ctest's Timeout, "timed out ... (hung?)")
is a device that stopped answering; a failed DeviceDiscovery.* check, or a
message saying a driver cannot initialise or an expected device is missing,
is a device the node cannot see; any other failed check is a conformance
failure. Wrong values on a healthy driver (`service`) cannot be told apart
from a software fault by one node's run, so a failed check is `drain` here;
the fleet merge (tdc.fleet.signatures: a node fault others pass) is where
`service` is decided.
"""
import re

# Least to most severe; the node's action is the most severe of its checks'.
ACTIONS = ("none", "rerun", "drain", "reset_device", "reboot", "service")

# failure class -> (action, what it means); the one table.
TABLE = {
    "passed": ("none", "every check passed"),
    "outlier": ("rerun", "a timing outlier, or a check that passed on retry"),
    "undetermined": ("rerun", "the run could not tell (unknown): run it again; the drain rule drains meanwhile"),
    "conformance": ("drain", "a failed conformance check"),
    "hang": ("reset_device", "a device that stopped answering: a check timed out or hung"),
    "missing_device": ("reboot", "a driver that cannot initialise, a missing device, an unmet TDC_EXPECT"),
    "corrupted": ("service", "corrupted data on a healthy driver, a device far below its peers on every series"),
}

HANG = re.compile(r"timed out|\(hung\?\)|\bhang\b|\bhung\b", re.IGNORECASE)
MISSING = re.compile(r"cannot initiali[sz]e|failed to initiali[sz]e|no (?:such )?device|device(?:s)? (?:is |are )?missing"
                     r"|expected \S+ device|TDC_EXPECT|cuda_at_least|_at_least_\d", re.IGNORECASE)
DISCOVERY = ("DeviceDiscovery.",)


def classify(check, message):
    """The failure class of one failing check (name, message)."""
    bare = check.split("/", 1)[0]
    if HANG.search(message or ""):
        return "hang"
    if bare.startswith(DISCOVERY) or MISSING.search(message or "") or MISSING.search(check):
        return "missing_device"
    return "conformance"


def action_of(failure_class):
    return TABLE[failure_class][0]


def most_severe(actions):
    """The most severe of ACTIONS in `actions` ('none' for none)."""
    return max(actions, key=ACTIONS.index, default="none")


def node_action(verdict, failing):
    """The node's action for a verdict and its failing checks (each with 'action')."""
    if verdict == "healthy":
        return "none"
    if verdict == "unknown":
        return action_of("undetermined")
    return most_severe([f["action"] for f in failing]) if failing else action_of("conformance")


def markdown():
    """The table as docs/fleet.md shows it."""
    rows = ["| failure class | action | meaning |", "|---|---|---|"]
    rows += [f"| `{name}` | `{action}` | {meaning} |" for name, (action, meaning) in TABLE.items()]
    return "\n".join(rows)
