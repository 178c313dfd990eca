#!/usr/bin/env python3
"""Runs the conformance suites against the loopback backend in each of its
fault modes and checks, for each, that the run fails and that the checks
meant to catch that fault are among the failures. A fault no check catches
is a hole in the suite.

  fault_matrix.py --build-dir BUILD --backend-name loopback [--markdown FILE]
"""
import argparse
import fnmatch
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expect_failures import run_ctest  # noqa: E402


def faults(name, library):
    """(mode, extra environment, tests that must fail, tests that must pass, ctest -R)."""
    d0, d1 = f"/{name}_0", f"/{name}_1"
    return [
        ("corrupt-copy", {}, [f"loopback:Forward.*{d0}_*", f"loopback:Placement.ToLeavesSourceWhereItWas{d0}",
                              f"loopback:PlacementAcrossDevices.ToAnotherIndexIsExact{d0}",
                              f"loopback:Placement.RoundTrip16MiBIsExact{d0}"], [], None),
        ("result-on-host", {}, [f"loopback:Forward.*{d0}_float32",
                                f"loopback:MismatchGuard.AcceptsAlignedModelInputAndOutput{d0}"], [], None),
        ("wrong-index", {}, [f"loopback:Placement.*{d1}", f"loopback:PlacementAcrossDevices.*{d0}"],
         [f"loopback:Placement.*{d0}"], None),
        ("zero-devices", {},
         [f"loopback:DeviceExpectation.IsPresent/{name}_at_least_2"], [], None),
        ("count-throws", {}, ["loopback:DeviceDiscovery.EveryBackendEnumerates",
                              "loopback:Selection.PicksCpuExactlyWhenNoAcceleratorCanInitialise"], [], None),
        ("hang-copy", {"TDC_TEST_TIMEOUT": "10"}, [f"loopback:Placement.ToLeavesSourceWhereItWas{d0}"],
         ["loopback:DeviceDiscovery.EveryBackendEnumerates"], "loopback:(Placement|DeviceDiscovery)"),
        ("no-shallow-copy", {}, [f"loopback:Placement.ModuleToMovesParametersAndBuffers{d0}"],
         [f"loopback:Placement.FactoryHonoursDeviceOptionIncludingIndex{d0}"], None),
        ("unnamed", {}, ["loopback:Selection.RegisteredPrivateUse1BackendIsCurrentAccelerator"], [], None),
        ("init-throws", {}, ["loopback:DeviceDiscovery.EveryBackendEnumerates"],
         ["loopback:DeviceDiscovery.DevicesAreDistinctAndIndexed"], None),
    ] + mutation_faults(name, d0, d1) + runtime_faults(name, d0, d1)


