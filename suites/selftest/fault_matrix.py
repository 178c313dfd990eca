#!/usr/bin/env python3
"""Runs the conformance suites against the loopback backend in each of its
fault modes and checks, for each, that the run fails and that the checks
meant to catch that fault are among the failures. A fault no check catches
is a hole in the suite.

  fault_matrix.py --build-dir BUILD --backend-name loopback [--markdown FILE] [--only MODE]

What must fail (and pass) under each fault is said in checks, devices and
dtypes, matched against the metadata each test records in GoogleTest's XML.
"""
import argparse
import fnmatch
import sys
import time

from expect_failures import run_ctest  # this script's own folder


class Check:
    """The tests of one check, chosen by the metadata the fixtures record in
    GoogleTest's XML (check, device, dtype), never by taking names apart:
    `check` is a glob over check names ("Forward.*"), `index` a device index
    of the backend under test (None: any, or none), `dtype` a dtype name."""

    def __init__(self, check, index=None, dtype=None):
        self.check, self.index, self.dtype = check, index, dtype

    def matches(self, metadata, backend):
        return (fnmatch.fnmatchcase(metadata.get("check", ""), self.check)
                and (self.index is None or metadata.get("device") == f"{backend}:{self.index}")
                and (self.dtype is None or metadata.get("dtype") == self.dtype))

    def describe(self, backend):
        where = f" on {backend}:{self.index}" if self.index is not None else ""
        return self.check + where + (f" in {self.dtype}" if self.dtype else "")


def each(check, indices=(0, 1), dtypes=(None,)):
    """One Check per device index and dtype: each of them must show the verdict."""
    return [Check(check, index, dtype) for index in indices for dtype in dtypes]


def faults(legacy):
    """(mode, extra environment, checks that must fail, checks that must pass, ctest -R).
    legacy: LibTorch 1.13, the only one naming PrivateUse1 "privateuseone"."""
    return [
        ("corrupt-copy", {}, [Check("Forward.*", 0), Check("Placement.ToLeavesSourceWhereItWas", 0),
                              Check("PlacementAcrossDevices.ToAnotherIndexIsExact", 0),
                              Check("Placement.RoundTrip16MiBIsExact", 0)], [], None),
        ("result-on-host", {}, [Check("Forward.*", 0, "float32"),
                                Check("MismatchGuard.AcceptsAlignedModelInputAndOutput", 0)], [], None),
        ("wrong-index", {}, [Check("Placement.*", 1), Check("PlacementAcrossDevices.*", 0)],
         [Check("Placement.*", 0)], None),
        ("zero-devices", {}, [Check("DeviceExpectation.IsPresent")], [], None),
        ("count-throws", {}, [Check("DeviceDiscovery.EveryBackendEnumerates"),
                              Check("Selection.PicksCpuExactlyWhenNoAcceleratorCanInitialise")], [], None),
        ("hang-copy", {"TDC_TEST_TIMEOUT": "10"}, [Check("Placement.ToLeavesSourceWhereItWas", 0)],
         [Check("DeviceDiscovery.EveryBackendEnumerates")], "loopback:(Placement|DeviceDiscovery)"),
        ("no-shallow-copy", {}, [Check("Placement.ModuleToMovesParametersAndBuffers", 0)],
         [Check("Placement.FactoryHonoursDeviceOptionIncludingIndex", 0)], None),
        ("unnamed", {}, [Check("Selection.RegisteredPrivateUse1BackendIsCurrentAccelerator")], [], None),
        ("init-throws", {}, [Check("DeviceDiscovery.EveryBackendEnumerates")],
         [Check("DeviceDiscovery.DevicesAreDistinctAndIndexed")], None),
    ] + mutation_faults() + runtime_contract_faults(legacy) + runtime_faults(legacy)


