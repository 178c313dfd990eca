#!/usr/bin/env python3
"""The installed TDC, checked from outside this tree (suites/selftest/install.cmake):

  install_checks.py prefix   --build-dir B --work W   cmake --install into W/prefix, cpack the .deb
                                                     and .tar.gz into W/packages, named for the build
  install_checks.py layout   --build-dir B --work W --source S
                             a copy of the prefix elsewhere holds what it must and names neither
                             tree, lists its suites, refuses a state folder inside it and bad
                             TDC_EXTRA_SUITES items, never writes into itself; TDCConfigVersion
                             follows the version rule as tdc.versioning does
  install_checks.py deb      --work W                 dpkg -x the .deb into a throwaway root, run
                             level 1 and the health check from it, package, verify
  install_checks.py vendor   --work W --source S [--other-torch-dir DIR]
                             unpack the tarball to W/ro, build examples/vendor-suite against it
                             (and fail to configure against another LibTorch), install it to
                             W/ro/acme, make both read-only
  install_checks.py readonly --work W                 level 2 on the loopback from the read-only
                             prefix with the vendor suite: its checks in summary.json, in the
                             package and verified; nothing written under W/ro
  install_checks.py faults   --work W                 loopback faults break the vendor's checks,
                             and the verifier names the broken one

Exit status: 0 as expected, 1 not (every problem on a line), 2 bad input."""
import argparse
import glob
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import time

from health_budget import BUDGET, TIMEOUT

from tdc import versioning

VENDOR = "acme"
VENDOR_CHECKS = ("AcmeCopies.PatternRoundTripIsExact", "AcmeStreams.PoolStreamIsNotTheDefault")


class Problems(list):
    def expect(self, condition, message):
        if not condition:
            self.append(message)
        return condition


