"""verify: checks a package made by ci/package against this tree's mustpass lists.

  ci/verify PACKAGE.tar.gz [--quiet] [--allowed-signers FILE] [--require-signature]

Exit 0 (VERIFIED, naming the devices and expectation the run covered) when
the package holds:
  - every file listed in MANIFEST (once) with its sha256, and no file besides;
  - only files a package has (JUnit, summary, context, waivers, GoogleTest
    XML, benchmark results, STATEMENT), each readable and of its schema;
  - a STATEMENT with each field once, no unknown field, one line each;
  - a run made from a clean tree, of this verifier's version series
    (tdc/versioning.py: 0.MINOR before 1.0, MAJOR after), one run id throughout
    (context, summary, JUnit, STATEMENT), and no GoogleTest result for a
    test the summary does not list;
  - a run at least at the claimed level, with JUnit and summary agreeing on
    every test, at least one test passed;
  - every check of the claimed level (suites/mustpass/levelN.txt) present,
    none failed, every waiver with a tracker, and on every expected device
    (TDC_EXPECT as recorded in context.json; else the devices the run found)
    results of the node's own entries (never the loopback twins'), at
    least one passed, every check that ran on that device type present, and
    for level 1 every check of the list passed there (a skip is accepted
    only where the check needs a second device the run does not have, the
    type's collectives ran from its index 0, or no c10d backend serves the
    type: LEVEL1_ACCEPTED_SKIP);
  - for level 3, TDC_EXPECT recorded, the benchmark gate run with
    --require-thresholds, passed, and the sustained numerics run at least
    tdc.levels.QUALIFICATION_SUSTAINED_SECONDS long (context.json's
    sustained_seconds, and each expected device's result's measurement);
  - a host name in context.json (no control character, white space or
    comma; text the terminal can show);
  - with --allowed-signers, a MANIFEST.sig that is a good signature over
    MANIFEST by a key the file allows for the host context.json names, and
    for the Slurm node it names (context.json's slurm.node) when that
    differs (unsigned, a bad signature or another host's signer: rejected).
    Without it only integrity is checked, and the verdict says so
    ("provenance: not checked"); --require-signature then refuses to answer
    (exit 2). An empty --allowed-signers is bad input, never "unchecked".
Every text taken from the package is printed on one line, its control
characters escaped (tdc.terminal).
A VERIFIED package whose summary says a device's ordering checks passed
without seeing work pending (tdc.ordering) gets a `note:` line naming it.
Exit 1: REJECTED, every problem on its own line. Exit 2: not a readable
package (one line: not gzip, truncated, a CRC error, trailing data, too
large expanded, links, `..` or non-UTF-8 names, a member twice)."""
import os
import re
import tempfile

from tdc import cli, context as context_module, expectation, gtest, junit, levels, names, ordering, packaging, results, safeio, versioning
from tdc.errors import InputError
from tdc.fleet import signing
from tdc.terminal import printable

NOT_CHECKED = "provenance: not checked (no --allowed-signers): integrity only"
# How the problems that deny a package its signer begin (tdc.fleet.signing's verdicts, check_host_names).
SIGNATURE_PROBLEMS = ("unsigned:", "bad signature:", "signer does not match host:", "unknown signer:",
                      "signer's key refused", "the package names no host", "not a host name:")

# The skips level 1 accepts of a check on an expected device (any other skip
# is a check that did not run there): it needs more devices than the run has
# (fixtures/src/fixtures.cpp, suites/mismatch_guard); the device's
# collectives ran in the world of index 0 of its type, whose ranks take
# every index (suites/collectives/collectives_fixture.cpp); or no c10d
# backend serves its type, which the skip names with what to add
# (suites/collectives/backend_choice.cpp: a node without collectives is
# not thereby broken; docs/backends.md, "Collectives").
LEVEL1_ACCEPTED_SKIP = re.compile(r"^(needs (two |a device other than )"
                                  r"|the collectives of \S+ run once per device type, from \S+:0,"
                                  r"|no c10d backend serves )")


def level1_accepts_skip(message):
    """Whether a level-1 check skipped on an expected device with `message`
    still counts as run there (LEVEL1_ACCEPTED_SKIP)."""
    return bool(LEVEL1_ACCEPTED_SKIP.match(message or ""))


