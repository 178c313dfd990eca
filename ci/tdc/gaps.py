"""What a backend lacks, in TDC's words: the one place that turns the
errors LibTorch raises for a missing piece (a kernel it cannot dispatch, a
DeviceGuardImplInterface call the backend left at c10's default) into the
line a vendor acts on, with the docs/backends.md section that says how.

  Could not run 'aten::X' with arguments from the 'B' backend
      -> Missing kernel aten::X for B: register it (TORCH_LIBRARY_IMPL(aten, PrivateUse1, m))
         or route it to the CPU fallback (docs/backends.md, Kernels)
  Backend doesn't support acquiring a stream from pool / LOOPBACK backend doesn't support events
      -> Missing: getStreamFromGlobalPool in loopback's DeviceGuardImplInterface

The fixtures name the prerequisite instead where a check depends on a piece
another check owns (tdc/prerequisite.h): those lines are left as they are.
The summary (tdc.summarize) calls of() once per failure; everything after it
(console, JUnit, verdict, report) reads the summary's message."""
import re
from dataclasses import dataclass

# docs/backends.md's sections, by title (ci/tests/test_gaps.py holds the
# page to them).
KERNELS = "Kernels, and what the CPU fallback does not write back"
STREAMS = "Streams"
EVENTS = "Events"
DEVICE_SYNCHRONISATION = "Device synchronisation"
DEVICE_GUARD = "Device guard"
PINNED_FLAGS = "Pinned-memory flags"
AUTOCAST = "Autocast"

_MISSING_KERNEL = re.compile(r"Could not run '([^']+)' with arguments from the '([^']+)' backend")
# c10's DeviceGuardImplInterface defaults ("Backend doesn't support ...") and
# its NoOpDeviceGuardImpl's ("<NAME> backend doesn't support events.").
_GUARD_DEFAULT = re.compile(r"(?:\b(\w+) )?[Bb]ackend doesn't support ([^.\"';]+)")
# The phrase of each default -> (the interface's call, its docs section).
_GUARD_CALLS = {
    "acquiring a default stream": ("getDefaultStream", STREAMS),
    "acquiring a stream from pool": ("getStreamFromGlobalPool", STREAMS),
    "create a new Stream": ("getNewStream", STREAMS),
    "querying streams": ("queryStream", STREAMS),
    "synchronizing streams": ("synchronizeStream", STREAMS),
    "getting stream native handle": ("getStreamNativeHandle", STREAMS),
    "events": ("record, block and queryEvent (events)", EVENTS),
    "synchronizing events": ("synchronizeEvent", EVENTS),
    "elapsedTime": ("elapsedTime", EVENTS),
    "synchronizing all streams on device": ("synchronizeDevice", DEVICE_SYNCHRONISATION),
    "getting device capabilities": ("getDeviceCapability", DEVICE_GUARD),
}
# TDC's own words for a gap no LibTorch error names: a symptom of the
# check's message -> (the gap, its docs section).
_SYMPTOMS = (
    ("pageable memory reads as pinned", PINNED_FLAGS),
    ("not the autocast dtype", AUTOCAST),
)
PREREQUISITE = "prerequisite failed: "


@dataclass(frozen=True)
class Gap:
    key: str      # what groups failures: "kernel aten::sum.IntList_out", "guard loopback getNewStream"
    fix: str      # the failure's message in TDC's words
    section: str  # docs/backends.md's section that says how to add it
    kernel: str = ""  # "aten::X" for a missing kernel


def kernel_fix(kernel, backend):
    return (f"Missing kernel {kernel} for {backend}: register it (TORCH_LIBRARY_IMPL(aten, PrivateUse1, m)) "
            "or route it to the CPU fallback (docs/backends.md, Kernels)")


def of(message, backend=""):
    """The Gap a failure's one-line message shows, or None. `backend`: the
    device type of the check that failed (the guard's defaults do not say
    whose guard it was)."""
    if not message or message.startswith(PREREQUISITE):
        return None
    kernel = _MISSING_KERNEL.search(message)
    if kernel:
        return Gap(f"kernel {kernel.group(1)}", kernel_fix(kernel.group(1), kernel.group(2)), KERNELS,
                   kernel.group(1))
    calls, sections, named = [], [], ""
    for match in _GUARD_DEFAULT.finditer(message):
        call, section = _GUARD_CALLS.get(match.group(2).strip(), (match.group(2).strip(), DEVICE_GUARD))
        named = named or (match.group(1) or "")
        if call not in calls:
            calls.append(call)
            sections.append(section)
    if calls:
        whose = backend or named.lower() or "the backend"
        return Gap(f"guard {whose} {', '.join(calls)}",
                   f"Missing: {', '.join(calls)} in {whose}'s DeviceGuardImplInterface", sections[0])
    for symptom, section in _SYMPTOMS:
        if symptom in message:
            return Gap(f"symptom {symptom}", message, section)
    return None


def sections():
    """Every docs/backends.md section a gap can name."""
    return sorted({KERNELS, STREAMS, EVENTS, DEVICE_SYNCHRONISATION, DEVICE_GUARD, PINNED_FLAGS, AUTOCAST})
