#!/usr/bin/env python3
"""Plays the vendor of README.md's "Qualifying your own backend": runs that
section's commands as written, with the vendor's library replaced by
libtdc_altdev.so (the loopback sources built under the name "altdev"), and
checks that they qualify it: every plain entry that runs on altdev passes,
the loopback twins are untouched by the vendor's settings, device_select
names the backend. The commands are read from README.md, so the document
cannot drift from what works. Then the vendor rebuilds the library in place
(stale-library scenario): ctest must rediscover instead of running an old
list that matches no test. Last, a typo in TDC_EXPECT under ctest must give
the one-line reason and a failing JUnit entry, not a CMake error block.

  vendor_recipe.py --build-dir BUILD --backend-name altdev|privateuseone

Exit status: 0 the recipe qualifies the backend, 1 it does not, 2 bad input."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from tdc import ROOT, junit

README_SECTION = "## Qualifying your own backend"
VENDOR_LIBRARY = "/opt/vendor/libmybackend.so"
# The vendor's c10d plugin: for altdev (the loopback's sources under another
# name) the loopback's own c10d library, which serves the PrivateUse1 type of
# a loaded loopback, whatever it is called.
VENDOR_C10D_LIBRARY = "/opt/vendor/libmybackend_c10d.so"
VENDOR_NAME = "mybackend"
VENDOR_BUILD = "build/conformance-python"


def recipe_commands(readme):
    """The shell lines of the section's first ```sh block, comments dropped."""
    with open(readme) as f:
        text = f.read()
    if README_SECTION not in text:
        raise SystemExit(f"vendor_recipe.py: README.md has no '{README_SECTION}' section")
    section = text.split(README_SECTION, 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    if not block:
        raise SystemExit("vendor_recipe.py: the vendor section has no ```sh block")
    lines = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line]


def verdicts(path):
    """{name: status} by the one rule (tdc.junit), <error> included."""
    return junit.statuses(junit.read(path))