def check_manifest(stage, problems, digests=None):
    """digests: {path: sha256} taken as extract() wrote the stage (None: read each file)."""
    try:
        text = safeio.read_text(os.path.join(stage, packaging.MANIFEST), "MANIFEST")
    except InputError as error:
        problems.append(f"MANIFEST is missing or damaged ({error})")
        return
    listed = {}
    for line in text.splitlines():
        match = re.match(r"^([0-9a-f]{64})  (.+)$", line)
        if not match:
            problems.append(f"MANIFEST line is not '<sha256>  <path>': {line[:100]!r}")
            continue
        if match.group(2) in listed:
            problems.append(f"MANIFEST lists {match.group(2)} twice")
            continue
        listed[match.group(2)] = match.group(1)
    # The files extract() streamed (some maybe left unwritten), else those on disk.
    present = {path for path in digests if path not in (packaging.MANIFEST, packaging.SIGNATURE)} \
        if digests is not None else set(packaging.package_files(stage))
    for path, digest in sorted(listed.items()):
        if path not in present:
            problems.append(f"removed file: {path} is listed in MANIFEST but missing")
        elif (digests[path] if digests is not None else packaging.sha256(os.path.join(stage, path))) != digest:
            problems.append(f"edited file: {path} does not match its sha256 in MANIFEST")
    for path in sorted(present - set(listed)):
        problems.append(f"extra file: {path} is not in MANIFEST")
    for path in sorted(present):
        if not packaging.allowed(path):
            problems.append(f"unknown file: {path} is not part of a TDC package")


def read_statement(stage, problems):
    try:
        text = safeio.read_text(os.path.join(stage, packaging.STATEMENT), "STATEMENT", 1 << 16)
    except InputError as error:
        problems.append(f"STATEMENT is missing or damaged ({error})")
        return {}
    statement = packaging.parse_statement(text, problems)
    if statement.get("level") not in ("1", "2", "3"):
        problems.append(f"STATEMENT level {statement.get('level')!r} is not 1, 2 or 3")
    return statement


def load(stage, kind, problems):
    name = f"{kind}.json"
    try:
        return results.read(os.path.join(stage, name), kind, name)
    except InputError as error:
        problems.append(f"{name} is missing or damaged ({error})")
        return None


def backend_name(context):
    """The loaded PrivateUse1 backend's name, which `privateuseone` in
    TDC_EXPECT stands for: the backend tdc_context marks `privateuse1` (a
    CUDA build lists cuda beside it); in a context from before that mark,
    the only backend."""
    backends = [b for b in (context.get("devices") or {}).get("backends") or []
                if isinstance(b, dict) and isinstance(b.get("name"), str) and b.get("name")]
    marked = [b["name"] for b in backends if b.get("privateuse1") is True]
    if marked:
        return marked[0]
    named = [b["name"] for b in backends]
    return named[0] if len(named) == 1 and "privateuse1" not in backends[0] else None


def expected_devices(context, own_tests):
    """TDC_EXPECT as recorded ('cuda:2' -> cuda:0, cuda:1; privateuseone is
    the loaded backend's name); else the devices the node's own entries ran on."""
    expect = (context.get("expect") or "").strip()
    devices = []
    for item in filter(None, (i.strip() for i in expect.split(","))):
        kind, _, count = item.partition(":")
        if kind == "privateuseone" and backend_name(context):
            kind = backend_name(context)
        if kind == "cpu":
            devices.append("cpu")
        else:
            devices += [f"{kind}:{i}" for i in range(int(count) if count.isdigit() else 1)]
    if devices:
        return list(dict.fromkeys(devices))
    return sorted({t["device"] for t in own_tests if t["scope"] == "device"})


def junit_cases(stage, problems, name="junit.xml"):
    try:
        if name == "junit.xml":
            return junit.cases_of_root(junit_root(stage), os.path.join(stage, name))
        return junit.read(os.path.join(stage, name))
    except InputError as error:
        problems.append(f"{name} is missing or damaged ({error})")
        return None


