"""Hosts grouped by failure signature, and each root-cause failure judged a
node fault or a build-wide failure.

A row's signature is the set of its root-cause failures, each a check on a
device ("EventBlock.ConsumerStreamWaitsForTheProducersEvent on cuda:3");
dependents (failures that name a prerequisite) are left out, their root
cause is in. A row without results has the signature of why: "no package:
TIMEOUT", "unverified: bad signature". Rows with the same signature form one
group, largest first, so 1,000 hosts read as a handful of lines.

The rule for a root-cause failure of check C in build B (docs/fleet.md):
  build-wide failure   every host of B that ran C fails it (at least 2 hosts);
  driver-wide failure  the hosts of B that fail C are exactly those whose
                       failing device has driver D, and B's hosts with other
                       drivers pass it;
  node fault           other hosts of B pass C: the failing hosts are at fault;
  undetermined         one host ran C in B: nothing to compare it with.
These judge tonight's hosts against each other, never against an earlier
night: what changed since one is tdc.fleet.history's ("newly failing"). The
kinds were once "regression" and "driver regression", which read as "newly
failing since last night".
"""
from collections import defaultdict
from dataclasses import dataclass, field

KINDS = ("build-wide failure", "driver-wide failure", "node fault", "undetermined")
RULES = {  # the module's rule, above, as the reports state it
    "build-wide failure": "fails on every host of the build that ran the check (at least 2 hosts); "
                          "tonight's hosts compared, not earlier nights",
    "driver-wide failure": "the hosts that fail it are exactly those whose failing device has one driver, "
                         "and the build's hosts with other drivers pass it",
    "node fault": "other hosts of the build pass it: the failing hosts are at fault",
    "undetermined": "one host of the build ran it: nothing to compare it with",
}


@dataclass
class Digest:
    """What the fleet-wide sections need of one row (rows themselves are
    written out as they come and not kept)."""
    host: str
    build: str
    trust: str                      # verified | unverified | no package
    state: str = ""                 # Slurm state, if a task
    why: str = ""                   # first trust problem or the task's reason
    counts: dict = field(default_factory=dict)
    roots: tuple = ()               # ((check, device), ...) root-cause failures
    ran: frozenset = frozenset()    # checks that ran (not all skipped) on any device
    drivers: dict = field(default_factory=dict)   # device -> driver
    names: dict = field(default_factory=dict)     # device -> model name


def signature_of(digest):
    if digest.trust == "no package":
        return f"no package: {digest.state or 'not run'}"
    if digest.trust == "unverified":
        return f"unverified: {digest.why.split(':', 1)[0]}"
    if not digest.roots:
        return "passed"
    return "; ".join(f"{check} on {device}" for check, device in digest.roots)


def title_of(roots, limit=3):
    """A readable line for a signature: each check once with its devices."""
    by_check = defaultdict(list)
    for check, device in roots:
        by_check[check].append(device)
    parts = [f"{check} on {compact(devices)}" for check, devices in list(by_check.items())[:limit]]
    more = len(by_check) - limit
    return "; ".join(parts) + (f"; and {more} more check{'s' if more > 1 else ''}" if more > 0 else "")


def compact(devices):
    """['cuda:0', 'cuda:1', 'cuda:2', 'cuda:5', 'cpu'] -> 'cpu, cuda:0-2, cuda:5'."""
    indexed, other = defaultdict(list), []
    for device in devices:
        kind, _, index = device.partition(":")
        if index.isdigit():
            indexed[kind].append(int(index))
        else:
            other.append(device)
    parts = sorted(other)
    for kind, indices in sorted(indexed.items()):
        indices = sorted(set(indices))
        start = previous = indices[0]
        for index in indices[1:] + [None]:
            if index is not None and index == previous + 1:
                previous = index
                continue
            if start == previous:
                parts.append(f"{kind}:{start}")
            elif previous == start + 1:
                parts += [f"{kind}:{start}", f"{kind}:{previous}"]
            else:
                parts.append(f"{kind}:{start}-{previous}")
            if index is not None:
                start = previous = index
    return ", ".join(parts)


def groups(digests, judged):
    """[{signature, title, count, hosts, items}] largest first; judged is
    findings() keyed by (build, check)."""
    found = {}
    for digest in digests:
        key = signature_of(digest)
        group = found.setdefault(key, {"signature": key, "count": 0, "hosts": [], "items": [],
                                       "title": title_of(digest.roots) if digest.roots else key,
                                       "outcome": digest.trust if digest.trust != "verified"
                                       else ("failed" if digest.roots else "passed")})
        group["count"] += 1
        group["hosts"].append(f"{digest.host} ({digest.build})")
        if not group["items"] and digest.roots:
            group["items"] = [{"check": c, "device": d, "kind": judged.get((digest.build, c), {}).get("kind")}
                              for c, d in digest.roots]
    order = {"failed": 0, "unverified": 1, "no package": 2, "passed": 3}
    return sorted(found.values(), key=lambda g: (order[g["outcome"]], -g["count"], g["signature"]))


def findings(digests):
    """{(build, check): finding} for every root-cause failure in the fleet."""
    by_build = defaultdict(list)
    for digest in digests:
        if digest.trust == "verified":
            by_build[digest.build].append(digest)
    judged = {}
    for build, rows in by_build.items():
        failing = defaultdict(dict)                 # check -> {host: [devices]}
        for digest in rows:
            for check, device in digest.roots:
                failing[check].setdefault(digest.host, []).append(device)
        for check, hosts in failing.items():
            ran = [d for d in rows if check in d.ran or d.host in hosts]
            passing = [d for d in ran if d.host not in hosts]
            judged[(build, check)] = _judge(build, check, hosts, ran, passing)
    return judged


def _judge(build, check, hosts, ran, passing):
    finding = {"build": build, "check": check, "failing_hosts": sorted(hosts),
               "devices": sorted({d for devices in hosts.values() for d in devices}),
               "hosts_ran": len(ran), "hosts_passed": len(passing), "driver": None}
    failing_rows = [d for d in ran if d.host in hosts]
    if len(ran) == 1:
        finding.update(kind="undetermined",
                       message=f"{check} fails on {hosts and next(iter(hosts))}, the only host of "
                               f"build {build} that ran it")
    elif not passing:
        finding.update(kind="build-wide failure",
                       message=f"{check} fails on every host of build {build} that ran it "
                               f"({len(ran)} hosts)")
    else:
        driver = _shared_driver(failing_rows, hosts)
        others = [d for d in passing if driver is not None and driver not in d.drivers.values()]
        same_driver_passing = [d for d in passing if driver is not None and driver in d.drivers.values()]
        if driver and others and not same_driver_passing and len(failing_rows) >= 2:
            finding.update(kind="driver-wide failure", driver=driver,
                           message=f"{check} fails on every host of build {build} whose device has "
                                   f"driver {driver} ({len(failing_rows)}), and passes on "
                                   f"{len(others)} with other drivers")
        else:
            finding.update(kind="node fault",
                           message=f"{check} fails on {len(hosts)} host(s) of build {build} and "
                                   f"passes on {len(passing)}: a fault of "
                                   f"{'that host' if len(hosts) == 1 else 'those hosts'}")
    return finding


def _shared_driver(rows, hosts):
    """The driver every failing device has, if one (and it is not blank)."""
    drivers = {row.drivers.get(device, "") for row in rows for device in hosts[row.host]}
    return drivers.pop() if len(drivers) == 1 and "" not in drivers else None
