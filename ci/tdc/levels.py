"""Qualification levels: which ctest labels select a level, its committed
mustpass list, and the rule a level verdict counts by.

The rule (count): every entry the level's label selected counts, a
configuration error (TdcConfiguration.<suite>) or a not-built entry
(*_NOT_BUILT) included: they are failures (tdc.verdict makes the node's own
configuration errors, a bad setting, unknown rather than unhealthy). The loopback reference twins
(`loopback:` prefix, label `loopback`) prove the build, not the node: their
failures count, their passes never count toward the node's own devices. A
level is healthy only when
  - nothing failed (twins included),
  - at least one check passed on one of the node's own devices, and
  - every check of the level's mustpass list has a result of the node's
    own (fewer checks than the list: a binary or a label is missing). A
    check that exists only when a setting asks for it (TDC_EXPECT's
    DeviceExpectation.IsPresent) is required only when it is set.
"""
import os
from dataclasses import dataclass, field

from tdc import ROOT, names, results
from tdc.errors import InputError

# ctest -L regular expressions, per level.
LABELS = {1: "level1", 2: "conformance", 3: "conformance|level3"}
# The labels whose entries make up a level's mustpass list (tdc mustpass).
MUSTPASS_LABELS = {1: {"level1"}, 2: {"conformance"}, 3: {"conformance", "level3"}}
MUSTPASS_DIR = os.path.join(ROOT, "suites", "mustpass")
# Level 3's shortest sustained numerics run per device (TDC_SUSTAINED_SECONDS;
# the suites accept 1 to 86400, fixtures/include/tdc/run_config.h): ci/verify
# refuses a level-3 package whose run was shorter.
QUALIFICATION_SUSTAINED_SECONDS = 10
SUSTAINED_CHECK = "SustainedNumerics.SeedAndLinear1024MatchReference"
# Checks instantiated only when a setting asks for them: check -> setting.
ONLY_WHEN_SET = {names.EXPECTATION_CHECK: "TDC_EXPECT"}


def mustpass_path(level, directory=None):
    return os.path.join(directory or MUSTPASS_DIR, f"level{level}.txt")


def read_mustpass(level, directory=None):
    """The committed list of a level; None when the file is missing."""
    path = mustpass_path(level, directory)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path} is not UTF-8 (byte at offset {error.start})")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def without_result(tests, mustpass):
    """The checks of a level's list (`mustpass`) that no result of a run
    names, the twins' included: those ci/verify refuses a package of the
    level for ("missing check"), and a run's last line says so before any
    package is made. A run whose ctest selection left a suite out (`--
    -LE collectives`) lacks that suite's checks: never the whole level."""
    ran = {test.get("check") or names.check_name(test["name"]) for test in tests}
    return [check for check in mustpass if check not in ran]


@dataclass
class Count:
    level: int
    failed: list = field(default_factory=list)          # tests, twins included
    own_passed: list = field(default_factory=list)      # on the node's own devices
    own_skipped: list = field(default_factory=list)     # skipped or waived, own
    twin_passed: int = 0
    missing: list = field(default_factory=list)         # mustpass checks without an own result
    expected: int = 0                                   # mustpass checks required of this run

    def problem(self):
        """(verdict, message) when the level is not healthy, else None."""
        if self.failed:
            return "unhealthy", None  # the caller names the failing checks
        if not self.own_passed:
            if self.own_skipped:
                first = self.own_skipped[0]
                return "unhealthy", (f"no check passed on this node's own devices: all "
                                     f"{len(self.own_skipped)} were skipped (e.g. {first['name']}: "
                                     f"{first.get('message') or 'no reason given'})")
            return "unhealthy", ("no check ran on this node's own devices"
                                 + (f" ({self.twin_passed} loopback reference checks passed, "
                                    "which prove the build, not the node)" if self.twin_passed else ""))
        if self.missing:
            return "unhealthy", (f"level {self.level} incomplete: {len(self.missing)} of its "
                                 f"{self.expected} checks have no result on this node "
                                 f"(e.g. {self.missing[0]}): a suite not built, or a label missing")
        return None


def count(tests, level, mustpass=None, settings=None):
    """Counts a summary's tests by the rule above; `mustpass` defaults to
    the committed list of the level, `settings` are the run's environment
    (context.json's), for the checks in ONLY_WHEN_SET."""
    if mustpass is None:
        mustpass = read_mustpass(level)
        if mustpass is None:
            raise InputError(f"no mustpass list for level {level} at {mustpass_path(level)}")
    result = Count(level=level)
    own_checks = set()
    for test in tests:
        twin = test.get("twin", names.is_twin(test["name"]))
        status = test["status"]
        if status == results.FAILED:
            result.failed.append(test)
        if twin:
            result.twin_passed += status == results.PASSED
            continue
        own_checks.add(test.get("check") or names.check_name(test["name"]))
        if status == results.PASSED and test.get("scope", "device") == "device":
            result.own_passed.append(test)
        elif results.junit_status(status) == results.SKIPPED and test.get("scope", "device") == "device":
            result.own_skipped.append(test)
    settings = settings or {}
    required = [c for c in mustpass if c not in ONLY_WHEN_SET or settings.get(ONLY_WHEN_SET[c])]
    result.expected = len(required)
    result.missing = [check for check in required if check not in own_checks]
    return result