def environment(**changes):
    """This process's environment without TDC's settings or PYTHONPATH (an
    installed TDC must find its own tools), plus `changes`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TDC_") and k != "PYTHONPATH"}
    env.update({k: v for k, v in changes.items() if v is not None})
    return env


def run(command, env=None, timeout=600, cwd=None):
    started = time.monotonic()
    try:
        done = subprocess.run(command, env=env or environment(), capture_output=True, text=True,
                              errors="replace", timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, 124, "", f"timed out after {timeout} s"), timeout
    return done, time.monotonic() - started


def last_lines(done, count=6):
    lines = [l for l in (done.stdout + done.stderr).splitlines() if l.strip()]
    return " | ".join(lines[-count:])


def facts(prefix):
    found = {}
    with open(os.path.join(prefix, "share", "tdc", "build", "CMakeCache.txt"), encoding="utf-8") as handle:
        for line in handle:
            match = re.match(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", line.rstrip("\n"))
            if match:
                found[match.group(1)] = match.group(2)
    return found


def package_stem(prefix):
    known = facts(prefix)
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    return f"tdc-{known['TDC_VERSION']}-torch{known['TDC_TORCH_VERSION']}-{known['TDC_TORCH_VARIANT']}_{arch}"


def snapshot(folder):
    """Every path under folder with its type, size, modification time and mode."""
    seen = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            info = os.lstat(path)
            seen[os.path.relpath(path, folder)] = (stat.S_IFMT(info.st_mode), info.st_size, info.st_mtime_ns,
                                                   stat.S_IMODE(info.st_mode))
    return seen


def compare_snapshots(before, after, where, problems):
    changed = sorted(set(before) ^ set(after)) + sorted(p for p in set(before) & set(after)
                                                        if before[p] != after[p])
    problems.expect(not changed, f"{where} was written to: {changed[:5]}")


def read_summary(results):
    with open(os.path.join(results, "summary.json"), encoding="utf-8") as handle:
        return json.load(handle)


def source_dirty(prefix):
    with open(os.path.join(prefix, "share", "tdc", "source.json"), encoding="utf-8") as handle:
        return json.load(handle).get("dirty") is not False


def tdc(prefix, *args, env=None, timeout=600):
    return run([os.path.join(prefix, "bin", "tdc"), *args], env=env, timeout=timeout)


def package_and_verify(prefix, results, out, problems, dirty_ok, partial=False):
    """ci/package then ci/verify, both the installed ones; returns (package, verify's output).
    partial: the run held part of its level on purpose, so verify must
    refuse it, naming missing checks only, none of the vendor's."""
    os.makedirs(out, exist_ok=True)
    made, _ = tdc(prefix, "package", results, "--product=install self-test", "--submitter=tdc self-test",
                  f"--out={out}")
    if not problems.expect(made.returncode == 0, f"tdc package exited {made.returncode}: {last_lines(made)}"):
        return None, ""
    package = made.stdout.strip().splitlines()[-1]
    checked, _ = tdc(prefix, "verify", package)
    reported = [l[len("problem: "):] for l in checked.stdout.splitlines() if l.startswith("problem: ")]
    allowed = [p for p in reported if dirty_ok and p.startswith("dirty tree")]
    if partial:
        missing = [p for p in reported if p.startswith("missing check: ")]
        problems.expect(checked.returncode == 1 and missing and len(missing) + len(allowed) == len(reported)
                        and not any("Acme" in p for p in missing),
                        f"tdc verify of a part of level 2: exit {checked.returncode}, expected a refusal naming "
                        f"missing checks only, none of the vendor's: {reported[:5]}")
        print(f"verify of a part of level 2: exit {checked.returncode}, {len(missing)} missing check(s) named")
        return package, checked.stdout
    problems.expect(reported == allowed and (checked.returncode == 0) == (not allowed),
                    f"tdc verify: exit {checked.returncode}, problems {reported}")
    print(f"verify: exit {checked.returncode}" + (" (built from a dirty tree)" if allowed else
                                                   f": {checked.stdout.strip()}"))
    return package, checked.stdout


# --- prefix ---------------------------------------------------------------

def make_prefix(args, problems):
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    prefix, packages = os.path.join(args.work, "prefix"), os.path.join(args.work, "packages")
    done, seconds = run(["cmake", "--install", args.build_dir, "--prefix", prefix])
    if not problems.expect(done.returncode == 0, f"cmake --install exited {done.returncode}: {last_lines(done)}"):
        return
    print(f"installed into {prefix} in {seconds:.1f} s")
    done, seconds = run(["cpack", "--config", os.path.join(args.build_dir, "CPackConfig.cmake"), "-B", packages,
                         "-G", "DEB;TGZ"], timeout=1200)
    if not problems.expect(done.returncode == 0, f"cpack exited {done.returncode}: {last_lines(done)}"):
        return
    stem = package_stem(prefix)
    for suffix in (".deb", ".tar.gz"):
        path = os.path.join(packages, stem + suffix)
        if problems.expect(os.path.isfile(path), f"cpack made no {stem + suffix} (made: "
                           f"{sorted(os.listdir(packages))})"):
            print(f"{stem + suffix}: {os.path.getsize(path) / 1e6:.1f} MB")
    print(f"packaged in {seconds:.1f} s")


# --- layout ---------------------------------------------------------------

REQUIRED = [
    "bin/tdc", "libexec/tdc/tdc_batch", "libexec/tdc/device_select", "libexec/tdc/tdc_context",
    "libexec/tdc/tdc_seed_child", "lib/tdc/libtdc_loopback.so", "lib/libtdc_core.a", "lib/libtdc_gtest.a",
    "lib/libtdc_gtest_main.a", "lib/libtdc_alignment_guard.a", "include/tdc/fixtures.h",
    "include/tdc/compat/version.h", "lib/cmake/TDC/TDCConfig.cmake", "lib/cmake/TDC/TDCConfigVersion.cmake",
    "lib/cmake/TDC/TDCTargets.cmake", "share/tdc/VERSION", "share/tdc/source.json",
    "share/tdc/ci/tdc/__init__.py", "share/tdc/ci/tdc/schemas/summary.schema.json", "share/tdc/ci/health",
    "share/tdc/ci/tdc/verbs.py", "share/tdc/ci/package", "share/tdc/ci/verify", "share/tdc/ci/merge",
    "share/tdc/ci/lib.sh", "share/tdc/ci/tools.sh", "share/tdc/cmake/discovery-environment.txt",
    "share/tdc/cmake/TdcInstalledTests.cmake", "share/tdc/cmake/TdcTesting.cmake",
    "share/tdc/cmake/tdc_add_conformance_suite.cmake", "share/tdc/suites/levels.txt",
    "share/tdc/suites/known_failures.txt", "share/tdc/suites/mustpass/level1.txt",
    "share/tdc/suites/mustpass/level2.txt", "share/tdc/suites/mustpass/level3.txt",
    "share/tdc/bench/thresholds.json", "share/tdc/suites.d/tdc.cmake", "share/tdc/build/CMakeCache.txt",
]
ABSENT = ["share/tdc/ci/tests", "share/tdc/ci/conformance", "share/tdc/ci/selftest"]
# The self-tests' support (the fleet simulator, the planted-fault rewriter,
# synthetic runs) is no tool: no installed file has its name (issue 30).
TEST_SUPPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fleetsim")


def support_files_in(prefix):
    """Installed files named like a module of suites/selftest/fleetsim (or
    under a fleetsim folder), relative to PREFIX."""
    names = {n for n in os.listdir(TEST_SUPPORT) if n.endswith(".py") and n != "__init__.py"}
    found = []
    for root, _, files in os.walk(prefix):
        for name in files:
            path = os.path.relpath(os.path.join(root, name), prefix)
            if name in names or "fleetsim" in path.split(os.sep):
                found.append(path)
    return sorted(found)


def is_elf_or_archive(path):
    with open(path, "rb") as handle:
        head = handle.read(8)
    return head.startswith(b"\x7fELF") or head.startswith(b"!<arch>")


def names_a_tree(prefix, source, build):
    """[(file, tree)] of files naming the source or build tree: any text file
    (what finds data, or documents a path), a program or library by the build
    tree (what would run it); a program may keep its source files' names
    (GoogleTest's failure locations)."""
    found = []
    for root, _, files in os.walk(prefix):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as handle:
                data = handle.read()
            trees = [build] if is_elf_or_archive(path) else [source, build]
            for tree in trees:
                if os.fsencode(tree) in data:
                    found.append((os.path.relpath(path, prefix), tree))
                    break
    return found


def installed_programs(prefix):
    with open(os.path.join(prefix, "share", "tdc", "suites.d", "tdc.cmake"), encoding="utf-8") as handle:
        text = handle.read()
    return re.findall(r"PROGRAM (tdc_\w+)", text) + re.findall(r'TWIN "(tdc_\w+)"', text)


def version_file_agrees(prefix, work, problems):
    """TDCConfigVersion.cmake accepts a request exactly when it is of this
    version's series and not newer (the rule tdc.versioning states)."""
    installed = facts(prefix)["TDC_VERSION"]
    major, minor, patch = versioning.parse(installed)
    requests = [f"{major}.{minor}", f"{major}.{minor}.{patch}", f"{major}.{minor}.{patch + 1}",
                f"{major}.{minor + 1}", f"{major + 1}.0"] + ([f"{major}.{minor - 1}"] if minor else [])
    script = os.path.join(work, "version_check.cmake")
    for request in requests:
        parts = (request.split(".") + ["0", "0"])[:3]
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(f'set(PACKAGE_FIND_VERSION "{request}")\nset(PACKAGE_FIND_VERSION_MAJOR {parts[0]})\n'
                         f"set(PACKAGE_FIND_VERSION_MINOR {parts[1]})\nset(PACKAGE_FIND_VERSION_PATCH {parts[2]})\n"
                         f'set(PACKAGE_FIND_VERSION_COUNT {len(request.split("."))})\n'
                         "set(CMAKE_SIZEOF_VOID_P 8)\n"
                         f'include("{prefix}/lib/cmake/TDC/TDCConfigVersion.cmake")\n'
                         'message("compatible=${PACKAGE_VERSION_COMPATIBLE}")\n')
        done, _ = run(["cmake", "-P", script])
        cmake_says = "compatible=TRUE" in done.stderr
        full = request if request.count(".") == 2 else request + ".0"
        rule_says = (versioning.series(full) == versioning.series(installed)
                     and versioning.parse(full) <= versioning.parse(installed))
        problems.expect(cmake_says == rule_says, f"find_package(TDC {request}) against {installed}: "
                        f"TDCConfigVersion says {cmake_says}, the version rule says {rule_says}")
        print(f"find_package(TDC {request}) with {installed} installed: {'found' if cmake_says else 'refused'}")


def layout(args, problems):
    original = os.path.join(args.work, "prefix")
    prefix = os.path.join(args.work, "moved", "elsewhere")
    shutil.rmtree(os.path.join(args.work, "moved"), ignore_errors=True)
    shutil.copytree(original, prefix, symlinks=True)
    state = os.path.join(args.work, "layout-state")
    shutil.rmtree(state, ignore_errors=True)
    missing = [p for p in REQUIRED + [f"libexec/tdc/{p}" for p in installed_programs(prefix)]
               if not os.path.exists(os.path.join(prefix, p))]
    problems.expect(not missing, f"the prefix lacks {missing}")
    problems.expect(len(installed_programs(prefix)) >= 30, f"the manifest lists {len(installed_programs(prefix))} "
                    "suite programs")
    extra = [p for p in ABSENT if os.path.exists(os.path.join(prefix, p))]
    problems.expect(not extra, f"the prefix holds what it must not: {extra}")
    support = support_files_in(prefix)
    problems.expect(not support, f"the prefix holds the self-tests' support: {support}")
    source, build = os.path.realpath(args.source), os.path.realpath(args.build_dir)
    naming = names_a_tree(prefix, source, build)
    problems.expect(not naming, f"{len(naming)} installed file(s) name the source or build tree, e.g. {naming[:3]}")
    # The scan can fail: a planted file naming the build tree is found.
    planted = os.path.join(args.work, "moved", "planted")
    os.makedirs(planted)
    with open(os.path.join(planted, "x.cmake"), "w") as handle:
        handle.write(f'include("{build}/x")\n')
    problems.expect(names_a_tree(planted, source, build), "the tree scan does not see a planted build path")
    os.makedirs(os.path.join(planted, "share", "tdc", "ci", "tdc", "fleet"))
    open(os.path.join(planted, "share", "tdc", "ci", "tdc", "fleet", "simulate.py"), "w").close()
    problems.expect(support_files_in(planted) == ["share/tdc/ci/tdc/fleet/simulate.py"],
                    f"the support scan does not see a planted simulator: {support_files_in(planted)}")
    print(f"layout: {len(REQUIRED)} required files, {len(installed_programs(prefix))} suite programs, "
          f"{len(naming)} naming a tree, "
          f"{len(support)} of the self-tests' support")

    before = snapshot(prefix)
    done, _ = tdc(prefix, "--help")
    listed = re.findall(r"^  ([a-z][a-z-]*) +\S", done.stdout, re.M)
    problems.expect(done.returncode == 0 and {"ctest-tree", "merge", "report", "faults", "slurm-submit"} <= set(listed),
                    f"tdc --help: exit {done.returncode}, lists {listed}")
    done, _ = tdc(prefix)
    problems.expect(done.returncode == 2, f"tdc without a verb exited {done.returncode}, not 2")
    inside = os.path.join(prefix, "share", "tdc", "state")
    done, _ = tdc(prefix, f"--state-dir={inside}", "ctest", "-N")
    problems.expect(done.returncode == 2 and "inside the installed TDC" in done.stderr
                    and len(done.stderr.strip().splitlines()) == 1,
                    f"a state folder inside the prefix: exit {done.returncode}, {done.stderr.strip()!r}")
    done, _ = tdc(prefix, f"--state-dir={state}", "ctest", "-N", timeout=900)
    names = re.findall(r"Test +#\d+: (\S+)", done.stdout)
    for wanted in ("waivers.every_waiver_applies_to_a_test", "selection.masked_accelerator_falls_back_to_cpu"):
        problems.expect(wanted in names, f"tdc ctest -N does not list {wanted} (exit {done.returncode}: "
                        f"{last_lines(done)})")
    problems.expect(any(n.startswith("placement") for n in names) and
                    any(n.startswith("loopback:placement") for n in names),
                    f"tdc ctest -N lists no placement entries, plain and twin: {names[:8]}")
    problems.expect(not any("NOT_BUILT" in n or "TdcConfiguration" in n for n in names),
                    f"the installed suites list configuration errors: {[n for n in names if 'Tdc' in n][:3]}")
    print(f"tdc ctest -N from the moved prefix: {len(names)} entries")
    installed_claims(prefix, state, problems)
    extra_suites(prefix, state, args.work, problems)
    compare_snapshots(before, snapshot(prefix), f"the prefix {prefix}", problems)
    version_file_agrees(prefix, args.work, problems)


def installed_claims(prefix, state, problems):
    """Each suite's claim (tdc_add_conformance_suite's PERCENT) reaches the
    installed entries through the manifest: memory's is a whole device,
    placement's the default share (TDC_GPU_PERCENT of the build)."""
    done, _ = tdc(prefix, f"--state-dir={state}", "ctest", "-N", "--show-only=json-v1", timeout=900)
    slots = {}
    try:
        tests = json.loads(done.stdout)["tests"]
    except (ValueError, KeyError):
        tests = []
    for test in tests:
        suite = re.sub(r"[.@].*", "", test["name"])
        for prop in test.get("properties", []):
            if prop["name"] == "RESOURCE_GROUPS":
                slots.setdefault(suite, set()).update(need["slots"] for group in prop["value"]
                                                      for need in group["requirements"])
    share = int(facts(prefix)["TDC_GPU_PERCENT"])
    problems.expect(slots.get("loopback:memory") == {100} and slots.get("loopback:placement") == {share},
                    f"installed claims: loopback:memory {slots.get('loopback:memory')}, loopback:placement "
                    f"{slots.get('loopback:placement')}; expected {{100}} and {{{share}}} (exit {done.returncode})")


def fake_manifest(folder, name, text):
    path = os.path.join(folder, "share", "tdc", "suites.d", f"{name}.cmake")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(path))))