def check_agreement(cases, tests, problems):
    """junit.xml (one testcase per check per device, written from the
    summary) and summary.json list the same results with the same status."""
    summarised = {t["name"]: results.junit_status(t["status"]) for t in tests}
    reported = {case.name: case.status for case in cases}
    differing = sorted(n for n in set(summarised) | set(reported) if summarised.get(n) != reported.get(n))
    if differing:
        name = differing[0]
        problems.append(f"junit.xml and summary.json disagree on {len(differing)} test(s), e.g. "
                        f"{name}: junit {reported.get(name)}, summary {summarised.get(name)}")


def check_entries(entries, tests, problems):
    """ctest's own JUnit (one testcase per entry; an entry is a batch of
    checks, tdc_batch) agrees with the summary: an entry failed exactly when
    one of its checks did, or the summary holds its own failure (its process
    ended badly between checks); an entry that ran no check of its own (a
    configuration error, a self-test) has the summary's status. A summary
    result whose entry ctest does not report, or did not run, is not this
    run's."""
    by_entry = {}
    for test in tests:
        if test.get("entry"):
            by_entry.setdefault(test["entry"], []).append(test)
    summarised = {t["name"]: t["status"] for t in tests}
    differing = []
    for case in entries:
        own = by_entry.pop(case.name, [])
        failed = any(t["status"] == results.FAILED for t in own) or summarised.get(case.name) == results.FAILED
        if own:
            if failed != (case.status == results.FAILED):
                differing.append(f"{case.name}: ctest {case.status}, its checks "
                                 f"{'failed' if failed else 'did not fail'}")
        elif case.name not in summarised:
            differing.append(f"{case.name}: ctest {case.status}, no result in the summary")
        elif results.junit_status(summarised[case.name]) != case.status:
            differing.append(f"{case.name}: ctest {case.status}, summary {summarised[case.name]}")
    for entry, own in sorted(by_entry.items()):
        differing.append(f"{own[0]['name']}: its entry {entry} is not in ctest-junit.xml")
    if differing:
        problems.append(f"ctest-junit.xml and summary.json disagree on {len(differing)} entr(y/ies), "
                        f"e.g. {differing[0]}")


def read_records(stage, problems):
    folder = os.path.join(stage, "gtest")
    try:
        return gtest.read_dir(folder) if os.path.isdir(folder) else {}
    except InputError as error:
        problems.append(f"gtest/ is damaged ({error})")
        return None


# The summary statuses a GoogleTest record's status allows: the same, or a
# failure (ctest saw the entry end badly after the check wrote its XML),
# never better; known_failure only for a record the waiver marked.
STATUSES_OF_RECORD = {junit.PASSED: {results.PASSED, results.FAILED},
                      junit.SKIPPED: {results.SKIPPED, results.FAILED}, junit.FAILED: {results.FAILED}}


def check_gtest(records, tests, problems):
    """Every GoogleTest result is of a test the summary lists, says the same
    check and device the summary took from it, and a status the summary's
    agrees with (a failure is never a pass or a skip there)."""
    by_name = {t["name"]: t for t in tests}
    for key, record in sorted(records.items()):
        test = by_name.get(key)
        if test is None:
            problems.append(f"gtest/{record.path}: a result for {key}, which summary.json does not "
                            "list: not from this run")
            continue
        allowed = STATUSES_OF_RECORD.get(record.status, set()) | (
            {results.KNOWN_FAILURE} if record.status == junit.SKIPPED and record.known_failure else set())
        if test["status"] not in allowed:
            problems.append(f"summary.json says {key} {test['status']}; its GoogleTest XML "
                            f"(gtest/{record.path}) says {record.status}")
        for field in ("check", "device"):
            if field in record.properties and record.properties[field] != test[field]:
                problems.append(f"summary.json says {key} is {field} {test[field]!r}; its GoogleTest "
                                f"XML says {record.properties[field]!r}")
    for test in tests:
        if test["metadata"] and test["name"] not in records:
            problems.append(f"summary.json took {test['name']}'s metadata from GoogleTest XML the "
                            "package does not hold")


