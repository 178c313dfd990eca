"""The README's architecture drawing names every file a device passes
through on its way from the command line to a check and back to
summary.json, and only files that exist (issue 30, item 7).

The path, defined so that a program can follow it:
- Python: bin/tdc runs `python3 -m tdc`, whose entry module
  (ci/tdc/__main__.py) hands the verb to the one verb table
  (ci/tdc/verbs.py), which looks `run` up; from that
  module on, every module of ci/tdc that a module on the path imports at
  module level (`import tdc.x`, `from tdc import x`, `from tdc.x import y`)
  is on the path. Imports inside functions are left out: they are deferred
  on purpose, to steps after summary.json (the report) or to optional
  packages. A package's __init__.py counts as named when its folder is.
- C++: ctest starts the batch runner (fixtures/batch/main.cpp), which starts
  the suite process (its main: fixtures/src/gtest_main.cpp), which runs the
  README's example check (suites/forward/forward.cpp). From those, every
  project file reached through `#include "..."` is on the path, and so is
  a header's implementation: fixtures/include/tdc/X.h is implemented by
  fixtures/src/X.cpp, any other X.h by the X.cpp beside it.
- Naming: the drawing is the fenced blocks of the README's "Architecture"
  section. A Python module is named by its path under ci/tdc/
  (`pipeline.py`, `fleet/allocation.py`); a C++ file by its path under
  fixtures/src/ or fixtures/include/tdc/ (`discovery.cpp`), under
  fixtures/ (`batch/child.cpp`) or the repository (`suites/forward/forward.cpp`).
  A header and its implementation are one file for this purpose:
  `discovery.cpp` names discovery.h too, and `fixtures.h/.cpp` both.
  CMake files and bin/tdc are named by their path from the repository.

So a module or header added on the path (a new import in pipeline.py, a
new include in the ladder) fails here until the drawing names it, and a
file renamed or removed fails here until the drawing stops naming it."""
import ast
import os
import re

import pytest

from conftest import ROOT

CI = os.path.join(ROOT, "ci")
TDC = os.path.join(CI, "tdc")
INCLUDE = os.path.join(ROOT, "fixtures", "include", "tdc")
SRC = os.path.join(ROOT, "fixtures", "src")
CXX_STARTS = ("fixtures/batch/main.cpp", "fixtures/src/gtest_main.cpp", "suites/forward/forward.cpp")
TOKEN = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+(?:\.(?:py|cpp|h|cmake\.in|cmake))(?:/\.(?:h|cpp))?|bin/tdc)(?![\w.])")


def drawing(readme=os.path.join(ROOT, "README.md")):
    """The fenced blocks of the README's Architecture section, joined."""
    with open(readme, encoding="utf-8") as handle:
        text = handle.read()
    section = re.search(r"^## Architecture\n(.*?)(?=^## )", text, re.S | re.M)
    assert section, "README.md has no '## Architecture' section"
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", section.group(1), re.S | re.M)
    assert blocks, "README.md's Architecture section has no drawing"
    return "\n".join(blocks)


def resolve(token):
    """The repository files a token of the drawing names (empty: none exist)."""
    stem_token = token
    exts = []
    if token.endswith("/.cpp") or token.endswith("/.h"):  # "fixtures.h/.cpp"
        stem_token, _, second = token.rpartition("/")
        exts.append(second)
    base_name, ext = os.path.splitext(stem_token)
    if stem_token.endswith(".cmake.in"):
        base_name, ext = stem_token[:-len(".cmake.in")], ".cmake.in"
    exts.insert(0, ext)
    if ext == ".py":
        bases = [TDC, ROOT]
    elif ext in (".cpp", ".h"):
        bases = [ROOT, SRC, INCLUDE, os.path.join(ROOT, "fixtures")]
    else:
        bases = [ROOT]
    found = []
    for wanted in exts:
        hits = [os.path.join(base, base_name + wanted) for base in bases
                if os.path.isfile(os.path.join(base, base_name + wanted))]
        if not hits:
            return []
        found.append(os.path.normpath(hits[0]))
    return found


