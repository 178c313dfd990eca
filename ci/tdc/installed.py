"""ctest-tree: prepares the ctest tree an installed TDC runs in, under the
user's state folder, and prints its path (bin/tdc passes it as --build-dir).

  python3 -m tdc ctest-tree [--state-dir DIR]

An installed TDC (cmake --install, the .deb, the .tar.gz; docs/install.md)
never writes into its prefix, which may be read-only or shared over NFS.
Everything a run writes besides its results goes to the state folder:
--state-dir, else TDC_STATE_DIR, else $XDG_CACHE_HOME/tdc/state (default
~/.cache/tdc/state). There, tree-<digest of the prefix>/ holds
  CTestTestfile.cmake  includes <prefix>/share/tdc/cmake/TdcInstalledTests.cmake,
                       which declares the installed suites (and TDC_EXTRA_SUITES')
  CMakeCache.txt       the build's facts (share/tdc/build), with this prefix
  bin, lib, CMakeFiles links to <prefix>/libexec/tdc, lib/tdc, share/tdc/build/CMakeFiles
and, once ctest ran, the cached test lists, batch lists, resource specs,
the waiver memo and ctest's Testing/. The tree is rewritten on every call
(whole files, renamed into place), so the prefix may move between runs.
Exit status 0, or 2 with one line: not an installed TDC, a state folder
inside the prefix or not writable, the LibTorch it was built against not
found (install it there, or put its lib folder on LD_LIBRARY_PATH)."""
import glob
import hashlib
import os
import shutil
import sys

from tdc import ROOT, cli, cmake_cache, safeio
from tdc.errors import InputError

FACTS = os.path.join("share", "tdc", "build")


def prefix():
    """The prefix this package is installed under (<prefix>/share/tdc/ci/tdc)."""
    here = os.path.realpath(ROOT)
    found = os.path.dirname(os.path.dirname(here))
    if (os.path.basename(here) != "tdc" or os.path.basename(os.path.dirname(here)) != "share"
            or not os.path.isfile(os.path.join(here, "cmake", "TdcInstalledTests.cmake"))
            or not os.path.isfile(os.path.join(found, FACTS, "CMakeCache.txt"))):
        raise InputError(f"{here} is not an installed TDC (a source tree runs its builds: pass --build-dir)")
    return found


def state_dir(given=None):
    if given is not None:
        if not given.strip():
            raise InputError("--state-dir is empty: name a folder (or leave the option out for "
                             "TDC_STATE_DIR, else $XDG_CACHE_HOME/tdc/state)")
        return os.path.abspath(given)
    if os.environ.get("TDC_STATE_DIR"):
        return os.path.abspath(os.environ["TDC_STATE_DIR"])
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(os.path.abspath(cache), "tdc", "state")


def inside(path, folder):
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def existing_part(path):
    """The longest leading part of path that exists (what realpath can resolve)."""
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path


def check_torch(facts):
    """The LibTorch the programs were linked against is where they will look:
    its recorded folder, or a folder of LD_LIBRARY_PATH (which wins)."""
    recorded = facts.get("TDC_TORCH_LIBRARY_DIR", "")
    folders = [f for f in os.environ.get("LD_LIBRARY_PATH", "").split(":") if f] + [recorded]
    if any(glob.glob(os.path.join(f, "libc10.so*")) for f in folders if f):
        return
    raise InputError(f"LibTorch {facts.get('TDC_TORCH_VERSION')} ({facts.get('TDC_TORCH_VARIANT')}), which this "
                     f"TDC was built against, is not at {recorded} nor on LD_LIBRARY_PATH: install it there, "
                     "or put its lib folder on LD_LIBRARY_PATH")


def replace_file(path, text):
    safeio.write_text(path + ".new", text, "ctest tree file")
    os.replace(path + ".new", path)


def replace_link(path, target):
    partial = f"{path}.new{os.getpid()}"
    if os.path.lexists(partial):
        os.unlink(partial)
    os.symlink(target, partial)
    os.replace(partial, path)


def check_cmake_path(what, path):
    """A path that goes into CMake files (CTestTestfile.cmake, CMakeCache.txt)
    holds no control character (a newline there ends a comment or a cache
    entry: the rest would be read as CMake code) and no ';' (CMake splits a
    list there). InputError, one line, otherwise."""
    odd = next((c for c in path if ord(c) < 32 or ord(c) == 127 or c == ";"), None)
    if odd is not None:
        raise InputError(f"{what} {path!r} holds {odd!r}, which CMake would read as code or split as a list: "
                         "refused (install or name it under a path without one)")


def extra_suites():
    """TDC_EXTRA_SUITES' items (':'-separated), each a path CMake can take."""
    items = [item for item in os.environ.get("TDC_EXTRA_SUITES", "").split(":") if item]
    for index, item in enumerate(items, 1):
        check_cmake_path(f"TDC_EXTRA_SUITES item {index}", item)
    return items


def cmake_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def make_tree(state=None):
    """Writes the ctest tree; returns its path."""
    where = prefix()
    check_cmake_path("the installed TDC's prefix", where)
    state = state_dir(state)
    check_cmake_path("state folder", state)
    extra_suites()
    if inside(existing_part(state), where) or inside(state, where):
        raise InputError(f"state folder {state} is inside the installed TDC at {where}, which is never "
                         "written to: name another (--state-dir, TDC_STATE_DIR)")
    facts = cmake_cache.read(os.path.join(where, FACTS))
    check_torch(facts)
    cmake = shutil.which("cmake")
    if not cmake or not shutil.which("ctest"):
        raise InputError("cmake and ctest are not on PATH: an installed TDC runs its checks with ctest "
                         "(install CMake 3.22 or newer)")
    tree = os.path.join(state, "tree-" + hashlib.sha256(os.fsencode(where)).hexdigest()[:12])
    safeio.ensure_writable_folder(tree, "state folder")
    with open(os.path.join(where, FACTS, "CMakeCache.txt"), encoding="utf-8") as handle:
        replace_file(os.path.join(tree, "CMakeCache.txt"), handle.read().replace("@TDC_PREFIX@", where))
    replace_file(os.path.join(tree, "CTestTestfile.cmake"), "".join([
        f"# Written by `tdc ctest-tree` (ci/tdc/installed.py) for the TDC installed at {where};\n",
        "# rewritten at every run. The suites are declared by the installed script below.\n",
        f"set(TDC_PREFIX {cmake_string(where)})\n",
        f"set(TDC_STATE {cmake_string(tree)})\n",
        f"set(TDC_PYTHON {cmake_string(sys.executable)})\n",
        f"set(CMAKE_COMMAND {cmake_string(cmake)})  # not defined when ctest reads tests\n",
        f"include({cmake_string(os.path.join(where, 'share', 'tdc', 'cmake', 'TdcInstalledTests.cmake'))})\n"]))
    for name, target in (("bin", os.path.join("libexec", "tdc")), ("lib", os.path.join("lib", "tdc")),
                         ("CMakeFiles", os.path.join(FACTS, "CMakeFiles"))):
        replace_link(os.path.join(tree, name), os.path.join(where, target))
    return tree


def run(argv):
    p = cli.Parser("ctest-tree", __doc__)
    p.add_argument("--state-dir", help="where runs keep their state (default: TDC_STATE_DIR, "
                                       "else $XDG_CACHE_HOME/tdc/state)")
    args = p.parse_args(argv)
    print(make_tree(args.state_dir))
    return 0


def main(argv=None):
    return cli.run_main("ctest-tree", run, argv)