def check_results(stage, level, context, summary, problems):
    tests = summary["tests"]
    cases = junit_cases(stage, problems)
    entries = junit_cases(stage, problems, "ctest-junit.xml")
    records = read_records(stage, problems)
    if cases is not None:
        check_agreement(cases, tests, problems)
    if entries is not None:
        check_entries(entries, tests, problems)
    if records is not None:
        check_gtest(records, tests, problems)
    if not any(t["status"] == results.PASSED for t in tests):
        problems.append(f"nothing was checked: no test passed ({len(tests)} results, "
                        f"{sum(t['status'] != 'failed' for t in tests)} skipped)")
    mustpass = levels.read_mustpass(level)
    if mustpass is None:
        problems.append(f"this verifier has no {levels.mustpass_path(level)}")
        return []
    for check in levels.without_result(tests, mustpass):
        problems.append(f"missing check: {check} (level {level}) has no result")
    for test in tests:
        if test["status"] == results.FAILED:  # in the level's list or not: a failure is a failure
            problems.append(f"failed check: {test['name']}: {test['message'][:120]}")
        if test["status"] == results.KNOWN_FAILURE and not waiver_tracker(test):
            match = packaging.KNOWN_FAILURE.match(test["message"])
            problems.append(f"waiver without a tracker: {test['name']} "
                            f"({match.group('origin') if match else test['message'][:80]})")
    own = [t for t in tests if not t["twin"]]
    per_device = {t["check"] for t in own if names.DEVICE.match(t["device"])}
    devices = expected_devices(context, own)
    by_device = {}  # device -> check -> its instances (a fleet merge asks this of every package)
    for test in own:
        by_device.setdefault(test["device"], {}).setdefault(test["check"], []).append(test)
    for device in devices:
        here = [t for instances in by_device.get(device, {}).values() for t in instances]
        if not here:
            problems.append(f"expected device {device} has no results of the node's own entries")
            continue
        if not any(t["status"] == results.PASSED for t in here):
            problems.append(f"nothing was checked on expected device {device}: no check passed there")
        for check in mustpass:
            if check not in per_device:
                continue
            instances = by_device[device].get(check, [])
            if not instances:
                problems.append(f"check {check} has no result on expected device {device}")
            elif level == 1 and not any(t["status"] == results.PASSED or waiver_tracker(t) or
                                        level1_accepts_skip(t["message"]) for t in instances):
                problems.append(f"check {check} did not run on expected device {device}: "
                                f"{instances[0]['status']} ({instances[0]['message'][:100]})")
    if level == 3:
        check_sustained_run(context, own, devices, problems)
    return devices


def check_sustained_run(context, own, devices, problems):
    """Level 3's sustained run lasted at least qualification's minimum: as
    the run was set (context.json) and as each expected device's check
    recorded it (its measured.sustained_seconds)."""
    minimum = levels.QUALIFICATION_SUSTAINED_SECONDS
    setting = context.get("sustained_seconds")
    if setting is None:
        problems.append("level 3: context.json does not say how long the sustained run was (sustained_seconds)")
    elif setting < minimum:
        problems.append(f"level 3: the sustained run was set to {setting} s (TDC_SUSTAINED_SECONDS); "
                        f"qualification needs at least {minimum} s")
    for device in devices:
        for test in (t for t in own if t["device"] == device and t["check"] == levels.SUSTAINED_CHECK):
            seconds = (test.get("measurements") or {}).get("sustained_seconds")
            if seconds is None:
                if test["status"] == results.PASSED:
                    problems.append(f"level 3: {test['name']} passed without recording its sustained seconds")
            elif seconds < minimum:
                problems.append(f"level 3: {test['name']} ran for {seconds:g} s; qualification needs at "
                                f"least {minimum} s (TDC_SUSTAINED_SECONDS)")


def waiver_tracker(test):
    match = packaging.KNOWN_FAILURE.match(test["message"]) if test["status"] == results.KNOWN_FAILURE else None
    return bool(match and match.group("tracker"))


def check_bench_gate(stage, level, problems):
    if level != 3:
        return
    path = os.path.join(stage, "bench", "gate.json")
    if not os.path.isfile(path):
        problems.append("level 3 needs bench/gate.json (the benchmark gate with --require-thresholds): missing")
        return
    gate = load(os.path.join(stage, "bench"), "gate", problems)
    if gate is None:
        return
    if not gate["require_thresholds"]:
        problems.append("level 3 benchmark gate was not run with --require-thresholds")
    if gate["exit_status"] != 0:
        last = gate["output"].strip().splitlines()[-1:] or ["no output"]
        problems.append(f"level 3 benchmark gate failed (exit {gate['exit_status']}): {last[0][:120]}")


