#!/usr/bin/env python3
"""ci/health fails closed (issue "Fail closed, round 3"), against this build:

  --case stale-out   finding 3: with --out=DIR, a run whose ctest never runs
                     (not on PATH) reads nothing of the earlier run in DIR:
                     unknown, never "healthy ... seconds: 0.0"
  --case hang        finding 5: TDC_LOOPBACK_FAULT=hang-copy under the
                     default budget is unhealthy, naming the hung checks as
                     timed out, stopped by the budget, and the JUnit is kept
  --case counting    findings 1 and 2 (the level's counting rule): a
                     malformed TDC_EXPECT or TDC_DEVICES is unknown (exit 2)
                     naming the bad token, a missing backend library is
                     unknown naming it, TDC_DEVICES=cuda on a host without
                     CUDA is never healthy; the control, the default, is
                     healthy
  --case timeout-poison  finding 4: a bad TDC_TEST_TIMEOUT (0, abc), under
                     plain ctest and under ci/health, leaves nothing behind:
                     the next clean ci/health is healthy
  --case missing-part    finding 2: bin/tdc_placement or lib/libtdc_loopback.so
                     missing (moved aside, put back in a finally block; the
                     entry is RUN_SERIAL) is unhealthy, naming what has no
                     result
  --case expected-device-missing  TDC_EXPECT=mps:1 on a host without one is
                     unhealthy, naming DeviceExpectation.IsPresent/mps_at_least_1

  health_fails_closed.py --build-dir BUILD --case CASE
Exit status: 0 as expected, 1 not."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from health_budget import BUDGET, TIMEOUT

from tdc import ROOT

HEALTH = os.path.join(ROOT, "ci", "health")


def health(build, env_changes=None, extra=(), path=None, timeout=TIMEOUT):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TDC_")}
    env.update(env_changes or {})
    if path is not None:
        env["PATH"] = path
    started = time.monotonic()
    run = subprocess.run([HEALTH, f"--build-dir={build}", *extra], env=env, capture_output=True, text=True,
                         timeout=timeout)
    try:
        verdict = json.loads(run.stdout)
    except ValueError:
        verdict = None
    return run, verdict, time.monotonic() - started


def path_without_ctest(tmp):
    """A PATH holding what ci/health needs (bash, python3, coreutils) but no ctest."""
    folder = os.path.join(tmp, "bin")
    os.makedirs(folder)
    for tool in ("bash", "env", "python3", "dirname", "nproc", "rm", "mktemp", "cat", "uname", "id"):
        found = shutil.which(tool)
        if found:
            os.symlink(os.path.realpath(found) if tool != "python3" else found, os.path.join(folder, tool))
    return folder


def stale_out(build, problems):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        first, verdict, _ = health(build, extra=[f"--out={out}", f"--budget={BUDGET}"])
        if verdict is None or verdict["verdict"] != "healthy" or not os.path.exists(os.path.join(out, "junit.xml")):
            problems.append(f"the first run was not healthy with a JUnit: {first.stdout}{first.stderr}")
            return
        second, verdict, _ = health(build, extra=[f"--out={out}", f"--budget={BUDGET}"], path=path_without_ctest(tmp))
        print(f"without ctest on PATH: exit {second.returncode}: {second.stdout.strip()[:300]}")
        if second.returncode != 2 or not verdict or verdict["verdict"] != "unknown" or "ctest" not in verdict["message"]:
            problems.append(f"without ctest: exit {second.returncode}, {second.stdout}{second.stderr}")
        if os.path.exists(os.path.join(out, "junit.xml")):
            problems.append("the earlier run's junit.xml is still in --out")
        bad, _, _ = health(build, extra=[f"--out={out}", "--budget=09"])
        if bad.returncode != 2 or "10..86400" not in bad.stderr or bad.stdout.strip():
            problems.append(f"--budget=09: exit {bad.returncode}, {bad.stdout}{bad.stderr}")


def warm_discovery(build, settings):
    """Lists the tests once in these settings, as the run will see them: a
    node runs ci/health in the same settings every time, so its discovery is
    cached; a first run in new settings spends its budget listing the suites
    again (tens of seconds on a loaded 2-core host), which is not what this
    case is about."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TDC_")}
    env.update(settings, TDC_TEST_TIMEOUT="16")
    subprocess.run(["ctest", "--test-dir", build, "-N", "-L", "level1"], env=env, capture_output=True, timeout=900)


HANG_BUDGET = 50  # ci/health's default


