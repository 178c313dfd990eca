"""context: writes context.json, what a reviewer needs to know about the run
that made a results folder. Host, OS, kernel, CPU; compiler, CMake,
GoogleTest and Google Benchmark versions; LibTorch's version and build
configuration; every device with the identity its backend exposes
(bin/tdc_context); the environment variables that change which tests exist
(cmake/discovery-environment.txt); the sustained run's seconds
(TDC_SUSTAINED_SECONDS, as the suites read it); the suite's git commit, whether the tree
was dirty, its suite version, the command line, and the run's id (which
summary.json and the verdict repeat, so a file from another run is told apart).

  tdc context --build-dir BUILD --out FILE [--level N] [--command-line TEXT] [--run-id ID]
Exit status 0, or 2 with one line when the build cannot describe itself."""
import datetime
import functools
import glob
import hashlib
import json
import os
import platform
import re
import secrets
import socket
import subprocess

from tdc import ROOT, cli, cmake_cache, discovery_env, results, source
from tdc.fleet.allocation import slurm_context


def output(command, cwd=None):
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=cwd)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return run.stdout.strip() if run.returncode == 0 else None


def first_line(text):
    return text.splitlines()[0] if text else None


def package_version(config_dir, name):
    """PACKAGE_VERSION from a CMake package's version file, if found."""
    for path in glob.glob(os.path.join(config_dir or "/nonexistent", f"*{name}*ersion.cmake")):
        with open(path, encoding="utf-8", errors="replace") as f:
            match = re.search(r'set\(PACKAGE_VERSION "([^"]+)"\)', f.read())
        if match:
            return match.group(1)
    return None


def os_release():
    try:
        with open("/etc/os-release") as f:
            fields = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
        return fields.get("PRETTY_NAME", "").strip('"')
    except OSError:
        return platform.platform()


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def compiler(build_dir, cache):
    files = glob.glob(os.path.join(build_dir, "CMakeFiles", "*", "CMakeCXXCompiler.cmake"))
    info = {"path": cache.get("CMAKE_CXX_COMPILER"), "launcher": cache.get("CMAKE_CXX_COMPILER_LAUNCHER")}
    if files:
        with open(files[0], encoding="utf-8", errors="replace") as f:
            text = f.read()
        for key in ("CMAKE_CXX_COMPILER_ID", "CMAKE_CXX_COMPILER_VERSION"):
            match = re.search(rf'set\({key} "([^"]*)"\)', text)
            info[key.replace("CMAKE_CXX_COMPILER_", "").lower()] = match.group(1) if match else None
    return info


def devices(build_dir, extra_args, env=None, timeout=120):
    """bin/tdc_context's JSON (in ENV, default this process's), or an error
    entry: a broken backend is recorded, not fatal."""
    binary = os.path.join(build_dir, "bin", "tdc_context")
    try:
        run = subprocess.run([binary, *extra_args], capture_output=True, text=True, timeout=timeout, env=env)
    except (OSError, subprocess.TimeoutExpired) as error:
        return {"error": f"{binary}: {error}"}
    if run.returncode != 0:
        lines = [l for l in run.stderr.splitlines() if l.strip()]
        return {"error": lines[-1] if lines else f"tdc_context exited {run.returncode}"}
    try:
        found = json.loads(run.stdout)
    except ValueError as error:
        return {"error": f"tdc_context printed no JSON ({error})"}
    return found if isinstance(found, dict) else {"error": "tdc_context printed no JSON object"}


@functools.lru_cache(maxsize=None)
def suite_version():
    """The project version (VERSION, in a tree and in an installed TDC) plus
    a digest of the committed mustpass lists; ci/verify decides by the
    version (tdc.versioning). Read once per
    process: a fleet merge asks for every package."""
    digest = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(ROOT, "suites", "mustpass", "level*.txt"))):
        with open(path, "rb") as f:
            digest.update(os.path.basename(path).encode() + b"\0" + f.read())
    try:
        with open(os.path.join(ROOT, "VERSION"), encoding="utf-8") as f:
            version = f.read().strip()
    except OSError:
        version = "0"
    return f"{version or '0'}+{digest.hexdigest()[:12]}"


def new_run_id():
    """<UTC time>-<random>: unique per run, sortable, no host name in it."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{secrets.token_hex(4)}"


def describe(build_dir, level=None, command_line="", run_id=None):
    """The context document (unstamped)."""
    cache = cmake_cache.read(build_dir)
    loopback = os.path.join(build_dir, "lib", "libtdc_loopback.so")
    host_devices = devices(build_dir, [])
    # tdc_context's "settings": what the run used (TDC_SUSTAINED_SECONDS as
    # the suites read it, its default included), not the raw environment.
    settings = host_devices.pop("settings", None)
    settings = settings if isinstance(settings, dict) else {}
    return {
        "run_id": run_id or new_run_id(),
        "host": socket.gethostname(),
        "os": os_release(),
        "kernel": f"{platform.system()} {platform.release()} {platform.version()}",
        "cpu": {"model": cpu_model(), "logical_cores": os.cpu_count()},
        "compiler": compiler(build_dir, cache),
        "cmake": first_line(output(["cmake", "--version"]) or ""),
        "gtest_version": package_version(cache.get("GTest_DIR"), "GTest"),
        "benchmark_version": package_version(cache.get("benchmark_DIR"), "benchmark"),
        "torch_dir": cache.get("Torch_DIR"),
        "build_type": cache.get("CMAKE_BUILD_TYPE"),
        "devices": host_devices,
        "loopback_devices": devices(build_dir, [f"--backend-lib={loopback}"])
        if os.path.exists(loopback) else None,
        "environment": discovery_env.of(os.environ),
        "expect": os.environ.get("TDC_EXPECT", ""),
        "sustained_seconds": settings.get("sustained_seconds"),
        "git": source.state(),  # asked now, at the run: tdc.source
        "suite_version": suite_version(),
        "level": level,
        "command_line": command_line,
        # The Slurm job and its GPUs: job-local index to global index and identity.
        "slurm": slurm_context(os.environ, host_devices),
    }


def parser():
    p = cli.Parser("context", __doc__)
    p.add_argument("--build-dir", required=True, help="the configured, built tree")
    p.add_argument("--out", required=True, help="context.json to write")
    p.add_argument("--level", type=cli.whole(1, 3), help="the level the run is (1, 2 or 3)")
    p.add_argument("--command-line", default="", help="the user's command, as typed")
    p.add_argument("--run-id", help="the run's id (default: a new one)")
    return p


def context(argv):
    args = parser().parse_args(argv)
    results.write(args.out, describe(args.build_dir, args.level, args.command_line, args.run_id),
                  "context")
    return 0


def main(argv=None):
    return cli.run_main("context", context, argv)