def mutation_faults(name, d0, d1):
    """Subtly wrong kernels, each run against only the suite that must catch it."""
    copies = [f"loopback:Copies.EveryDtypeLayoutSizeAndDirectionIsExact{d}" for d in (d0, d1)]
    across = [f"loopback:NoAliasingAcrossIndices.CopiesAndAllocationsNeverShareMemory{d}"
              for d in (d0, d1)]
    forward = "loopback:Forward.SeedModelMatchesFloat64Reference"
    return [
        ("corrupt-large", {}, copies, [], r"loopback:Copies\."),
        # The failure messages name the dtype ("h2d int32 33x65 ..."); the
        # other dtypes' cases pass.
        ("corrupt-dtype=int32", {}, copies, [], r"loopback:Copies\."),
        ("corrupt-dtype=uint8", {}, copies, [], r"loopback:Copies\."),
        ("corrupt-dtype=bool", {}, copies, [], r"loopback:Copies\."),
        # The float8 forward widens weights copied in float8; float32 never sees them.
        ("corrupt-dtype=float8", {}, [f"loopback:ForwardFloat8.*{d}" for d in (d0, d1)],
         [f"{forward}{d0}_float32"], r"loopback:Forward(Float8)?\."),
        ("strided-as-contiguous", {},
         copies + [f"loopback:CopiesAcrossDevices.*{d}" for d in (d0, d1)], [],
         r"loopback:Copies(AcrossDevices)?\."),
        # float16 is a known failure of the loopback on LibTorch 1.13, so not required here.
        ("rows-from-row0", {}, [f"{forward}{d}_{t}" for d in (d0, d1) for t in ("bfloat16", "float64")],
         [f"{forward}{d0}_float32"], r"loopback:Forward\."),
        ("alias-to", {}, across, [f"loopback:NoAliasing.CopiesNeverShareMemoryWithTheirSource{d0}"],
         "loopback:NoAliasing"),
        ("shared-indices", {}, across, [], "loopback:NoAliasingAcrossIndices"),
        # Random by design: caught by either device's soak (each misses with p = 2.7e-4).
        ("corrupt-1-in-500", {}, ["loopback:CopySoak.*"], [], "loopback:CopySoak"),
        ("nan-to-zero", {}, [f"loopback:ForwardEdgeValues.*{d}_{t}" for d in (d0, d1)
                             for t in ("float32", "float64", "bfloat16")], [],
         "loopback:ForwardEdgeValues"),
        ("backward-wrong", {}, [f"loopback:Backward.*{d}_{t}" for d in (d0, d1)
                                for t in ("float32", "float64", "bfloat16")], [],
         r"loopback:Backward\."),
    ] + runtime_contract_faults(name, d0, d1)


def runtime_contract_faults(name, d0, d1):
    """Faults in device state: serialization, generators, memory, threads."""
    # 1.13 (PrivateUse1 named "privateuseone") keeps no memory statistics: those checks skip.
    single_threaded_memory = [] if name == "privateuseone" else [
        f"loopback:MemoryAccounting.*{d0}", f"loopback:MemoryLeak.*{d0}"]
    return [
        # Only index 1 is ever not the current device while saving.
        ("save-wrong-device", {},
         [f"loopback:Serialization.*{d1}", f"loopback:SerializationAcrossDevices.*{d1}",
          f"loopback:SerializationSeedModel.*{d1}"],
         [f"loopback:Serialization.*{d0}"], "loopback:Serialization"),
        # The cross-index check then names the seed check as its prerequisite.
        ("rng-ignores-seed", {},
         [f"loopback:Generators.*{d}" for d in (d0, d1)] +
         [f"loopback:GeneratorState.*{d}" for d in (d0, d1)], [], "loopback:Generator"),
        ("rng-shared", {}, [f"loopback:GeneratorsAcrossDevices.*{d}" for d in (d0, d1)],
         [f"loopback:Generators.*{d0}", f"loopback:GeneratorState.*{d0}"], "loopback:Generator"),
        ("oom-abort", {}, [f"loopback:OutOfMemory.*{d}" for d in (d0, d1)],
         [f"loopback:MemoryAccounting.*{d0}"], r"loopback:(OutOfMemory|MemoryAccounting)\."),
        # The leak check then names the accounting check as its prerequisite.
        ("stats-lie", {}, [f"loopback:MemoryAccounting.*{d}" for d in (d0, d1)]
         + [f"loopback:PinnedMemory.HostAllocatorStatisticsFollowPinnedAllocations{d}" for d in (d0, d1)],
         [f"loopback:OutOfMemory.*{d0}"], r"loopback:(Memory|OutOfMemory|PinnedMemory)"),
        ("leak", {}, [f"loopback:MemoryLeak.*{d}" for d in (d0, d1)],
         [f"loopback:MemoryAccounting.*{d0}"], r"loopback:Memory"),
        # LibTorch asks the backend only after its pinned allocator was used,
        # so the check asks after pinning; the copy check does not ask at all.
        ("pin-fake", {}, [f"loopback:PinnedMemory.PinMemoryGivesPinnedMemoryAndPageableMemoryIsNot{d}"
                          for d in (d0, d1)],
         [f"loopback:PinnedMemory.NonBlockingCopiesThroughPinnedMemoryAreExactAfterSynchronising{d0}"],
         "loopback:PinnedMemory"),
        # One thread at a time never races: the single-threaded checks pass.
        ("thread-race", {}, [f"loopback:ConcurrentAllocation.*{d}" for d in (d0, d1)],
         [f"loopback:ForkedChild.*{d0}"] + single_threaded_memory,
         r"loopback:(Concurrent|ForkedChild|Memory)"),
        ("fork-hang", {"TDC_BACKEND_TIMEOUT": "5"}, [f"loopback:ForkedChild.*{d}" for d in (d0, d1)],
         [f"loopback:ConcurrentForward.*{d0}"], r"loopback:(ForkedChild|ConcurrentForward)"),
        # A forked child shares the parent's claim, as it shares its file locks.
        ("exclusive-process", {}, [f"loopback:SpawnedChild.*{d}" for d in (d0, d1)],
         [f"loopback:ForkedChild.*{d0}", f"loopback:ConcurrentForward.*{d0}"],
         r"loopback:(SpawnedChild|ForkedChild|ConcurrentForward)"),
        # The lied dtype (complex32) is in no other check's dtype list.
        ("dtype-lie", {}, [f"loopback:DeclaredDtypes.*{d}" for d in (d0, d1)],
         [f"loopback:Copies.EveryDtypeLayoutSizeAndDirectionIsExact{d0}"],
         r"loopback:(DeclaredDtypes|Copies)\."),
    ]


