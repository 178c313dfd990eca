"""Each suite claims its own share of a device (tdc_add_conformance_suite's
PERCENT, issue 30 item 5): two small checks share a device while
OutOfMemory runs alone on it.

Two parts:
- The claims a build registers. `ctest -N --show-only=json-v1` of the build
  TDC_CLAIMS_BUILD names, one entry per check (TDC_ISOLATE=check), gives the
  RESOURCE_GROUPS of the loopback's entries on its first device: OutOfMemory
  claims all of it, checks of other suites a share that lets two of them in.
- What ctest's scheduler does with those claims. A ctest tree written here
  (its CTestTestfile.cmake) holds planted entries with exactly those claims
  and a resource spec of that one device with 100 slots, as the build's own
  spec gives every device. Each planted entry stamps its start, waits for a
  release file and stamps its end. A witness entry, with no claim and the
  lowest COST, is started last in ctest's first round: it waits until every
  other entry ctest has started (its sibling processes) has stamped its
  start, then releases them. So the entries that ctest ran together are
  exactly those whose intervals overlap, whatever the host's speed; an
  entry ctest held back starts after the release and overlaps none of them.
  The verdict: the two small checks overlap, OutOfMemory overlaps neither.

DEVICES, the most devices one check of a suite may touch, agrees with the
fixtures' listings of the build: no TdcConfiguration.*.devices entry; and
placement's registration with DEVICES 1 declares that entry, which fails
naming a pair check.

A claim that is not one (PERCENT 0 or 150, DEVICES two) fails at configure
time, naming the suite.

Its teeth: the same run with OutOfMemory's claim made the small share (as
it was when one TDC_GPU_PERCENT applied to every entry) must fail, naming
OutOfMemory beside a small check; and with shares too large to fit twice
the small checks must be found one after the other.

ctest runs this file as selftest.device_claims_keep_out_of_memory_alone
with TDC_CLAIMS_BUILD set (suites/selftest/structure_checks.cmake); without
it the build part is skipped, saying so, and the scheduler runs with the
claims TDC's suites declare (25 and 100).

  TDC_CLAIMS_BUILD=BUILD python3 -m pytest ci/tests/test_device_claims.py"""
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT

BUILD = os.environ.get("TDC_CLAIMS_BUILD", "")
WAIT_S = 300  # a bound on waiting for a planted partner: a hang guard, never a verdict
OOM = "OutOfMemory"


def claims_of(build):
    """(OutOfMemory's claim, [two small checks' claims]) on the loopback's
    first device, as {"name", "kind", "slots"}, from the build's entries."""
    claims = []
    for test in build_entries(build, TDC_ISOLATE="check", TDC_CHECKS=f"{OOM}.*:Copies.*:Forward.*:Placement.*"):
        if not test["name"].startswith("loopback:"):
            continue
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        groups = props.get("RESOURCE_GROUPS") or []
        needs = [need for group in groups for need in group["requirements"]]
        if len(needs) == 1 and needs[0][".type"].endswith("_0"):
            claims.append({"name": test["name"], "kind": needs[0][".type"], "slots": needs[0]["slots"]})
    oom = [c for c in claims if c["name"].startswith(f"loopback:{OOM}.")]
    # One check of each of two other suites: small checks of different suites.
    small, suites = [], set()
    for claim in claims:
        suite = claim["name"].split(":", 1)[1].split(".", 1)[0]
        if suite != OOM and suite not in suites and claim["kind"] == (oom[0]["kind"] if oom else None):
            small.append(claim)
            suites.add(suite)
    assert oom and len(small) >= 2, f"the build registered no loopback OutOfMemory entry and two others: {claims}"
    return oom[0], small[:2]