def hang(build, problems):
    warm_discovery(build, {"TDC_LOOPBACK_FAULT": "hang-copy"})
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        run, verdict, seconds = health(build, {"TDC_LOOPBACK_FAULT": "hang-copy"}, [f"--out={out}"])
        print(f"hang-copy, default budget ({HANG_BUDGET} s): exit {run.returncode} after {seconds:.0f} s: {run.stdout.strip()[:400]}")
        if run.returncode != 1 or not verdict or verdict["verdict"] != "unhealthy":
            problems.append(f"exit {run.returncode}, expected 1 (unhealthy): {run.stdout}{run.stderr}")
            return
        hung = [f for f in verdict["failing"] if f["message"].startswith("timed out after")]
        if not hung:
            problems.append(f"no failing check is named as timed out: {verdict['failing']}")
        if not os.path.exists(os.path.join(out, "junit.xml")):
            problems.append("the JUnit of the checks that finished was not kept")
        # The budget stopped the run: ctest says so (--stop-time), or the
        # checks it never reported are named as cut short by it. Every check
        # that copies hangs, so there are more of them than fit in 50 s on
        # any host. How long after the budget the verdict came is a figure
        # of this host (printed above); only a run far past it (a budget not
        # enforced) fails.
        with open(os.path.join(out, "ctest.log"), errors="replace") as f:
            stopped = "The stop time has been passed" in f.read()
        cut = [c for c in verdict["failing"] if f"budget of {HANG_BUDGET} s ran out" in c["message"]]
        if not stopped and not cut:
            problems.append("nothing says the budget stopped the run: ctest.log has no 'The stop time "
                            f"has been passed' and no failing check is named as cut short: {verdict['failing']}")
        if seconds > 3 * HANG_BUDGET:
            problems.append(f"the run took {seconds:.0f} s with a {HANG_BUDGET} s budget: not enforced")


# A bad setting says nothing about the node's devices: unknown (exit 2), its
# message the configuration entry's one line, naming the bad token (which
# also proves those entries carry the level's label: -L level1 selects them).
# One bad value per setting: each run lists every suite afresh (about 20 s
# here); the parsers' other bad values are units (MalformedDeviceSpec,
# malformed_device_spec_test.cpp and malformed_device_expectation_test.cpp).
BAD_SETTINGS = [  # (settings, the token the message must name)
    ({"TDC_EXPECT": "cuda:x"}, "cuda:x"),
    ({"TDC_DEVICES": "cuda:-1"}, "cuda:-1"),
    ({"TDC_BACKEND_LIBS": "/nonexistent.so"}, "/nonexistent.so"),
]
NOT_HEALTHY = [  # (settings, what must not be healthy)
    ({"TDC_DEVICES": "cuda"}, "TDC_DEVICES=cuda on a host without CUDA"),
]


def control(build, problems, what="control (default settings)", settings=None):
    run, verdict, _ = health(build, settings, extra=[f"--budget={BUDGET}"])
    print(f"{what}: exit {run.returncode}: {run.stdout.strip()[:200]}")
    if run.returncode != 0 or not verdict or verdict["verdict"] != "healthy":
        problems.append(f"{what}: not healthy: {run.stdout}{run.stderr}")


def counting(build, problems):
    has_cuda = shutil.which("nvidia-smi") is not None
    control(build, problems)
    for settings, token in BAD_SETTINGS:
        (name, value), = settings.items()
        run, verdict, _ = health(build, settings, [f"--budget={BUDGET}"])
        print(f"{name}={value}: exit {run.returncode}: {run.stdout.strip()[:300]}")
        if (run.returncode != 2 or not verdict or verdict["verdict"] != "unknown"
                or token not in verdict["message"] or "\n" in verdict["message"]):
            problems.append(f"{name}={value}: expected exit 2, unknown, one line naming '{token}'; got exit "
                            f"{run.returncode}, {run.stdout}{run.stderr}")
    for settings, what in NOT_HEALTHY:
        if has_cuda and settings.get("TDC_DEVICES") == "cuda":
            continue
        run, verdict, _ = health(build, settings, [f"--budget={BUDGET}"])
        print(f"{what}: exit {run.returncode}: {run.stdout.strip()[:300]}")
        if run.returncode == 0 or not verdict or verdict["verdict"] == "healthy" or not verdict["message"]:
            problems.append(f"{what}: exit {run.returncode}, {run.stdout}{run.stderr}")