def run_recipe(commands, build_dir, library, name, workdir):
    """Runs the README's lines in one shell; the build line is the one
    ci/selftest already did, so it is checked to be there and skipped."""
    script = []
    build_lines = [c for c in commands if c.startswith("ci/conformance")]
    if len(build_lines) != 1:
        return None, f"expected one ci/conformance build line in the recipe, found {build_lines}"
    for command in commands:
        if command in build_lines:
            continue
        command = command.replace(VENDOR_C10D_LIBRARY, os.path.join(build_dir, "lib", "libtdc_c10d_loopback.so"))
        command = command.replace(VENDOR_LIBRARY, library).replace(VENDOR_BUILD, build_dir)
        if command.startswith(("ci/", "bin/")):  # the tree's own tools, from wherever it is run
            command = os.path.join(ROOT, command)
        command = command.replace(f"{VENDOR_NAME}:", f"{name}:")
        script.append(command)
    run = subprocess.run(["bash", "-c", "\n".join(script)], cwd=workdir, capture_output=True,
                         text=True, timeout=1800)
    return run, "\n".join(script)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--backend-name", required=True,
                        help="the name the altdev library shows as: altdev, or privateuseone on 1.13")
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build_dir)
    altdev = os.path.join(build_dir, "lib", "libtdc_altdev.so")
    loopback = os.path.join(build_dir, "lib", "libtdc_loopback.so")
    for path in (altdev, loopback):
        if not os.path.exists(path):
            print(f"vendor_recipe.py: {path} is missing (build the project first)", file=sys.stderr)
            return 2
    commands = recipe_commands(args.readme)
    problems = []
    env_keys = ("TDC_BACKEND_LIBS", "TDC_EXPECT", "TDC_DEVICES", "TDC_LOOPBACK_FAULT")
    clean_env = {k: v for k, v in os.environ.items() if k not in env_keys}
    os.environ.clear()
    os.environ.update(clean_env)
    with tempfile.TemporaryDirectory() as workdir:
        library = os.path.join(workdir, "libmybackend.so")
        shutil.copyfile(altdev, library)
        run, script = run_recipe(commands, build_dir, library, args.backend_name, workdir)
        if run is None:
            print("FAILED:", script)
            return 1
        print("ran the README's recipe:\n  " + script.replace("\n", "\n  "))
        # The recipe's run leaves its results where it was run.
        report = os.path.join(workdir, "vendor-results", "junit.xml")
        if run.returncode != 0:
            problems.append(f"the recipe exited {run.returncode}")
        if not os.path.exists(report):
            problems.append("the recipe left no vendor-results/junit.xml")
        else:
            result = verdicts(report)
            on_vendor = {n: v for n, v in result.items()
                         if re.search(rf"/{args.backend_name}_[01](_|$)", n) and not n.startswith("loopback:")}
            twins = {n: v for n, v in result.items() if n.startswith("loopback:")}
            failed = sorted(n for n, v in result.items() if v == "failed")
            print(f"{len(result)} entries: {len(on_vendor)} on {args.backend_name}, {len(twins)} loopback twins, "
                  f"{len(failed)} failed")
            # A skip on the vendor's device is honest only where the same
            # check skipped on the loopback twin too: then it is the build
            # (a dtype this LibTorch has no kernel for), not the backend.
            # The twin of altdev_1's check is loopback:...loopback_1's.
            def twin_of(n):
                return "loopback:" + re.sub(rf"/{args.backend_name}_([01])", r"/loopback_\1", n)
            not_passed = {n: v for n, v in on_vendor.items()
                          if v != "passed" and not (v == "skipped" and twins.get(twin_of(n)) == "skipped")}
            if len(on_vendor) < 10 or not_passed:
                problems.append(f"checks on {args.backend_name}_0/_1 did not all run and pass "
                                f"({len(on_vendor)} ran): {not_passed}")
            if not any(n.endswith(f"DeviceExpectation.IsPresent/{args.backend_name}_at_least_2") and v == "passed"
                       for n, v in result.items()):
                problems.append(f"DeviceExpectation.IsPresent/{args.backend_name}_at_least_2 did not pass")
            if len(twins) < 10 or failed:
                problems.append(f"failed entries (twins included): {failed}")
        if f"selected_device={args.backend_name}" not in run.stdout:
            problems.append(f"device_select did not select {args.backend_name}")

        # The vendor rebuilds the library in place; here it becomes another
        # backend (the loopback), so the old list matches no test any more.
        # The environment stays the same: only the library's identity changed.
        # One entry per check (TDC_ISOLATE=check): entries named as the checks.
        env = dict(os.environ, TDC_BACKEND_LIBS=library, TDC_ISOLATE="check")
        list_command = ["ctest", "--test-dir", build_dir, "-N", "-L", "placement", "-LE", "loopback"]
        before = subprocess.run(list_command, env=env, capture_output=True, text=True, timeout=600).stdout
        if f"/{args.backend_name}_0" not in before:
            problems.append(f"stale library: {args.backend_name}_0 not listed before the rebuild")
        shutil.copyfile(loopback, library)
        listed = subprocess.run(list_command, env=env, capture_output=True, text=True, timeout=600).stdout
        new_name = "privateuseone" if args.backend_name == "privateuseone" else "loopback"
        if args.backend_name != new_name and f"/{args.backend_name}_0" in listed:
            problems.append("stale library: ctest kept the test list of the library it replaced")
        if f"/{new_name}_0" not in listed:
            problems.append(f"stale library: the rebuilt library's devices ({new_name}_0) are not listed")
        stale = subprocess.run(["ctest", "--test-dir", build_dir, "-L", "placement", "-LE", "loopback",
                                "-R", f"/{new_name}_0"], env=env, capture_output=True, text=True, timeout=600)
        if stale.returncode != 0 or "tests passed" not in stale.stdout:
            problems.append("stale library: the rediscovered checks did not run and pass:\n" + stale.stdout[-2000:])

        # A vendor's typo under ctest: one line, a failing entry in the JUnit,
        # no CMake error block.
        report = os.path.join(workdir, "typo.xml")
        typo = subprocess.run(["ctest", "--test-dir", build_dir, "-L", "selection", "-LE", "loopback",
                               "--output-on-failure", "--output-junit", report],
                              env=dict(os.environ, TDC_EXPECT="cuda:x"), capture_output=True, text=True,
                              timeout=600)
        typo_output = typo.stdout + typo.stderr
        if typo.returncode == 0:
            problems.append("TDC_EXPECT=cuda:x under ctest: the run passed")
        if "CMake Error" in typo_output:
            problems.append("TDC_EXPECT=cuda:x under ctest: a CMake error block:\n" + typo_output[-3000:])
        if "TDC_EXPECT: 'cuda:x'" not in typo_output:
            problems.append("TDC_EXPECT=cuda:x under ctest: the one-line reason is not shown")
        if not os.path.exists(report) or verdicts(report).get("TdcConfiguration.tdc_selection") != "failed":
            problems.append("TDC_EXPECT=cuda:x under ctest: no failing TdcConfiguration.tdc_selection in the JUnit")

    if problems:
        print(run.stdout[-6000:] + run.stderr[-3000:])
        for problem in problems:
            print("FAILED:", problem)
        return 1
    print("ok: the README's vendor recipe qualifies a backend named "
          f"{args.backend_name}; a library rebuilt in place is rediscovered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