def run_schedule(work, device, oom_slots, small_slots):
    """Runs the planted entries under ctest -j4 over a spec of `device` with
    100 slots; returns {entry: (start_ns, end_ns)} and ctest's output."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    me = os.path.abspath(__file__)
    entries = [("small_a", small_slots[0], 4), ("small_b", small_slots[1], 3), (OOM, oom_slots, 2)]
    lines = []
    for name, slots, cost in entries:
        lines.append(f'add_test({name} "{sys.executable}" "{me}" planted "{work}" {name})')
        lines.append(f'set_tests_properties({name} PROPERTIES RESOURCE_GROUPS "{device}:{slots}" COST {cost} '
                     f'TIMEOUT {WAIT_S + 60})')
    lines.append(f'add_test(witness "{sys.executable}" "{me}" witness "{work}")')
    lines.append(f"set_tests_properties(witness PROPERTIES COST 1 TIMEOUT {WAIT_S + 60})")
    with open(os.path.join(work, "CTestTestfile.cmake"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    spec = os.path.join(work, "resources.json")
    with open(spec, "w") as handle:
        json.dump({"version": {"major": 1, "minor": 0}, "local": [{device: [{"id": "0", "slots": 100}]}]}, handle)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CTEST_")}
    ran = subprocess.run(["ctest", "--test-dir", work, "-j4", "--resource-spec-file", spec, "--output-on-failure"],
                         env=env, capture_output=True, text=True, timeout=2 * WAIT_S + 120)
    stamps = {}
    for name, _, _ in entries:
        try:
            with open(os.path.join(work, f"{name}.start")) as start, open(os.path.join(work, f"{name}.end")) as end:
                stamps[name] = (int(start.read()), int(end.read()))
        except OSError:
            pass
    return stamps, ran


def schedule_problems(stamps):
    """What is wrong with the intervals: the small checks must overlap and
    OutOfMemory must overlap neither."""
    def overlap(a, b):
        return stamps[a][0] < stamps[b][1] and stamps[b][0] < stamps[a][1]
    missing = [name for name in ("small_a", "small_b", OOM) if name not in stamps]
    if missing:
        return [f"{', '.join(missing)} did not run to its end"]
    problems = []
    if not overlap("small_a", "small_b"):
        problems.append("the two small checks did not share the device: ctest ran them one after the other")
    problems += [f"{OOM} ran beside {name}" for name in ("small_a", "small_b") if overlap(OOM, name)]
    return problems


def build_claims_or_defaults():
    if not BUILD:
        return "loopback_0", 100, (25, 25)
    oom, small = claims_of(BUILD)
    return oom["kind"], oom["slots"], tuple(claim["slots"] for claim in small)


@pytest.mark.skipif(not BUILD, reason="TDC_CLAIMS_BUILD names no build whose entries to read")
def test_the_build_registers_a_whole_device_for_out_of_memory_and_shares_for_small_checks():
    oom, small = claims_of(BUILD)
    assert oom["slots"] == 100, f"{oom['name']} claims {oom['slots']} of 100 slots of {oom['kind']}, not all"
    assert sum(claim["slots"] for claim in small) <= 100, f"two small checks cannot share a device: {small}"


def build_entries(build, **settings):
    """The build's ctest entries (ctest -N --show-only=json-v1), as ctest
    declares them with these settings."""
    listed = subprocess.run(["ctest", "--test-dir", build, "-N", "--show-only=json-v1"],
                            env=dict(os.environ, **settings), capture_output=True, text=True, timeout=900)
    assert listed.returncode == 0, f"ctest -N exited {listed.returncode}: {listed.stderr[-2000:]}"
    return json.loads(listed.stdout)["tests"]


@pytest.mark.skipif(not BUILD, reason="TDC_CLAIMS_BUILD names no build whose entries to read")
def test_no_check_of_the_build_touches_more_devices_than_its_suite_declares():
    """DEVICES agrees with what the fixtures list, on the loopback's two devices."""
    refused = [t["name"] for t in build_entries(BUILD) if t["name"].endswith(".devices")]
    assert refused == []


@pytest.mark.skipif(not BUILD, reason="TDC_CLAIMS_BUILD names no build whose entries to read")
def test_a_suite_declaring_fewer_devices_than_its_checks_touch_fails_the_run(tmp_path):
    """The negative: placement's registration (its pair checks touch two
    devices) with DEVICES 1, run as ctest runs it."""
    script = os.path.join(BUILD, "suites", "placement", "tdc_placement_with_loopback_tests.cmake")
    with open(script) as handle:
        text = handle.read()
    assert 'set(_tdc_devices "2")' in text, f"{script} declares no DEVICES 2"
    (tmp_path / "CTestTestfile.cmake").write_text(text.replace('set(_tdc_devices "2")', 'set(_tdc_devices "1")'))
    entry = "loopback:TdcConfiguration.tdc_placement_with_loopback.devices"
    ran = subprocess.run(["ctest", "--test-dir", str(tmp_path), "-R", f"^{entry}$", "--output-on-failure"],
                         capture_output=True, text=True, timeout=900)
    assert ran.returncode != 0 and f"{entry} ." in ran.stdout, ran.stdout[-3000:]
    assert "touch more devices than its suite's DEVICES 1, e.g. Placement" in ran.stdout, ran.stdout[-3000:]


def test_small_checks_share_the_device_and_out_of_memory_runs_alone(tmp_path):
    device, oom_slots, small_slots = build_claims_or_defaults()
    stamps, ran = run_schedule(str(tmp_path / "tree"), device, oom_slots, small_slots)
    assert ran.returncode == 0, f"ctest exited {ran.returncode}:\n{ran.stdout[-3000:]}{ran.stderr[-1000:]}"
    assert schedule_problems(stamps) == []