def mutation_faults():
    """Subtly wrong kernels, each run against only the suite that must catch it."""
    copies = each("Copies.EveryDtypeLayoutSizeAndDirectionIsExact")
    across = each("NoAliasingAcrossIndices.CopiesAndAllocationsNeverShareMemory")
    forward = "Forward.SeedModelMatchesFloat64Reference"
    return [
        ("corrupt-large", {}, copies, [], r"loopback:Copies\."),
        # The failure messages name the dtype ("h2d int32 33x65 ..."); the
        # other dtypes' cases pass.
        ("corrupt-dtype=int32", {}, copies, [], r"loopback:Copies\."),
        ("corrupt-dtype=uint8", {}, copies, [], r"loopback:Copies\."),
        ("corrupt-dtype=bool", {}, copies, [], r"loopback:Copies\."),
        # The float8 forward widens weights copied in float8; float32 never sees them.
        ("corrupt-dtype=float8", {}, each("ForwardFloat8.*"), [Check(forward, 0, "float32")],
         r"loopback:Forward(Float8)?\."),
        ("strided-as-contiguous", {}, copies + each("CopiesAcrossDevices.*"), [],
         r"loopback:Copies(AcrossDevices)?\."),
        # float16 is a known failure of the loopback on LibTorch 1.13, so not required here.
        ("rows-from-row0", {}, each(forward, dtypes=("bfloat16", "float64")),
         [Check(forward, 0, "float32")], r"loopback:Forward\."),
        ("alias-to", {}, across, [Check("NoAliasing.CopiesNeverShareMemoryWithTheirSource", 0)],
         "loopback:NoAliasing"),
        ("shared-indices", {}, across, [], "loopback:NoAliasingAcrossIndices"),
        # Random by design: caught by either device's soak (each misses with p = 2.7e-4).
        ("corrupt-1-in-500", {}, [Check("CopySoak.*")], [], "loopback:CopySoak"),
        ("nan-to-zero", {}, each("ForwardEdgeValues.*", dtypes=("float32", "float64", "bfloat16")), [],
         "loopback:ForwardEdgeValues"),
        ("backward-wrong", {}, each("Backward.*", dtypes=("float32", "float64", "bfloat16")), [],
         r"loopback:Backward\."),
    ]


def runtime_contract_faults(legacy):
    """Faults in device state: serialization, generators, memory, threads."""
    # 1.13 keeps no memory statistics: those checks skip there.
    single_threaded_memory = [] if legacy else [Check("MemoryAccounting.*", 0), Check("MemoryLeak.*", 0)]
    return [
        # Only index 1 is ever not the current device while saving.
        ("save-wrong-device", {},
         [Check("Serialization.*", 1), Check("SerializationAcrossDevices.*", 1),
          Check("SerializationSeedModel.*", 1)], [Check("Serialization.*", 0)], "loopback:Serialization"),
        # The cross-index check then names the seed check as its prerequisite.
        ("rng-ignores-seed", {}, each("Generators.*") + each("GeneratorState.*"), [], "loopback:Generator"),
        ("rng-shared", {}, each("GeneratorsAcrossDevices.*"),
         [Check("Generators.*", 0), Check("GeneratorState.*", 0)], "loopback:Generator"),
        ("oom-abort", {}, each("OutOfMemory.*"), [Check("MemoryAccounting.*", 0)],
         r"loopback:(OutOfMemory|MemoryAccounting)\."),
        # The leak check then names the accounting check as its prerequisite.
        ("stats-lie", {}, each("MemoryAccounting.*")
         + each("PinnedMemory.HostAllocatorStatisticsFollowPinnedAllocations"),
         [Check("OutOfMemory.*", 0)], r"loopback:(Memory|OutOfMemory|PinnedMemory)"),
        ("leak", {}, each("MemoryLeak.*"), [Check("MemoryAccounting.*", 0)], r"loopback:Memory"),
        # LibTorch asks the backend only after its pinned allocator was used,
        # so the check asks after pinning; the copy check does not ask at all.
        ("pin-fake", {}, each("PinnedMemory.PinMemoryGivesPinnedMemoryAndPageableMemoryIsNot"),
         [Check("PinnedMemory.NonBlockingCopiesThroughPinnedMemoryAreExactAfterSynchronising", 0)],
         "loopback:PinnedMemory"),
        # One thread at a time never races: the single-threaded checks pass.
        ("thread-race", {}, each("ConcurrentAllocation.*"), [Check("ForkedChild.*", 0)] + single_threaded_memory,
         r"loopback:(Concurrent|ForkedChild|Memory)"),
        ("fork-hang", {"TDC_BACKEND_TIMEOUT": "5"}, each("ForkedChild.*"),
         [Check("ConcurrentForward.*", 0)], r"loopback:(ForkedChild|ConcurrentForward)"),
        # A forked child shares the parent's claim, as it shares its file locks.
        ("exclusive-process", {}, each("SpawnedChild.*"),
         [Check("ForkedChild.*", 0), Check("ConcurrentForward.*", 0)],
         r"loopback:(SpawnedChild|ForkedChild|ConcurrentForward)"),
        # The lied dtype (complex32) is in no other check's dtype list.
        ("dtype-lie", {}, each("DeclaredDtypes.*"),
         [Check("Copies.EveryDtypeLayoutSizeAndDirectionIsExact", 0)], r"loopback:(DeclaredDtypes|Copies)\."),
    ]


