"""Whether the ordering checks observed ordering, per device.

The stream, event and asynchronous-copy checks peek at their streams and
events before they synchronise them (fixtures/include/tdc/
ordering_observation.h), and each one that ran records the property
`ordering_observed`: "yes" when a peek found work still pending on its
device, "no" when everything had completed before the call that issued it
returned. Both conform; but a device whose every ordering check says "no"
passed them without exercising them, and the results say so: its entry in
summary.json's `devices` gets `ordering` = OBSERVED or NOT_OBSERVED, which
the console, the report and ci/verify print. A device none of whose
ordering checks ran (the CPU: it has no streams, its checks skip) has no
`ordering` at all. docs/conformance.md, "Ordering observed"."""
from tdc.errors import InputError

PROPERTY = "ordering_observed"
VALUES = {"yes": True, "no": False}
OBSERVED = "observed"
NOT_OBSERVED = "not observed: every operation completed before it returned"


def flag_of(properties, where):
    """True / False from a GoogleTest record's properties, None when it has
    none; InputError for any other value (a damaged result is never read as
    one that observed nothing)."""
    if PROPERTY not in properties:
        return None
    value = properties[PROPERTY]
    if value not in VALUES:
        raise InputError(f"{where}: property {PROPERTY}={value!r}, expected yes or no")
    return VALUES[value]


def by_device(tests):
    """{device: OBSERVED | NOT_OBSERVED} for every device on which an
    ordering check recorded whether it saw work pending: observed when one
    of them did."""
    seen = {}
    for test in tests:
        flag = test.get(PROPERTY)
        if flag is None or test.get("scope") != "device":
            continue
        seen[test["device"]] = seen.get(test["device"], False) or flag
    return {device: OBSERVED if flag else NOT_OBSERVED for device, flag in seen.items()}


def unobserved(devices):
    """The devices of a summary's `devices` whose ordering was not observed, sorted."""
    return sorted(d for d, entry in devices.items() if entry.get("ordering") == NOT_OBSERVED)


def lines(devices):
    """One line per device that has an `ordering`, for a person to read."""
    return [f"{device}: ordering {entry['ordering']}"
            for device, entry in sorted(devices.items()) if entry.get("ordering")]
