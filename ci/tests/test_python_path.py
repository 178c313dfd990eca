"""One launcher sets the Python path (issue 30): the tools' folder goes on
Python's path in one place per language, and everything that starts the
tools goes through it:

  ci/tools.sh                       the shell: bin/tdc, ci/lib.sh (every ci/
                                    script), the Slurm jobs, the fleet adapters
  ci/tdc/verbs.py (tools_env)       Python: tdc.verbs.child, the self-tests
  cmake/tdc_tools_environment.cmake CMake: every ctest entry that runs a tool

(pytest's is ci/tests/pytest.ini's `pythonpath`.) Any other assignment of
PYTHONPATH in a file under bin/, ci/, cmake/ or suites/selftest/ fails here,
naming the file and line. Text that only mentions it (a comment, a
docstring, a usage line, a message) assigns nothing and passes."""
import ast
import os
import re

import pytest
from conftest import ROOT

# The one definition per language: each must hold an assignment, the rest none.
DEFINITIONS = ("ci/tools.sh", "ci/tdc/verbs.py", "cmake/tdc_tools_environment.cmake")
FOLDERS = ("bin", "ci", "cmake", "suites/selftest")
# This file: its negatives are assignments on purpose.
SELF = os.path.relpath(os.path.abspath(__file__), ROOT)

# Shell, CMake and any other text: `PYTHONPATH=` (a shell assignment, `env`,
# `export`, an ENVIRONMENT item), bash's `${PYTHONPATH:=...}`, CMake's
# set(ENV{PYTHONPATH} ...), C's setenv("PYTHONPATH", ...).
TEXT_ASSIGNMENT = re.compile(r'PYTHONPATH:?=|ENV\{PYTHONPATH\}|setenv\s*\(\s*"PYTHONPATH"')
# A Python string that is a command line or an environment item assigning it:
# at its start, or after a shell separator, `env` or `export`.
STRING_ASSIGNMENT = re.compile(r'(?:^|[;&|(]\s*|\b(?:env|export)\s+)PYTHONPATH:?=')
BRACKET_COMMENT = re.compile(r"#\[(=*)\[.*?\]\1\]", re.S)


def is_python(path, text):
    return path.endswith(".py") or (text.startswith("#!") and "python" in text.splitlines()[0])


def docstrings(tree):
    """The string constants that are docstrings (text, not code)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def is_name(node):
    return isinstance(node, ast.Constant) and node.value == "PYTHONPATH"


def python_assignments(text):
    """Line numbers where Python code assigns PYTHONPATH: dict(..., PYTHONPATH=x),
    {"PYTHONPATH": x}, env["PYTHONPATH"] = x, setdefault/putenv("PYTHONPATH", x),
    a string "PYTHONPATH=x" in a command line or environment list."""
    tree = ast.parse(text)
    skip = docstrings(tree)
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "PYTHONPATH":
            lines.add(node.value.lineno)
        elif isinstance(node, ast.Dict):
            lines.update(key.lineno for key in node.keys if key is not None and is_name(key))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) and is_name(node.slice):
            lines.add(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("setdefault", "putenv", "__setitem__") and node.args and is_name(node.args[0]):
            lines.add(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip \
                and STRING_ASSIGNMENT.search(node.value):
            lines.add(node.lineno)
    return sorted(lines)


def text_assignments(text):
    """Line numbers where shell, CMake or other text assigns PYTHONPATH; a
    line that is a comment (#, //) or inside a CMake bracket comment is text."""
    text = BRACKET_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return [number for number, line in enumerate(text.splitlines(), 1)
            if not line.lstrip().startswith(("#", "//")) and TEXT_ASSIGNMENT.search(line)]


def assignments(path, text):
    return python_assignments(text) if is_python(path, text) else text_assignments(text)


def tree_files(root):
    """(path from root, text) of every text file under FOLDERS."""
    for folder in FOLDERS:
        for where, dirs, names in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))  # caches
            for name in sorted(names):
                path = os.path.join(where, name)
                try:
                    with open(path, encoding="utf-8") as handle:
                        text = handle.read()
                except (UnicodeDecodeError, OSError):
                    continue  # not text: no assignment to read
                yield os.path.relpath(path, root), text