def runtime_faults(legacy):
    """The execution contract (guard, streams, events), each against its own suite."""
    guard = r"loopback:Guard"
    slow_copies = {"TDC_LOOPBACK_DELAY_US": "20000"}
    asynchronous = r"loopback:(Stream|Event|AsyncCopies|DeviceSynchronize|PinnedMemory)"
    # 1.13 has no getNewStream, no synchronizeDevice, and pins memory for
    # CUDA only: those checks skip there.
    new_streams = [] if legacy else each("StreamNew.DiffersFromTheDefaultAndFromEachOther")
    device_sync = [] if legacy else each("DeviceSynchronize.DrainsEveryStream")
    pinned_copies = [] if legacy else each(
        "PinnedMemory.NonBlockingCopiesThroughPinnedMemoryAreExactAfterSynchronising")
    return [
        ("guard-global", {}, each("GuardPerThread.AnotherThreadsDeviceDoesNotMoveThisOne")
         + each("StreamPerThread.AnotherThreadsStreamDoesNotMoveThisOne")
         + each("ConcurrentForward.EightThreadsRoundRobinOverIndicesRunTheSeedForward"),
         each("GuardNesting.DeviceGuardAndOptionalDeviceGuardRestoreInOrder"),
         r"loopback:(Guard|Stream|ConcurrentForward)"),
        ("guard-no-restore", {}, each("GuardNesting.DeviceGuardAndOptionalDeviceGuardRestoreInOrder")
         + each("GuardUnwinding.RestoresWhenAnExceptionLeavesTheScope"), [], guard),
        ("guard-unchecked", {}, each("GuardInvalidIndex.RaisesAnErrorNamingTheIndex"),
         each("GuardNesting.DeviceGuardAndOptionalDeviceGuardRestoreInOrder"), guard),
        ("count-per-thread", {}, each("GuardDeviceCount.SameAcrossCallsAndThreads"),
         each("GuardInvalidIndex.RaisesAnErrorNamingTheIndex"), guard),
        ("stream-alias", {}, each("StreamDefault.ExistsAndPoolStreamsDifferFromIt")
         + new_streams + each("StreamGuardScope.SetsAndRestoresTheCurrentStream"), [], r"loopback:Stream"),
        ("timing-garbage", {}, each("EventTimingDisabled.ElapsedTimeRaisesInsteadOfAnsweringANumber")
         + each("EventTimingEnabled.IntervalsAreNonNegativeAndAddUp"),
         each("EventRecord.QueryAndSynchronizeAfterRecord"), r"loopback:Event"),
        ("never-done", {}, each("StreamSynchronize.QueryIsTrueAndWorkVisibleAfterSynchronize")
         + each("EventRecord.QueryAndSynchronizeAfterRecord"),
         each("StreamDefault.ExistsAndPoolStreamsDifferFromIt"), r"loopback:(Stream|Event)"),
        # The asynchronous faults, with every copy delayed 20 ms so that a read
        # which does not wait always lands before the copy (they are caught
        # without the delay too, but not on every run).
        ("sync-noop", slow_copies, each("AsyncCopies.NonBlockingRoundTripIsExactAfterStreamSynchronize")
         + each("EventBlock.ConsumerStreamWaitsForTheProducersEvent") + device_sync + pinned_copies,
         each("AsyncCopies.NonBlockingRoundTripIsExactAfterEventSynchronize"), asynchronous),
        ("event-noop", slow_copies, each("AsyncCopies.NonBlockingRoundTripIsExactAfterEventSynchronize")
         + each("EventBlock.ConsumerStreamWaitsForTheProducersEvent")
         + each("EventBlockAcrossDevices.StreamOfAnotherIndexWaitsForTheEvent"),
         each("AsyncCopies.NonBlockingRoundTripIsExactAfterStreamSynchronize") + device_sync, asynchronous),
        ("sync-default-only", slow_copies, device_sync,
         each("AsyncCopies.NonBlockingRoundTripIsExactAfterStreamSynchronize"), asynchronous),
    ]


# The 256 MiB copies and the level-3 endurance runs would multiply every
# row's time; the quick checks catch every fault (docs/conformance.md).
EXCLUDED_LABELS = "^(long|level3)$"


# Under these faults one check owns the root cause; every other failure must
# say "prerequisite failed: ... (checked by <owner>...)" instead of repeating it.
PREREQUISITE_OWNERS = {
    "zero-devices": "DeviceExpectation.IsPresent",
    "count-throws": "DeviceDiscovery.EveryBackendEnumerates",
    "no-shallow-copy": "Placement.ModuleToMovesParametersAndBuffers",
    "init-throws": "DeviceDiscovery.EveryBackendEnumerates",
}