# A setting that keys the cached test lists (cmake/discovery-environment.txt:
# [A-Z]+_VISIBLE_DEVICES) and changes nothing else: with a value of its own,
# the bad run lists the suites afresh, as on a new build. In settings whose
# lists are cached already the bad run lists nothing, and nothing could
# poison the next run.
FRESH_LISTS = "TDCPOISON_VISIBLE_DEVICES"
def timeout_poison(build, problems):
    """A bad TDC_TEST_TIMEOUT fails the run that has it, and only that run:
    no list it made (only configuration errors) is kept for the next. (Each
    round leaves its settings' lists in the build, a few KB: a cache.)"""
    for value in ("0", "abc"):
        fresh = {FRESH_LISTS: f"poison-{os.getpid()}-{value}-{time.time_ns()}"}
        env = {k: v for k, v in os.environ.items() if not k.startswith("TDC_")}
        run = subprocess.run(["ctest", "--test-dir", build, "-L", "level1", "-j2", "--output-on-failure"],
                             capture_output=True, text=True, timeout=900,
                             env=dict(env, TDC_TEST_TIMEOUT=value, **fresh))
        print(f"ctest -L level1, TDC_TEST_TIMEOUT={value}: exit {run.returncode}")
        if run.returncode == 0 or f"TDC_TEST_TIMEOUT='{value}'" not in run.stdout:
            problems.append(f"ctest with TDC_TEST_TIMEOUT={value}: exit {run.returncode}, its output does "
                            f"not name TDC_TEST_TIMEOUT='{value}': {run.stdout[-600:]}")
        run, verdict, _ = health(build, {"TDC_TEST_TIMEOUT": value, **fresh}, [f"--budget={BUDGET}"])
        print(f"ci/health, TDC_TEST_TIMEOUT={value}: exit {run.returncode}: {run.stdout.strip()[:200]}")
        if verdict is None or "Traceback" in run.stderr:
            problems.append(f"ci/health with TDC_TEST_TIMEOUT={value}: no verdict: {run.stdout}{run.stderr}")
        control(build, problems, f"a clean ci/health after TDC_TEST_TIMEOUT={value}", fresh)


# What a part of the build missing must name: (path in the build, a word
# the verdict's message must hold).
MISSING_PARTS = [("bin/tdc_placement", "tdc_placement"), ("lib/libtdc_loopback.so", "loopback")]
ASIDE = ".health-fails-closed-aside"


def put_back(build):
    """Restores what an earlier run moved aside and could not put back
    (killed by ctest's timeout)."""
    for part, _ in MISSING_PARTS:
        path = os.path.join(build, part)
        if os.path.exists(path + ASIDE) and not os.path.exists(path):
            os.rename(path + ASIDE, path)


def missing_part(build, problems):
    put_back(build)
    for part, word in MISSING_PARTS:
        path = os.path.join(build, part)
        if not os.path.exists(path):
            problems.append(f"{path} does not exist: this case needs a complete build")
            continue
        os.rename(path, path + ASIDE)
        try:
            run, verdict, _ = health(build, extra=[f"--budget={BUDGET}"])
        finally:
            os.rename(path + ASIDE, path)
        print(f"without {part}: exit {run.returncode}: {run.stdout.strip()[:400]}")
        if run.returncode != 1 or not verdict or verdict["verdict"] != "unhealthy" or word not in verdict["message"]:
            problems.append(f"without {part}: expected exit 1, unhealthy naming '{word}'; got exit "
                            f"{run.returncode}, {run.stdout}{run.stderr}")
    control(build, problems, "the control, everything put back")


def expected_device_missing(build, problems):
    run, verdict, _ = health(build, {"TDC_EXPECT": "mps:1"}, [f"--budget={BUDGET}"])
    print(f"TDC_EXPECT=mps:1: exit {run.returncode}: {run.stdout.strip()[:300]}")
    if (run.returncode != 1 or not verdict or verdict["verdict"] != "unhealthy"
            or "DeviceExpectation.IsPresent/mps_at_least_1" not in run.stdout):
        problems.append(f"TDC_EXPECT=mps:1: expected exit 1, unhealthy naming "
                        f"DeviceExpectation.IsPresent/mps_at_least_1; got exit {run.returncode}, "
                        f"{run.stdout}{run.stderr}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    cases = {"stale-out": stale_out, "hang": hang, "counting": counting, "timeout-poison": timeout_poison,
             "missing-part": missing_part, "expected-device-missing": expected_device_missing}
    parser.add_argument("--case", choices=sorted(cases), required=True)
    args = parser.parse_args()
    problems = []
    cases[args.case](os.path.abspath(args.build_dir), problems)
    for problem in problems:
        print("FAILED:", problem)
    if not problems:
        print(f"ok: ci/health fails closed ({args.case})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
