"""A node-private run tree of a shared build.

ctest writes into the build folder it runs: each suite's discovered test list
(rediscovered whenever the devices or TDC_* settings differ), the CTest
resources, GoogleTest's XML under ctest-gtest/ (ci/conformance's under results/), Testing/. Tasks on several
nodes that run one shared build at once would overwrite each other's lists
and results. A run tree is what ctest needs of the build, in a folder of the
node's own: the CTest scripts and CMake's cache copied with the build's path
rewritten to the tree's, every binary and library a symbolic link to the
shared build (nothing is rebuilt or copied large), modification times kept
(the discovery freshness checks compare them). A tree is made again when the
build it came from changed.

  python3 -m tdc.fleet.run_tree BUILD DEST     prints DEST; exit 0, or 2 with one line
"""
import fcntl
import json
import os
import re
import shutil
import sys

STAMP = ".tdc-run-tree.json"
# Build outputs ctest never reads; run-time state of the shared build's own
# runs (ci/conformance's results, the self-tests' install prefix, which
# selftest.install.* remake while other entries run).
SKIPPED_DIRS = {"Testing", "results", "ctest-gtest", "selftest-install"}
SKIPPED_SUFFIXES = (".o", ".a", ".d", ".gch", ".pch", ".ninja", ".ninja_log", ".ninja_deps")


class RunTreeError(Exception):
    pass


def _is_binary(path):
    with open(path, "rb") as f:
        head = f.read(4096)
    return head.startswith(b"\x7fELF") or b"\0" in head


def source_stamp(build):
    """What the tree depends on: the cache and every binary and library (path,
    size, modification time). A rebuild in place changes it."""
    entries = []
    for folder in ("bin", "lib"):
        base = os.path.join(build, folder)
        for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
            info = os.stat(os.path.join(base, name))
            entries.append([f"{folder}/{name}", info.st_size, info.st_mtime_ns])
    cache = os.stat(os.path.join(build, "CMakeCache.txt"))
    return {"source": build, "cache_mtime_ns": cache.st_mtime_ns, "files": entries}


def _rewrite(text, build, dest):
    # The build's path only where it is a whole path component.
    return re.sub(re.escape(build) + r"(?=[/\"'\]\[;:\s)]|$)", lambda _: dest, text)


def _populate(build, dest):
    for folder, dirs, files in os.walk(build):
        relative = os.path.relpath(folder, build)
        dirs[:] = [d for d in dirs if not d.endswith(".dir")
                   and not (relative == "." and d in SKIPPED_DIRS)]
        target_dir = os.path.join(dest, relative)
        os.makedirs(target_dir, exist_ok=True)
        for name in files:
            if name.endswith(SKIPPED_SUFFIXES) or name == STAMP:
                continue
            source = os.path.join(folder, name)
            target = os.path.join(target_dir, name)
            if os.path.islink(source) or not os.path.isfile(source):
                continue
            try:
                _place(source, target, relative, build, dest)
            except FileNotFoundError:
                # Gone between the listing and the copy: run-time state of a
                # run of the shared build, which this tree does not need.
                continue


def _place(source, target, relative, build, dest):
    if relative.split(os.sep)[0] in ("bin", "lib") or _is_binary(source):
        os.symlink(source, target)
        return
    with open(source, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    with open(target, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(_rewrite(text, build, dest))
    shutil.copystat(source, target)


def prepare(build, dest):
    """DEST as a run tree of BUILD, made (again) unless it is current."""
    build, dest = os.path.abspath(build), os.path.abspath(dest)
    if not os.path.isfile(os.path.join(build, "CTestTestfile.cmake")) or \
            not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        raise RunTreeError(f"no TDC build at '{build}' (no CTestTestfile.cmake / CMakeCache.txt)")
    if dest == build or dest.startswith(build + os.sep):
        raise RunTreeError(f"run tree '{dest}' must lie outside the build '{build}'")
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a health check and a job's prolog on one node
        stamp = source_stamp(build)
        try:
            with open(os.path.join(dest, STAMP)) as f:
                if json.load(f) == stamp:
                    return dest
        except (OSError, ValueError):
            pass
        shutil.rmtree(dest, ignore_errors=True)
        _populate(build, dest)
        with open(os.path.join(dest, STAMP), "w") as f:
            json.dump(stamp, f)
    return dest


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("run_tree: usage: python3 -m tdc.fleet.run_tree BUILD DEST", file=sys.stderr)
        return 2
    try:
        print(prepare(argv[0], argv[1]))
    except (RunTreeError, OSError) as error:
        print(f"run_tree: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