def check_context(stage, context, summary, statement, problems):
    git = context["git"]
    if git["dirty"] is not False:
        problems.append(f"dirty tree: the run was made from a tree with uncommitted changes "
                        f"({', '.join(git['dirty_files'][:3]) or 'state unknown'})")
    mine, theirs = context_module.suite_version(), context["suite_version"]
    why_not = versioning.incompatibility(mine, theirs)
    if why_not:
        problems.append(why_not)
    if statement.get("suite_version") not in (None, theirs):
        problems.append(f"STATEMENT suite_version {statement.get('suite_version')} is not the run's {theirs}")
    run_id = context["run_id"]
    for where, value in (("summary.json", summary["run_id"] if summary else run_id),
                         ("STATEMENT", statement.get("run_id", run_id)),
                         ("junit.xml", junit_run_id(stage) or run_id)):
        if value != run_id:
            problems.append(f"{where} is from run {value}, context.json from run {run_id}: "
                            "files of different runs")
    claimed = int(statement["level"]) if statement.get("level", "") in ("1", "2", "3") else None
    ran = context["level"]
    if claimed and (ran is None or ran < claimed):
        problems.append(f"claimed level {claimed} but the run was level {ran}")
    if claimed == 3 and not (context.get("expect") or "").strip():
        problems.append("level 3 without TDC_EXPECT proves nothing about any accelerator: "
                        "name the devices the run must find (TDC_EXPECT=cuda:8)")
    return claimed


def junit_run_id(stage):
    try:
        root = junit_root(stage)
    except InputError:
        return None  # junit_cases reports it
    for prop in root.iter("property"):
        if prop.get("name") == "run_id":
            return prop.get("value")
    return None


def junit_root(stage, name="junit.xml"):
    """The parsed JUnit file of a stage, parsed once however often asked (a
    fleet merge verifies every package)."""
    path = os.path.join(stage, name)
    try:
        status = os.stat(path)
        key = (path, status.st_ino, status.st_mtime_ns, status.st_size)
    except OSError:
        key = None
    cached = _parsed.get(key) if key else None
    if cached is None:
        _parsed.clear()  # one stage at a time
        cached = safeio.parse_xml(path, "JUnit file")
        if key:
            _parsed[key] = cached
    return cached


_parsed = {}


def verify(package, problems, allowed_signers=None):
    """The checks; returns (level, statement, summary, context, devices)."""
    with tempfile.TemporaryDirectory() as tmp:
        digests = {}
        try:
            stage = packaging.extract(package, tmp, digests)
        except InputError as error:
            raise InputError(f"{package} is not a readable package: it {error}")
        return check_stage(stage, problems, allowed_signers, digests)


def check_stage(stage, problems, allowed_signers=None, digests=None, filed_under=None):
    """The checks on an extracted package (verify; ci/merge calls it too).
    digests: the files' sha256 as extract() took them, for a stage in a
    folder of the caller's own that nothing changed since (None: read).
    filed_under: the host a merge files the package's row under (its task's
    node), which the signer must be allowed for too."""
    check_manifest(stage, problems, digests)
    statement = read_statement(stage, problems)
    context = load(stage, "context", problems)
    summary = load(stage, "summary", problems)
    waivers = load(stage, "waivers", problems)
    if context is not None:
        check_host_names(context, problems, filed_under)
    if allowed_signers:
        check_signature(stage, context, allowed_signers, problems, filed_under)
    if context is None:
        return None, statement, summary, context, []
    level = check_context(stage, context, summary, statement, problems)
    for waiver in (waivers or {}).get("waivers", []):
        if not waiver["tracker"]:
            problems.append(f"waiver without a tracker: {waiver['origin']} applied to {waiver['test']}")
    devices = []
    if level and summary is not None:
        devices = check_results(stage, level, context, summary, problems)
        check_bench_gate(stage, level, problems)
    return level, statement, summary, context, devices


def slurm_node(context):
    """The Slurm node context.json's slurm record claims (tdc.fleet.allocation), or None."""
    slurm = (context or {}).get("slurm")
    node = slurm.get("node") if isinstance(slurm, dict) else None
    return node if isinstance(node, str) and node else None


