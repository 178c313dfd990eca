"""ci/tdc's modules import one another without a cycle: every `import tdc.X`
and `from tdc... import Y` of every module, at its top or inside a function
(a lazy import only hides a loop until the order of first use changes), is
an edge, and the graph has no loop. Issue 30 broke the last one (tdc.context
and tdc.fleet.allocation shared CMakeCache.txt's reader: it is
tdc.cmake_cache now)."""
import ast
import os

from conftest import ROOT
from graph_loops import cycles

PACKAGE = os.path.join(ROOT, "ci", "tdc")


def modules(package_dir):
    """{dotted name: path} of every module under PACKAGE_DIR (a package's
    __init__.py is the package's own name)."""
    top = os.path.basename(package_dir)
    found = {}
    for folder, dirs, files in os.walk(package_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        parts = [top, *os.path.relpath(folder, package_dir).split(os.sep)]
        parts = [p for p in parts if p != "."]
        for name in files:
            if name.endswith(".py"):
                stem = name[:-3]
                found[".".join(parts if stem == "__init__" else [*parts, stem])] = os.path.join(folder, name)
    return found


def imported(module, path, known):
    """The modules of KNOWN that MODULE (at PATH) imports, anywhere in it:
    each module named and the packages above it, which Python runs first."""
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from tdc.fleet import matrix` imports tdc.fleet.matrix;
            # `from tdc import ROOT` imports tdc.
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            targets.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return {t for t in targets if t in known and t != module and not module.startswith(t + ".")}


def graph(package_dir):
    known = modules(package_dir)
    return {module: imported(module, path, known) for module, path in known.items()}


def test_ci_tdc_has_no_import_cycle():
    assert len(graph(PACKAGE)) > 50, "the walk found too few modules of ci/tdc to mean anything"
    found = cycles(graph(PACKAGE))
    assert not found, "import loops in ci/tdc: " + "; ".join(" -> ".join(loop) for loop in found)


def test_a_lazy_import_loop_is_found(tmp_path):
    """The negative: the layout issue 30 found (context imports allocation at
    its top, allocation imports context inside a function) is a loop, and a
    relative import counts like an absolute one."""
    root = tmp_path / "tdc"
    (root / "fleet").mkdir(parents=True)
    (root / "__init__.py").write_text("ROOT = '.'\n")
    (root / "fleet" / "__init__.py").write_text("")
    (root / "context.py").write_text("from tdc import ROOT\nfrom tdc.fleet.allocation import slurm_context\n")
    (root / "fleet" / "allocation.py").write_text("def f():\n    from tdc.context import cmake_cache\n")
    (root / "fleet" / "plan.py").write_text("from . import allocation\nfrom .. import context\n")
    edges = graph(str(root))
    assert edges["tdc.fleet.plan"] == {"tdc.context", "tdc.fleet.allocation"}  # its own packages run first
    assert edges["tdc.context"] == {"tdc.fleet", "tdc.fleet.allocation"}
    assert cycles(edges) == [["tdc.context", "tdc.fleet.allocation", "tdc.context"]]
    (root / "fleet" / "allocation.py").write_text("def f():\n    from tdc import cmake_cache\n")
    (root / "cmake_cache.py").write_text("import os\n")
    assert cycles(graph(str(root))) == []