def extra_suites(prefix, state, work, problems):
    """TDC_EXTRA_SUITES items that are not a vendor install, or suites built
    against another TDC series or LibTorch, or named like TDC's own, are
    failing TdcConfiguration entries that say why."""
    known = facts(prefix)
    fakes = os.path.join(work, "fakes")
    shutil.rmtree(fakes, ignore_errors=True)
    package = ('tdc_installed_package(NAME {name} VERSION "1.0" TDC_VERSION "{tdc}" TORCH_VERSION "{torch}" '
               'TORCH_VARIANT "{variant}")\n'
               'tdc_installed_suite(NAME {suite} PROGRAM tdc_{suite} TWIN "" LABELS conformance {suite} '
               'KNOWN_FAILURES "" LEVELS "")\n')
    cases = [
        (os.path.join(fakes, "nothing-here"), "TdcConfiguration.TDC_EXTRA_SUITES.1",
         "is neither a prefix with share/tdc/suites.d"),
        (fake_manifest(os.path.join(fakes, "old"), "old", package.format(
            name="old", tdc="0.0.1", torch=known["TDC_TORCH_VERSION"], variant=known["TDC_TORCH_VARIANT"],
            suite="oldsuite")), "TdcConfiguration.tdc_oldsuite", "was built against TDC 0.0.1"),
        (fake_manifest(os.path.join(fakes, "torch"), "othertorch", package.format(
            name="othertorch", tdc=known["TDC_VERSION"], torch="0.1.0", variant="cpu", suite="othersuite")),
         "TdcConfiguration.tdc_othersuite", "was built against LibTorch 0.1.0"),
        (fake_manifest(os.path.join(fakes, "twice"), "twice", package.format(
            name="twice", tdc=known["TDC_VERSION"], torch=known["TDC_TORCH_VERSION"],
            variant=known["TDC_TORCH_VARIANT"], suite="placement")),
         "TdcConfiguration.tdc_placement.twice", "is installed twice"),
    ]
    for item, entry, message in cases:
        env = environment(TDC_EXTRA_SUITES=item)
        done, _ = tdc(prefix, f"--state-dir={state}", "ctest", "-R", f"^{re.escape(entry)}$",
                      "--output-on-failure", env=env, timeout=900)
        ran = re.search(r"Test +#\d+: " + re.escape(entry) + r" \.+\*+Failed", done.stdout)
        problems.expect(ran and message in done.stdout and done.returncode != 0,
                        f"TDC_EXTRA_SUITES={item}: no failing {entry} saying '{message}' "
                        f"(exit {done.returncode}: {last_lines(done, 10)})")
        print(f"TDC_EXTRA_SUITES={os.path.relpath(item, work)}: {entry} {'fails' if ran else 'MISSING'}")