def check_host_names(context, problems, filed_under=None):
    """The host and the Slurm node a package claims, and the host a merge
    files it under, are names a signer can be allowed for and a terminal can
    show (tdc.fleet.signing)."""
    for field, name in (("context.json's host", context.get("host")),
                        ("context.json's slurm.node", slurm_node(context)), ("the task's host", filed_under)):
        why = signing.principal_problem(name) if name is not None else None
        if why:
            problems.append(f"not a host name: {field} {name!r}: {why}")


def signed_names(context, filed_under=None):
    """[(name, what it is to the package)]: every name the signer must be
    allowed for, each once."""
    host = (context or {}).get("host") or ""
    names = [(host, "that the package claims")]
    if slurm_node(context):
        names.append((slurm_node(context), "the Slurm node the package claims (context.json slurm.node)"))
    if filed_under:
        names.append((filed_under, "the node its task ran on (the scheduler's task list)"))
    seen, found = set(), []
    for name, claim in names:
        if name not in seen:
            seen.add(name)
            found.append((name, claim))
    return found


def check_signature(stage, context, allowed_signers, problems, filed_under=None):
    """MANIFEST.sig is a good signature over MANIFEST by a key allowed_signers
    allows for every name the package is filed under (signed_names).
    Returns the names it was found good for."""
    try:
        with open(os.path.join(stage, packaging.MANIFEST), "rb") as handle:
            manifest = handle.read()
    except OSError:
        return []  # check_manifest names it
    path = os.path.join(stage, packaging.SIGNATURE)
    signature = None
    if os.path.isfile(path):
        with open(path, "rb") as handle:
            signature = handle.read()
    names = signed_names(context, filed_under)
    if any(name and signing.principal_problem(name) for name, _ in names):
        return []  # no signer can be allowed for it: check_host_names said so
    good = []
    for name, claim in names:
        verdict = signing.verify(manifest, signature, allowed_signers, name, claim)
        if not verdict.ok:
            problems.append(verdict.reason)
            return good
        good.append(name)
    return good


def provenance(context, allowed_signers, problems):
    """The verdict's provenance: who the signature says made the package, or that nobody checked."""
    if not allowed_signers:
        return NOT_CHECKED
    if any(problem.startswith(SIGNATURE_PROBLEMS) for problem in problems):
        return "provenance: not established (a signature problem above)"
    names = ", ".join(printable(name) for name, _ in signed_names(context))
    return f"provenance: signed by a key {allowed_signers} allows for {names}"


def run(argv):
    p = cli.Parser("verify", __doc__)
    p.add_argument("package", help="a .tar.gz made by ci/package")
    p.add_argument("--quiet", action="store_true", help="print only the verdict line")
    p.add_argument("--allowed-signers", help="an OpenSSH allowed_signers file: the package must be "
                                             "signed (ci/package --sign-key) by a key it allows for "
                                             "the host (and Slurm node) the package claims")
    p.add_argument("--require-signature", action="store_true",
                   help="refuse (exit 2) to verify integrity only: --allowed-signers must be given")
    args = p.parse_args(argv)
    if args.allowed_signers is not None:
        signing.check_allowed_signers(args.allowed_signers)
    elif args.require_signature:
        raise InputError("--require-signature: no --allowed-signers given, so nothing could check who "
                         "made the package (integrity only): name the allowed_signers file")
    problems = []
    level, statement, summary, context, devices = verify(args.package, problems, args.allowed_signers)
    problems = list(dict.fromkeys(problems))
    name = printable(os.path.basename(args.package))
    if not args.quiet:
        for problem in problems:
            print(f"problem: {printable(problem)}")
    if problems:
        print(f"REJECTED: {name}: {len(problems)} problem(s); "
              f"{provenance(context, args.allowed_signers, problems)}")
        return 1
    expect = (context.get("expect") or "").strip()
    coverage = f"TDC_EXPECT={expect}" if expect else expectation.NO_EXPECT
    print(printable(f"VERIFIED: {name}: level {level}, product {statement.get('product')}, "
                    f"{len(summary['tests'])} results; devices covered: {', '.join(devices) or 'none'} "
                    f"({coverage}); {provenance(context, args.allowed_signers, problems)}"))
    if not args.quiet:
        for device in ordering.unobserved(summary["devices"]):
            print(f"note: {printable(device)}: ordering {ordering.NOT_OBSERVED}")
    return 0


def main(argv=None):
    return cli.run_main("verify", run, argv)