def problems(root, skip=(SELF,)):
    """What breaks the rule under root: an assignment outside the
    definitions, or a definition that assigns nothing (or is gone)."""
    found, defined = [], set()
    for path, text in tree_files(root):
        if path in skip:
            continue
        lines = assignments(path, text)
        if path in DEFINITIONS:
            if lines:
                defined.add(path)
        elif lines:
            found.append(f"{path}:{','.join(map(str, lines))}: sets PYTHONPATH by hand; "
                         "use bin/tdc or ci/tools.sh (shell), tdc.verbs.tools_env (Python), "
                         "tdc_tools_environment() (CMake)")
    found += [f"{path}: the one definition assigns no PYTHONPATH" for path in DEFINITIONS if path not in defined]
    return found


def test_only_the_one_definition_per_language_sets_the_python_path():
    assert problems(ROOT) == []


@pytest.mark.parametrize("text", [
    'PYTHONPATH="$root/ci${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m tdc.fleet.slurm_task "$plan"\n',
    'export PYTHONPATH="$TDC_ROOT/ci"\n',
    'flock /tmp/x env PYTHONPATH=ci python3 -m tdc run\n',
    ': "${PYTHONPATH:=ci}"\n',
    '  set_tests_properties(x PROPERTIES ENVIRONMENT "PYTHONPATH=${TDC_DATA_DIR}/ci")\n',
    'set(ENV{PYTHONPATH} "${TDC_DATA_DIR}/ci")\n',
])
def test_a_shell_or_cmake_assignment_is_caught(text):
    assert text_assignments("# a comment first\n" + text) == [2]


@pytest.mark.parametrize("text", [
    'env = dict(os.environ, PYTHONPATH=CI)\n',
    'env = {**os.environ, "PYTHONPATH": ci}\n',
    'os.environ["PYTHONPATH"] = os.path.abspath(args.ci_dir)\n',
    'env.setdefault("PYTHONPATH", ci)\n',
    'subprocess.run(["env", "PYTHONPATH=ci", "python3", "-m", "tdc"])\n',
    'subprocess.run(["bash", "-c", "cd x && PYTHONPATH=ci python3 -m tdc run"])\n',
])
def test_a_python_assignment_is_caught(text):
    assert python_assignments('"""PYTHONPATH=ci x.py: the docstring is text."""\n' + text) == [2]


def test_text_that_only_mentions_it_passes():
    assert text_assignments('# PYTHONPATH=ci x\n#[=[\nPYTHONPATH=<root>/ci x.py\n]=]\n'
                            'PYTHONPATH_READ="${PYTHONPATH:+:$PYTHONPATH}"\n  // PYTHONPATH=x\n') == []
    assert python_assignments('"""Usage:\n  PYTHONPATH=<root>/ci x.py"""\n'
                              'def f():\n    """Run with PYTHONPATH=ci."""\n'
                              'print(f"x: run with PYTHONPATH=<root>/ci")\n'
                              'old = os.environ.get("PYTHONPATH")\n'
                              'env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}\n') == []


def test_the_rule_fails_on_a_tree_with_a_stray_assignment(tmp_path):
    """The negatives at the tree's level: a planted assignment in each
    folder is named by file and line, and a definition that stopped
    assigning is named too."""
    for path in DEFINITIONS:
        os.makedirs(tmp_path / os.path.dirname(path), exist_ok=True)
    (tmp_path / "ci/tools.sh").write_text('tdc_python() { PYTHONPATH="$TDC_TOOLS" "$@"; }\n')
    (tmp_path / "ci/tdc/verbs.py").write_text('env["PYTHONPATH"] = ci\n')
    (tmp_path / "cmake/tdc_tools_environment.cmake").write_text('set(environment "PYTHONPATH=${data}/ci")\n')
    assert problems(str(tmp_path)) == []
    os.makedirs(tmp_path / "ci/slurm")
    os.makedirs(tmp_path / "suites/selftest")
    os.makedirs(tmp_path / "bin")
    (tmp_path / "ci/slurm/task-job").write_text('#!/usr/bin/env bash\nPYTHONPATH="$root/ci" exec python3 -m tdc\n')
    (tmp_path / "suites/selftest/x.py").write_text('"""x."""\nenv = dict(os.environ, PYTHONPATH=CI)\n')
    (tmp_path / "bin/tdc").write_text('#!/usr/bin/env bash\nexport PYTHONPATH="$tools"\n')
    (tmp_path / "cmake/tdc_add_selftest.cmake").write_text('set(environment "PYTHONPATH=${TDC_DATA_DIR}/ci")\n')
    (tmp_path / "ci/tools.sh").write_text('tdc_python() { "$@"; }\n')
    found = problems(str(tmp_path))
    assert [line.split(": ")[0] for line in found] == [
        "bin/tdc:2", "ci/slurm/task-job:2", "cmake/tdc_add_selftest.cmake:1", "suites/selftest/x.py:2", "ci/tools.sh"]
