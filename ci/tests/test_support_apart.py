"""The self-tests' support (suites/selftest/fleetsim: the fleet simulator,
the planted-fault rewriter, synthetic runs) stays apart from the tools: no
module of ci/ has its name or imports it, and cmake/TdcInstall.cmake, which
installs ci/, installs nothing of suites/selftest. (install_checks.py's
layout check looks at a real prefix for the same names.)"""
import ast
import os
import re
import shutil

from conftest import ROOT

SUPPORT = os.path.join(ROOT, "suites", "selftest", "fleetsim")


def support_names():
    return {n[:-3] for n in os.listdir(SUPPORT) if n.endswith(".py") and n != "__init__.py"}


def problems(ci_dir, install_rule):
    """What puts the support into the tools or the install: a module of
    CI_DIR (outside its tests) named like one of the support's or importing
    it, or INSTALL_RULE's text installing from suites/selftest."""
    found, names = [], support_names()
    for folder, dirs, files in os.walk(ci_dir):
        dirs[:] = sorted(d for d in dirs if d not in ("tests", "__pycache__"))
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            where = os.path.relpath(path, ci_dir)
            if name[:-3] in names:
                found.append(f"{where} is named like fleetsim/{name}")
            for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
                modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                           else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(m == "fleetsim" or m.startswith("fleetsim.") for m in modules):
                    found.append(f"{where} imports fleetsim")
    if re.search(r"suites/selftest|DIRECTORY\s+\"?suites/?[\s\"]", install_rule):
        found.append("the install rule installs suites/selftest")
    return found


def install_rule():
    with open(os.path.join(ROOT, "cmake", "TdcInstall.cmake"), encoding="utf-8") as f:
        return f.read()


def test_support_is_not_in_the_tools_or_the_install():
    assert support_names() >= {"simulate", "rewrite", "synthetic_run"}
    assert re.search(r"install\(DIRECTORY ci/ ", install_rule()), "TdcInstall.cmake no longer installs ci/ as read here"
    assert problems(os.path.join(ROOT, "ci"), install_rule()) == []


def test_a_simulator_back_in_the_tools_is_found(tmp_path):
    """The negative: the layout before issue 30 (the simulator in
    ci/tdc/fleet, a tool importing the support) and an install rule that
    copies suites/selftest each fail."""
    ci = tmp_path / "ci"
    shutil.copytree(os.path.join(ROOT, "ci", "tdc"), ci / "tdc", ignore=shutil.ignore_patterns("__pycache__"))
    assert problems(str(ci), install_rule()) == []
    shutil.copy(os.path.join(SUPPORT, "simulate.py"), ci / "tdc" / "fleet" / "simulate.py")
    (ci / "tdc" / "fleet" / "uses.py").write_text("def f():\n    from fleetsim import rewrite\n")
    assert problems(str(ci), install_rule() + "\ninstall(DIRECTORY suites/selftest/ DESTINATION x)\n") == [
        os.path.join("tdc", "fleet", "simulate.py") + " is named like fleetsim/simulate.py",
        os.path.join("tdc", "fleet", "simulate.py") + " imports fleetsim",
        os.path.join("tdc", "fleet", "uses.py") + " imports fleetsim",
        "the install rule installs suites/selftest"]
    assert problems(str(ci / "tdc" / "bench"), "install(DIRECTORY suites/ DESTINATION share/tdc)") == [
        "the install rule installs suites/selftest"]