def runtime_faults(name, d0, d1):
    """The execution contract (guard, streams, events), each against its own suite."""
    both = lambda check: [f"loopback:{check}{d}" for d in (d0, d1)]  # noqa: E731
    # 1.13 (the only LibTorch naming PrivateUse1 "privateuseone") has no getNewStream.
    new_streams = [] if name == "privateuseone" else both("StreamNew.DiffersFromTheDefaultAndFromEachOther")
    guard = r"loopback:Guard"
    slow_copies = {"TDC_LOOPBACK_DELAY_US": "20000"}
    asynchronous = r"loopback:(Stream|Event|AsyncCopies|DeviceSynchronize|PinnedMemory)"
    # 1.13 has no synchronizeDevice and pins memory for CUDA only: those checks skip there.
    device_sync = [] if name == "privateuseone" else both("DeviceSynchronize.DrainsEveryStream")
    pinned_copies = [] if name == "privateuseone" else both(
        "PinnedMemory.NonBlockingCopiesThroughPinnedMemoryAreExactAfterSynchronising")
    return [
        ("guard-global", {}, both("GuardPerThread.AnotherThreadsDeviceDoesNotMoveThisOne")
         + both("StreamPerThread.AnotherThreadsStreamDoesNotMoveThisOne")
         + both("ConcurrentForward.EightThreadsRoundRobinOverIndicesRunTheSeedForward"),
         both("GuardNesting.DeviceGuardAndOptionalDeviceGuardRestoreInOrder"),
         r"loopback:(Guard|Stream|ConcurrentForward)"),
        ("guard-no-restore", {}, both("GuardNesting.DeviceGuardAndOptionalDeviceGuardRestoreInOrder")
         + both("GuardUnwinding.RestoresWhenAnExceptionLeavesTheScope"), [], guard),
        ("guard-unchecked", {}, both("GuardInvalidIndex.RaisesAnErrorNamingTheIndex"),
         both("GuardNesting.DeviceGuardAndOptionalDeviceGuardRestoreInOrder"), guard),
        ("count-per-thread", {}, both("GuardDeviceCount.SameAcrossCallsAndThreads"),
         both("GuardInvalidIndex.RaisesAnErrorNamingTheIndex"), guard),
        ("stream-alias", {}, both("StreamDefault.ExistsAndPoolStreamsDifferFromIt")
         + new_streams + both("StreamGuardScope.SetsAndRestoresTheCurrentStream"), [], r"loopback:Stream"),
        ("timing-garbage", {}, both("EventTimingDisabled.ElapsedTimeRaisesInsteadOfAnsweringANumber")
         + both("EventTimingEnabled.IntervalsAreNonNegativeAndAddUp"),
         both("EventRecord.QueryAndSynchronizeAfterRecord"), r"loopback:Event"),
        ("never-done", {}, both("StreamSynchronize.QueryIsTrueAndWorkVisibleAfterSynchronize")
         + both("EventRecord.QueryAndSynchronizeAfterRecord"), both("StreamDefault.ExistsAndPoolStreamsDifferFromIt"),
         r"loopback:(Stream|Event)"),
        # The asynchronous faults, with every copy delayed 20 ms so that a read
        # which does not wait always lands before the copy (they are caught
        # without the delay too, but not on every run).
        ("sync-noop", slow_copies, both("AsyncCopies.NonBlockingRoundTripIsExactAfterStreamSynchronize")
         + both("EventBlock.ConsumerStreamWaitsForTheProducersEvent") + device_sync + pinned_copies,
         both("AsyncCopies.NonBlockingRoundTripIsExactAfterEventSynchronize"), asynchronous),
        ("event-noop", slow_copies, both("AsyncCopies.NonBlockingRoundTripIsExactAfterEventSynchronize")
         + both("EventBlock.ConsumerStreamWaitsForTheProducersEvent")
         + both("EventBlockAcrossDevices.StreamOfAnotherIndexWaitsForTheEvent"),
         both("AsyncCopies.NonBlockingRoundTripIsExactAfterStreamSynchronize") + device_sync, asynchronous),
        ("sync-default-only", slow_copies, device_sync,
         both("AsyncCopies.NonBlockingRoundTripIsExactAfterStreamSynchronize"), asynchronous),
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


def unnamed_failures(mode, failed, must_fail, outputs):
    """Failures that are neither the fault's own check nor name its owner."""
    owner = PREREQUISITE_OWNERS.get(mode)
    if owner is None:
        return []
    return [name for name in failed
            if not any(fnmatch.fnmatch(name, glob) for glob in must_fail)
            and not name.split(":", 1)[-1].startswith(owner)
            and not ("prerequisite failed: " in outputs.get(name, "")
                     and f"(checked by {owner}" in outputs.get(name, ""))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--backend-name", default="loopback")
    parser.add_argument("--markdown")
    parser.add_argument("--only", help="run one mode")
    args = parser.parse_args()

    rows, holes = [], 0
    library = os.path.join(os.path.abspath(args.build_dir), "lib", "libtdc_loopback.so")
    for mode, extra, must_fail, must_pass, regex in faults(args.backend_name, library):
        if args.only and mode != args.only:
            continue
        if (mode, args.backend_name) in NOT_APPLICABLE:
            print(f"{mode:<15} not applicable: {NOT_APPLICABLE[(mode, args.backend_name)]}")
            rows.append((mode, "not applicable: " + NOT_APPLICABLE[(mode, args.backend_name)], []))
            continue
        env = dict(os.environ, TDC_LOOPBACK_FAULT=mode, **extra)
        started = time.time()
        outputs = {}
        code, verdicts, output = run_ctest(args.build_dir, "loopback", env, regex, outputs,
                                          exclude_label=EXCLUDED_LABELS)
        seconds = time.time() - started
        if verdicts is None:
            print(output[-4000:])
            rows.append((mode, "no report", []))
            holes += 1
            continue
        failed = sorted(n for n, v in verdicts.items() if v == "failed")
        passed = [n for n, v in verdicts.items() if v == "passed"]
        problems = []
        if code == 0:
            problems.append("the run passed")
        problems += [f"not failed: {g}" for g in must_fail if not fnmatch.filter(failed, g)]
        problems += [f"not passed: {g}" for g in must_pass if not fnmatch.filter(passed, g)]
        problems += [f"does not name the prerequisite: {n}"
                     for n in unnamed_failures(mode, failed, must_fail, outputs)]
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