def test_out_of_memory_with_a_small_share_runs_beside_the_small_checks(tmp_path):
    """The negative: OutOfMemory claiming a small check's share, as every
    entry did under one global percent. The shares are 25 each, so that the
    three fit on the device together whatever share this build's
    TDC_GPU_PERCENT gives (a build configured with 50 fills the device with
    the two small checks, and OutOfMemory could only run after them)."""
    device, _, _ = build_claims_or_defaults()
    stamps, _ = run_schedule(str(tmp_path / "tree"), device, 25, (25, 25))
    problems = schedule_problems(stamps)
    assert f"{OOM} ran beside small_a" in problems or f"{OOM} ran beside small_b" in problems, problems


def test_small_checks_whose_shares_do_not_fit_together_run_one_after_the_other(tmp_path):
    """The other side's teeth: shares too large to fit twice are not shared."""
    device, oom_slots, _ = build_claims_or_defaults()
    stamps, _ = run_schedule(str(tmp_path / "tree"), device, oom_slots, (60, 60))
    assert schedule_problems(stamps) == [
        "the two small checks did not share the device: ctest ran them one after the other"]


@pytest.mark.parametrize("claim, said", [
    ("PERCENT 0", "PERCENT 0: expected an integer 1..100"),
    ("PERCENT 150", "PERCENT 150: expected an integer 1..100"),
    ("DEVICES two", "DEVICES two: expected a count of devices (1, 2, ...) or ALL"),
])
def test_a_bad_claim_fails_at_configure_time_naming_the_suite(tmp_path, claim, said):
    """PERCENT and DEVICES are checked where the suite says them, before
    anything is built (cmake -P runs the function's file as a configure would)."""
    script = tmp_path / "claim.cmake"
    script.write_text(f'include("{ROOT}/cmake/tdc_add_conformance_suite.cmake")\n'
                      f"tdc_add_conformance_suite(NAME acme SOURCES acme.cpp {claim})\n")
    ran = subprocess.run(["cmake", "-P", str(script)], capture_output=True, text=True, timeout=120)
    said_by_cmake = " ".join(ran.stderr.split())  # CMake wraps a message at 80 columns
    assert ran.returncode != 0 and f"tdc_add_conformance_suite(acme): {said}" in said_by_cmake, ran.stderr


def test_a_whole_device_over_every_index_is_a_claim(tmp_path):
    """The positive: PERCENT 100 DEVICES ALL passes the claim's check (the
    script stops at the next step, which needs a configured TDC)."""
    script = tmp_path / "claim.cmake"
    script.write_text(f'include("{ROOT}/cmake/tdc_add_conformance_suite.cmake")\n'
                      "tdc_add_conformance_suite(NAME acme SOURCES acme.cpp PERCENT 100 DEVICES ALL)\n")
    ran = subprocess.run(["cmake", "-P", str(script)], capture_output=True, text=True, timeout=120)
    said_by_cmake = " ".join(ran.stderr.split())
    assert "levels.txt does not exist" in said_by_cmake and "expected" not in said_by_cmake, ran.stderr


# The planted entries (run by ctest, not collected by pytest).

def _wait_for(path, why):
    deadline = time.monotonic() + WAIT_S
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            print(f"{why}: {path} did not appear in {WAIT_S} s")
            sys.exit(1)
        time.sleep(0.02)


def _planted(work, name):
    with open(os.path.join(work, f"{name}.start"), "w") as handle:
        handle.write(str(time.monotonic_ns()))
    _wait_for(os.path.join(work, "release"), f"{name} waited for the witness")
    with open(os.path.join(work, f"{name}.end"), "w") as handle:
        handle.write(str(time.monotonic_ns()))


def _siblings():
    """The other processes ctest (this process's parent) has started."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/stat") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getppid():
            found.append(int(pid))
    return found


def _planted_name(pid, work):
    """The planted entry process `pid` runs, once it has exec'd; None when it
    is gone."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().decode(errors="replace").split("\0")
        except OSError:
            return None
        if "planted" in argv and work in argv:
            return argv[argv.index("planted") + 2]
        time.sleep(0.02)
    print(f"process {pid}, started by ctest, never became a planted entry in {WAIT_S} s")
    sys.exit(1)


def _witness(work):
    seen = []
    for pid in _siblings():
        name = _planted_name(pid, work)
        if name:
            _wait_for(os.path.join(work, f"{name}.start"), f"the witness waited for {name}")
            seen.append(name)
    with open(os.path.join(work, "release"), "w") as handle:
        handle.write(" ".join(sorted(seen)) + "\n")
    print(f"started together by ctest: {', '.join(sorted(seen)) or 'none'}")


if __name__ == "__main__":
    if sys.argv[1] == "planted":
        _planted(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "witness":
        _witness(sys.argv[2])