def unit(path):
    """A header and its implementation are one unit."""
    path = os.path.normpath(path)
    stem = os.path.splitext(path)[0]
    for folder in (INCLUDE, SRC):
        if stem.startswith(folder + os.sep):
            return "tdc:" + os.path.relpath(stem, folder)
    return os.path.relpath(stem, ROOT)


def named_units(text):
    units, missing = set(), []
    for token in TOKEN.findall(text):
        files = resolve(token)
        if not files:
            missing.append(token)
        units.update(unit(f) for f in files)
    return units, missing


def module_file(name):
    path = os.path.join(CI, *name.split("."))
    return os.path.join(path, "__init__.py") if os.path.isdir(path) else path + ".py"


def module_level_imports(path):
    """The tdc modules a module imports at module level."""
    found = set()
    for node in ast.parse(open(path, encoding="utf-8").read()).body:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "tdc")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "tdc":
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if os.path.exists(module_file(sub)) else node.module)
    return found


def run_verb_module():
    """The module `tdc run` runs, from the one verb table (ci/tdc/verbs.py)."""
    from tdc.verbs import VERBS
    return VERBS["run"].module


def python_path():
    """The Python files on the path, from __main__.py through the verb table and the run verb's imports."""
    files, todo, seen = {os.path.join(TDC, "__main__.py")}, ["tdc.verbs", run_verb_module()], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = module_file(name)
        files.add(path)
        todo.extend(module_level_imports(path))
    return files


def includes(path):
    with open(path, encoding="utf-8") as handle:
        return re.findall(r'^\s*#\s*include\s+"([^"]+)"', handle.read(), re.M)


def implementation(header):
    stem = os.path.splitext(header)[0]
    if stem.startswith(INCLUDE + os.sep):
        candidate = os.path.join(SRC, os.path.relpath(stem, INCLUDE) + ".cpp")
    else:
        candidate = stem + ".cpp"
    return candidate if header.endswith(".h") and os.path.isfile(candidate) else None


def cxx_path(starts=CXX_STARTS):
    """The C++ files on the path: the starts, their project includes and
    each included header's implementation, transitively."""
    files, todo = set(), [os.path.join(ROOT, s) for s in starts]
    while todo:
        path = os.path.normpath(todo.pop())
        if path in files:
            continue
        files.add(path)
        if implementation(path):
            todo.append(implementation(path))
        for name in includes(path):
            for base in (os.path.dirname(path), os.path.dirname(INCLUDE)):
                if os.path.isfile(os.path.join(base, name)):
                    todo.append(os.path.join(base, name))
                    break
    return files


def unnamed(files, units):
    return sorted(os.path.relpath(f, ROOT) for f in files
                  if unit(f) not in units and os.path.basename(f) != "__init__.py")


def test_every_file_the_drawing_names_exists():
    _, missing = named_units(drawing())
    assert missing == [], f"the README's architecture drawing names files that do not exist: {missing}"


def test_every_python_module_on_the_path_is_named():
    units, _ = named_units(drawing())
    assert unnamed(python_path(), units) == [], "on the path of `tdc run`, not in the README's drawing"


def test_every_cpp_file_on_the_path_is_named():
    units, _ = named_units(drawing())
    assert unnamed(cxx_path(), units) == [], "on the path to a check, not in the README's drawing"


def test_the_walk_sees_what_a_drawing_leaves_out(write):
    """The negative: a drawing that leaves out one module, one unit and names
    a file that is gone fails each rule."""
    text = drawing()
    readme = write("README.md", "## Architecture\n\n```\n"
                   + text.replace("summarize.py", "").replace("discovery.cpp", "discovery_gone.cpp")
                   + "\n```\n\n## Next\n")
    units, missing = named_units(drawing(readme))
    assert "discovery_gone.cpp" in missing
    assert "ci/tdc/summarize.py" in unnamed(python_path(), units)
    assert {"fixtures/include/tdc/discovery.h", "fixtures/src/discovery.cpp"} <= set(unnamed(cxx_path(), units))