# Faults a LibTorch cannot show: 1.13 has no way to name PrivateUse1 at all.
NOT_APPLICABLE = {("unnamed", "privateuseone"): "1.13 cannot name a PrivateUse1 backend",
                  ("timing-garbage", "privateuseone"): "1.13 cannot time events (no elapsedTime)",
                  # Their checks skip on 1.13, naming the version (docs/conformance.md).
                  ("save-wrong-device", "privateuseone"): "1.13's serializer cannot write PrivateUse1 tensors",
                  ("rng-ignores-seed", "privateuseone"): "1.13 has no default generator for PrivateUse1",
                  ("rng-shared", "privateuseone"): "1.13 has no default generator for PrivateUse1",
                  ("oom-abort", "privateuseone"): "1.13 has no device-generic memory statistics",
                  ("stats-lie", "privateuseone"): "1.13 has no device-generic memory statistics",
                  ("leak", "privateuseone"): "1.13 has no device-generic memory statistics",
                  ("pin-fake", "privateuseone"): "1.13 pins memory for CUDA only",
                  ("sync-default-only", "privateuseone"): "1.13 cannot synchronize a whole device",
                  ("corrupt-dtype=float8", "privateuseone"): "1.13 has no float8 dtypes"}


def unnamed_failures(mode, failed, must_fail, metadata, outputs, backend):
    """Failures that are neither the fault's own check nor name its owner."""
    owner = PREREQUISITE_OWNERS.get(mode)
    if owner is None:
        return []
    return [name for name in failed
            if not any(check.matches(metadata.get(name, {}), backend) for check in must_fail)
            and metadata.get(name, {}).get("check") != owner
            and not ("prerequisite failed: " in outputs.get(name, "")
                     and f"(checked by {owner}" in outputs.get(name, ""))]


def test_metadata(records, names):
    """Each ctest entry's metadata (check, device, device_type, dtype) from
    the run's own GoogleTest XML (tdc.gtest records). An entry that left none
    (it crashed or hung) has none, so it can satisfy no Check: a hole, never
    a catch."""
    return {name: records[name].properties for name in names if name in records}


def verdict_problems(checks, wanted, verdicts, metadata, backend):
    """'not <wanted>: <check>' for each Check no test with that verdict satisfies."""
    problems = []
    for check in checks:
        chosen = [n for n in verdicts if check.matches(metadata.get(n, {}), backend)]
        if not any(verdicts[n] == wanted for n in chosen):
            unknown = sum(1 for n in verdicts if n not in metadata)
            why = f" ({unknown} entries left no GoogleTest XML)" if not chosen and unknown else ""
            problems.append(f"not {wanted}: {check.describe(backend)}{why}")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--backend-name", default="loopback")
    parser.add_argument("--markdown")
    parser.add_argument("--only", help="run one mode")
    args = parser.parse_args()

    rows, holes = [], 0
    backend = args.backend_name
    for mode, extra, must_fail, must_pass, regex in faults(legacy=backend == "privateuseone"):
        if args.only and mode != args.only:
            continue
        if (mode, backend) in NOT_APPLICABLE:
            print(f"{mode:<15} not applicable: {NOT_APPLICABLE[(mode, backend)]}")
            rows.append((mode, "not applicable: " + NOT_APPLICABLE[(mode, backend)], []))
            continue
        env = dict(os.environ, TDC_LOOPBACK_FAULT=mode, **extra)
        started = time.time()
        outputs, records = {}, {}
        code, verdicts, output = run_ctest(args.build_dir, "loopback", env, regex, outputs,
                                          exclude_label=EXCLUDED_LABELS, records=records)
        seconds = time.time() - started
        if verdicts is None:
            print(output[-4000:])
            rows.append((mode, "no report", []))
            holes += 1
            continue
        metadata = test_metadata(records, verdicts)
        failed = sorted(n for n, v in verdicts.items() if v == "failed")
        problems = ["the run passed"] if code == 0 else []
        problems += verdict_problems(must_fail, "failed", verdicts, metadata, backend)
        problems += verdict_problems(must_pass, "passed", verdicts, metadata, backend)
        problems += [f"does not name the prerequisite: {n}"
                     for n in unnamed_failures(mode, failed, must_fail, metadata, outputs, backend)]
        verdict = "caught" if not problems else "HOLE: " + "; ".join(problems)
        holes += bool(problems)
        print(f"{mode:<22} {verdict}  ({len(failed)} of {len(verdicts)} failed, {seconds:.0f} s)")
        for name in failed:
            print(f"    {name}")
        rows.append((mode, verdict, failed))

    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| fault (TDC_LOOPBACK_FAULT) | verdict | tests that failed |\n|---|---|---|\n")
            for mode, verdict, failed in rows:
                f.write(f"| `{mode}` | {verdict} | {'<br>'.join(failed)} |\n")
    print(f"{len(rows) - holes} passed, {holes} failed")
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main())
