"""A level run that leaves a suite out is not that level: a run of level 2
with `-- -LE collectives` (what a tool self-test would pass to skip the
collectives' rank worlds) is an unhealthy verdict (tdc.levels) and a package
ci/verify refuses (tdc.verify), each naming the collectives' checks as the
missing ones. This is what lets a nested run select fewer suites through the
pipeline's ctest arguments without a new option: the level's committed
mustpass list, not the run's selection, decides what the level is."""
import glob
import os
import re

from tdc import ROOT, levels, verify

from test_levels import entry


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


# The collectives suite's checks, read from its sources (TEST_P(Suite, Name)):
# the suite a partial run leaves out here.
COLLECTIVES = sorted({f"{suite}.{name}"
                      for path in glob.glob(os.path.join(ROOT, "suites", "collectives", "*.cpp"))
                      for suite, name in re.findall(r"^TEST_P\((\w+), (\w+)\)", read(path), re.M)})
LEVEL = 2
MUSTPASS = levels.read_mustpass(LEVEL)


def run_of(checks):
    """A level-2 summary's tests: each check passed once on the CPU."""
    return [entry(f"{check}/cpu", device="cpu", check=check) for check in checks]


FULL = run_of(MUSTPASS)
WITHOUT_COLLECTIVES = run_of(c for c in MUSTPASS if c not in COLLECTIVES)


def test_the_collectives_are_level_2_checks():
    # Else the partial run below would leave nothing of the level out.
    assert COLLECTIVES and set(COLLECTIVES) <= set(MUSTPASS), COLLECTIVES


def test_a_full_level_2_run_counts():
    assert levels.count(FULL, LEVEL).problem() is None


def test_a_run_without_the_collectives_is_not_level_2():
    count = levels.count(WITHOUT_COLLECTIVES, LEVEL)
    outcome, message = count.problem()
    assert outcome == "unhealthy" and f"level {LEVEL} incomplete: {len(COLLECTIVES)} of its" in message
    assert sorted(count.missing) == COLLECTIVES


def missing_checks(tests, stage):
    problems = []
    verify.check_results(str(stage), LEVEL, {"expect": ""}, {"tests": tests}, problems)
    return sorted(re.match(r"missing check: (\S+) \(level 2\) has no result$", p).group(1)
                  for p in problems if p.startswith("missing check: "))


def test_verify_refuses_a_package_without_the_collectives(tmp_path):
    assert missing_checks(FULL, tmp_path) == []
    assert missing_checks(WITHOUT_COLLECTIVES, tmp_path) == COLLECTIVES