# --- deb ------------------------------------------------------------------

def deb(args, problems):
    root = os.path.join(args.work, "debroot")
    shutil.rmtree(root, ignore_errors=True)
    packages = glob.glob(os.path.join(args.work, "packages", "*.deb"))
    if not problems.expect(len(packages) == 1, f"expected one .deb in {args.work}/packages, found {packages}"):
        return
    done, _ = run(["dpkg", "-x", packages[0], root])
    if not problems.expect(done.returncode == 0, f"dpkg -x exited {done.returncode}: {last_lines(done)}"):
        return
    prefix = os.path.join(root, "usr")
    before = snapshot(root)
    state, results = os.path.join(args.work, "deb-state"), os.path.join(args.work, "deb-results")
    for folder in (state, results):
        shutil.rmtree(folder, ignore_errors=True)
    done, seconds = tdc(prefix, f"--state-dir={state}", "run", "--level=1", f"--results={results}", "--quiet",
                        timeout=900)
    print(f"level 1 from the .deb: exit {done.returncode} in {seconds:.1f} s")
    if not problems.expect(done.returncode == 0, f"level 1 from the .deb exited {done.returncode}: "
                           f"{last_lines(done)}"):
        return
    summary = read_summary(results)
    problems.expect(summary["totals"]["failed"] == 0 and summary["totals"]["passed"] > 0,
                    f"level 1 from the .deb: {summary['totals']}")
    with open(os.path.join(prefix, "share", "tdc", "suites", "mustpass", "level1.txt"), encoding="utf-8") as f:
        mustpass = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    checks = {t["check"] for t in summary["tests"]}
    missing = [c for c in mustpass if c not in checks and c != "DeviceExpectation.IsPresent"]
    problems.expect(not missing, f"level 1 from the .deb lacks {missing}")
    health_out = os.path.join(args.work, "deb-health")
    shutil.rmtree(health_out, ignore_errors=True)
    done, seconds = tdc(prefix, f"--state-dir={state}", "health", f"--out={health_out}",
                        f"--budget={BUDGET}", timeout=TIMEOUT)
    verdict = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    problems.expect(done.returncode == 0 and verdict.get("verdict") == "healthy",
                    f"tdc health from the .deb: exit {done.returncode}, {verdict.get('verdict')}: {last_lines(done)}")
    print(f"health from the .deb: {verdict.get('verdict')} in {seconds:.1f} s")
    package_and_verify(prefix, results, os.path.join(args.work, "deb-packages"), problems, source_dirty(prefix))
    compare_snapshots(before, snapshot(root), f"the .deb's root {root}", problems)


# --- vendor ---------------------------------------------------------------

def ro_prefix(work):
    found = [p for p in glob.glob(os.path.join(work, "ro", "tdc-*")) if os.path.isdir(p)]
    return found[0] if len(found) == 1 else None


def make_writable(folder):
    for root, dirs, files in os.walk(folder):
        for name in dirs + files + [""]:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, os.lstat(path).st_mode | stat.S_IWUSR)


def make_read_only(folder):
    for root, dirs, files in os.walk(folder):
        for name in dirs + files + [""]:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) & ~0o222)


def vendor(args, problems):
    ro = os.path.join(args.work, "ro")
    if os.path.isdir(ro):
        make_writable(ro)
        shutil.rmtree(ro)
    os.makedirs(ro)
    tarballs = glob.glob(os.path.join(args.work, "packages", "*.tar.gz"))
    if not problems.expect(len(tarballs) == 1, f"expected one .tar.gz in {args.work}/packages, found {tarballs}"):
        return
    with tarfile.open(tarballs[0]) as tar:
        tar.extractall(ro)
    prefix = ro_prefix(args.work)
    if not problems.expect(prefix, f"the tarball holds no single tdc-* folder: {os.listdir(ro)}"):
        return
    build = os.path.join(args.work, "acme-build")
    shutil.rmtree(build, ignore_errors=True)
    configure = ["cmake", "-S", os.path.join(args.source, "examples", "vendor-suite"), "-B", build,
                 f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release"]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    if shutil.which("ccache"):
        configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
    done, seconds = run(configure, timeout=600)
    if not problems.expect(done.returncode == 0, f"configuring the vendor example: {last_lines(done, 10)}"):
        return
    done, seconds = run(["cmake", "--build", build, "-j", os.environ.get("TDC_JOBS", "2")], timeout=1800)
    print(f"vendor example built against the installed TDC in {seconds:.1f} s")
    if not problems.expect(done.returncode == 0, f"building the vendor example: {last_lines(done, 10)}"):
        return
    # Its own build tree registers its suite as TDC's are: its level-1 check labelled so.
    done, _ = run(["ctest", "--test-dir", build, "-N", "-L", "level1"], timeout=600)
    problems.expect(f"{VENDOR}.level1@" in done.stdout and f"loopback:{VENDOR}.level1@" in done.stdout,
                    f"the vendor build's ctest has no level-1 entries: {last_lines(done)}")
    if args.other_torch_dir:
        mismatch = os.path.join(args.work, "acme-mismatch")
        shutil.rmtree(mismatch, ignore_errors=True)
        other = configure[:]
        other[other.index(build)] = mismatch
        done, _ = run(other + [f"-DTorch_DIR={args.other_torch_dir}"], timeout=600)
        built = facts(prefix)["TDC_TORCH_VERSION"]
        lines = [l for l in done.stderr.splitlines() if f"built against LibTorch {built}" in l]
        problems.expect(done.returncode != 0 and len(lines) == 1 and "this project found LibTorch" in lines[0],
                        f"configuring against {args.other_torch_dir}: exit {done.returncode}, no one line naming "
                        f"both LibTorch builds: {last_lines(done)}")
        print(f"configure against another LibTorch: exit {done.returncode}: {lines[0].strip() if lines else '?'}")
    else:
        print("configure against another LibTorch: not checked (no other LibTorch on this host)")
    done, _ = run(["cmake", "--install", build, "--prefix", os.path.join(ro, VENDOR)])
    problems.expect(done.returncode == 0, f"installing the vendor example: {last_lines(done)}")
    problems.expect(os.path.isfile(os.path.join(ro, VENDOR, "share", "tdc", "suites.d", "acme_tdc_checks.cmake")),
                    "the vendor install has no manifest")
    make_read_only(ro)


# --- readonly -------------------------------------------------------------

def loopback_env(prefix, **changes):
    return environment(TDC_EXTRA_SUITES=os.path.join(os.path.dirname(prefix), VENDOR),
                       TDC_BACKEND_LIBS=os.path.join(prefix, "lib", "tdc", "libtdc_loopback.so"),
                       TDC_EXPECT="privateuseone:2", **changes)


def readonly(args, problems):
    prefix = ro_prefix(args.work)
    if not problems.expect(prefix, "no read-only prefix (the vendor step did not run)"):
        return
    ro = os.path.dirname(prefix)
    before = snapshot(ro)
    problems.expect(all(not s[3] & 0o222 for s in before.values() if s[0] != stat.S_IFLNK),
                    f"{ro} is not read-only")
    state, results = os.path.join(args.work, "ro-state"), os.path.join(args.work, "ro-results")
    for folder in (state, results):
        shutil.rmtree(folder, ignore_errors=True)
    # Level 2 as a vendor runs it on their backend: the plain entries, on the
    # CPU and the loopback's two devices (the twins are the build's own reference).
    # --selection=vendor keeps the vendor's entries only: on the builds after
    # the first, whose own ctest has just run the installed binaries' checks,
    # what another LibTorch changes is the vendor suite built on the tarball.
    selection = ["-LE", "loopback"] + (["-R", "^acme[.@]"] if args.selection == "vendor" else [])
    done, seconds = tdc(prefix, f"--state-dir={state}", "run", "--level=2", f"--results={results}", "--quiet",
                        "--", *selection, env=loopback_env(prefix), timeout=2700)
    print(f"level 2 ({args.selection} entries) on the loopback from the read-only prefix: exit {done.returncode} "
          f"in {seconds:.1f} s")
    if not problems.expect(done.returncode == 0, f"level 2 exited {done.returncode}: {last_lines(done, 10)}"):
        if os.path.isfile(os.path.join(results, "summary.json")):
            failed = [t["name"] for t in read_summary(results)["tests"] if t["status"] == "failed"]
            print(f"failed: {failed[:10]}")
        return
    summary = read_summary(results)
    by_name = {t["name"]: t for t in summary["tests"]}
    named = args.backend_name  # the loopback's device name on this build
    for device in ("cpu", f"{named}_0", f"{named}_1"):
        test = by_name.get(f"{VENDOR_CHECKS[0]}/{device}")
        problems.expect(test and test["status"] == "passed", f"summary.json: {VENDOR_CHECKS[0]}/{device}: "
                        f"{test and test['status']}")
    for device in (f"{named}_0", f"{named}_1"):
        test = by_name.get(f"{VENDOR_CHECKS[1]}/{device}")
        problems.expect(test and test["status"] == "passed", f"summary.json: {VENDOR_CHECKS[1]}/{device}: "
                        f"{test and test['status']}")
    waived = by_name.get(f"{VENDOR_CHECKS[1]}/cpu")
    problems.expect(waived and waived["status"] == "known_failure" and "acme_tdc_checks/known_failures.txt"
                    in waived["message"], f"summary.json: {VENDOR_CHECKS[1]}/cpu is not waived by the vendor's "
                    f"file: {waived and (waived['status'], waived['message'][:160])}")
    vendor_tests = [n for n in by_name if n.split(".")[0] in ("AcmeCopies", "AcmeStreams")]
    print(f"summary.json: {len(summary['tests'])} results, {len(vendor_tests)} of the vendor's; "
          f"{summary['totals']}")
    package, _ = package_and_verify(prefix, results, os.path.join(args.work, "ro-packages"), problems,
                                    source_dirty(prefix), partial=args.selection == "vendor")
    if package:
        with tarfile.open(package) as tar:
            members = tar.getnames()
            waivers = json.load(tar.extractfile(next(m for m in members if m.endswith("/waivers.json"))))
            xml = [m for m in members if "/gtest/" in m and m.endswith(".xml")]
            with_vendor = [m for m in xml if b"AcmeCopies" in tar.extractfile(m).read()]
        problems.expect(with_vendor, "the package holds no GoogleTest XML of the vendor's checks")
        problems.expect(any(w["test"] == f"{VENDOR_CHECKS[1]}/cpu" and w["tracker"] for w in waivers["waivers"]),
                        f"the package's waivers.json lacks the vendor's waiver: {waivers['waivers'][:3]}")
        print(f"package: {len(with_vendor)} GoogleTest XML file(s) with the vendor's checks; "
              f"{len(waivers['waivers'])} waiver(s)")
    compare_snapshots(before, snapshot(ro), f"the read-only prefixes under {ro}", problems)


# --- faults ---------------------------------------------------------------

def faults(args, problems):
    prefix = ro_prefix(args.work)
    if not problems.expect(prefix, "no read-only prefix (the vendor step did not run)"):
        return
    state = os.path.join(args.work, "fault-state")
    shutil.rmtree(state, ignore_errors=True)
    # corrupt-copy breaks the vendor's level-1 check, and the verifier names it.
    results = os.path.join(args.work, "fault-results-corrupt-copy")
    shutil.rmtree(results, ignore_errors=True)
    done, _ = tdc(prefix, f"--state-dir={state}", "run", "--level=1", f"--results={results}", "--quiet",
                  env=loopback_env(prefix, TDC_LOOPBACK_FAULT="corrupt-copy"), timeout=900)
    broken = f"{VENDOR_CHECKS[0]}/{args.backend_name}_0"
    statuses = {t["name"]: t["status"] for t in read_summary(results)["tests"]} \
        if os.path.isfile(os.path.join(results, "summary.json")) else {}
    problems.expect(done.returncode == 1 and statuses.get(broken) == "failed",
                    f"corrupt-copy: exit {done.returncode}, {broken} {statuses.get(broken)}")
    print(f"corrupt-copy at level 1: exit {done.returncode}, {broken} {statuses.get(broken)}")
    if statuses:
        made, _ = tdc(prefix, "package", results, "--product=fault", "--submitter=self-test",
                      f"--out={os.path.join(args.work, 'fault-packages')}")
        checked, _ = tdc(prefix, "verify", made.stdout.strip().splitlines()[-1]) if made.returncode == 0 else (made, 0)
        named = [l for l in checked.stdout.splitlines() if l.startswith(f"problem: failed check: {broken}")]
        problems.expect(checked.returncode == 1 and named, f"verify of the corrupt-copy package: exit "
                        f"{checked.returncode}, does not name {broken}: {last_lines(checked)}")
        print(f"verify names it: {named[0] if named else 'NO'}")
    # stream-alias breaks the other one (its cpu instance stays waived).
    results = os.path.join(args.work, "fault-results-stream-alias")
    shutil.rmtree(results, ignore_errors=True)
    done, _ = tdc(prefix, f"--state-dir={state}", "run", "--level=2", "--labels=^acme$", f"--results={results}",
                  "--quiet", env=loopback_env(prefix, TDC_LOOPBACK_FAULT="stream-alias",
                                              TDC_CHECKS=f"{VENDOR_CHECKS[1]}/*"), timeout=900)
    statuses = {t["name"]: t["status"] for t in read_summary(results)["tests"]} \
        if os.path.isfile(os.path.join(results, "summary.json")) else {}
    broken = f"{VENDOR_CHECKS[1]}/{args.backend_name}_1"
    problems.expect(done.returncode == 1 and statuses.get(broken) == "failed"
                    and statuses.get(f"{VENDOR_CHECKS[1]}/cpu") == "known_failure",
                    f"stream-alias: exit {done.returncode}, {statuses}")
    print(f"stream-alias: exit {done.returncode}, {broken} {statuses.get(broken)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=["prefix", "layout", "deb", "vendor", "readonly", "faults"])
    parser.add_argument("--work", required=True, help="the install self-tests' own folder")
    parser.add_argument("--build-dir", help="the TDC build")
    parser.add_argument("--source", help="TDC's source tree")
    parser.add_argument("--backend-name", default="loopback",
                        help="the loopback's device name on this build (privateuseone on LibTorch 1.13)")
    parser.add_argument("--other-torch-dir", default="", help="another LibTorch's Torch_DIR, for the mismatch")
    parser.add_argument("--selection", choices=["all", "vendor"], default="all",
                        help="readonly: level 2's entries, or the vendor's only")
    args = parser.parse_args()
    args.work = os.path.abspath(args.work)
    needs = {"prefix": ["build_dir"], "layout": ["build_dir", "source"], "vendor": ["source"]}
    for name in needs.get(args.step, []):
        if not getattr(args, name):
            print(f"install_checks.py {args.step}: --{name.replace('_', '-')} is required", file=sys.stderr)
            return 2
    problems = Problems()
    {"prefix": make_prefix, "layout": layout, "deb": deb, "vendor": vendor, "readonly": readonly,
     "faults": faults}[args.step](args, problems)
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
