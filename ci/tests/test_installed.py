"""The installed kit's ctest tree (tdc.installed, bin/tdc ctest-tree) on a
fake installed prefix: the real bin/tdc and tools copied under
<prefix>/share/tdc, a build's facts naming a stand-in LibTorch. A prefix, a
state folder or a TDC_EXTRA_SUITES item with a control character or ';'
(which CMake would read as code, or split as a list) is refused with one
line; `tdc --state-dir=DIR ctest-tree` writes under DIR, and an empty
--state-dir is refused (issue 34, finding 11)."""
import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT

from tdc import installed
from tdc.errors import InputError


def fake_prefix(where):
    """An installed TDC's layout at `where`, enough for `tdc ctest-tree`."""
    share = os.path.join(where, "share", "tdc")
    shutil.copytree(os.path.join(ROOT, "ci"), os.path.join(share, "ci"),
                    ignore=shutil.ignore_patterns("__pycache__", "tests"))
    os.makedirs(os.path.join(share, "cmake"))
    open(os.path.join(share, "cmake", "TdcInstalledTests.cmake"), "w").close()
    torch = os.path.join(where, "torch-lib")
    os.makedirs(torch)
    open(os.path.join(torch, "libc10.so"), "w").close()
    os.makedirs(os.path.join(share, "build", "CMakeFiles"))
    with open(os.path.join(share, "build", "CMakeCache.txt"), "w") as f:
        f.write(f"TDC_TORCH_LIBRARY_DIR:PATH={torch}\nTDC_TORCH_VERSION:STRING=2.13.0\nX:PATH=@TDC_PREFIX@/lib\n")
    os.makedirs(os.path.join(where, "bin"))
    shutil.copy(os.path.join(ROOT, "bin", "tdc"), os.path.join(where, "bin", "tdc"))
    return os.path.join(where, "bin", "tdc")


def home_of(binary):
    """A home folder beside the prefix (<where>/../), never inside it."""
    return os.path.dirname(os.path.dirname(os.path.dirname(binary)))


def tdc(binary, *args, env=None):
    run = subprocess.run([binary, *args], capture_output=True, text=True, timeout=120, cwd="/",  # python3 -m: not this tree
                         env=dict(os.environ, HOME=home_of(binary), **(env or {})))
    return run.returncode, run.stdout.strip(), run.stderr.strip()


@pytest.fixture
def prefix(tmp_path):
    return fake_prefix(str(tmp_path / "opt" / "tdc"))


def test_state_dir_before_the_verb_is_honoured(prefix, tmp_path):
    code, out, err = tdc(prefix, f"--state-dir={tmp_path}/state", "ctest-tree")
    assert code == 0, err
    assert out.startswith(f"{tmp_path}/state/tree-") and os.path.isfile(os.path.join(out, "CTestTestfile.cmake"))
    assert not os.path.exists(os.path.join(home_of(prefix), ".cache"))


def test_an_empty_state_dir_is_refused(prefix):
    for args in (["--state-dir=", "ctest-tree"], ["ctest-tree", "--state-dir="]):
        code, out, err = tdc(prefix, *args)
        assert code == 2 and out == "" and "--state-dir is empty" in err and len(err.splitlines()) == 1, err


def test_a_state_folder_inside_the_prefix_is_refused_before_the_verb_too(prefix):
    inside = os.path.join(os.path.dirname(os.path.dirname(prefix)), "share", "tdc", "state")
    code, _, err = tdc(prefix, f"--state-dir={inside}", "ctest-tree")
    assert code == 2 and "is inside the installed TDC" in err


@pytest.mark.parametrize("name", ["tdc\nset(X 1)", "tdc;other", "tdc\x1b"])
def test_a_prefix_cmake_would_misread_is_refused(tmp_path, name):
    binary = fake_prefix(str(tmp_path / name))
    code, out, err = tdc(binary, f"--state-dir={tmp_path}/state", "ctest-tree")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "which CMake would read as code or split as a list" in err, err
    assert not os.path.exists(tmp_path / "state")


@pytest.mark.parametrize("item", ["/opt/vendor\nset(X 1)", "/opt/a;/opt/b"])
def test_a_tdc_extra_suites_item_cmake_would_misread_is_refused(prefix, tmp_path, item):
    code, _, err = tdc(prefix, f"--state-dir={tmp_path}/state", "ctest-tree", env={"TDC_EXTRA_SUITES": item})
    assert code == 2 and "TDC_EXTRA_SUITES item 1" in err and len(err.splitlines()) == 1, err


def test_the_checks_themselves():
    installed.check_cmake_path("a path", "/opt/tdc-2.13.0 (lab)")   # spaces and brackets are fine
    with pytest.raises(InputError, match="holds '\\\\n'"):
        installed.check_cmake_path("a path", "/opt/x\ny")
    with pytest.raises(InputError, match="--state-dir is empty"):
        installed.state_dir("")
    assert installed.state_dir(None).endswith(os.path.join("tdc", "state"))


def test_an_installed_tdc_has_every_verb_of_the_table(prefix):
    """`tdc --help` of an install lists the fleet's verbs too (issue 30: merge,
    report, faults and Slurm submission had none), and each answers --help,
    as do the installed ci/ wrappers users know (verbs.KNOWN_COMMANDS; the
    installed ci/health is a program), without preparing a tree."""
    from tdc import verbs
    code, out, err = tdc(prefix, "--help")
    assert code == 0, err
    assert re.findall(r"^  ([a-z][a-z-]*) +\S", out, re.M) == list(verbs.VERBS)
    for verb in ("merge", "report", "faults", "slurm-submit", "run", "health"):
        code, out, err = tdc(prefix, verb, "--help")
        assert code == 0 and out, f"tdc {verb} --help: exit {code}: {err}"
    share = os.path.join(os.path.dirname(os.path.dirname(prefix)), "share", "tdc", "ci")
    for wrapper in ("merge", "package", "verify", "health", os.path.join("slurm", "submit")):
        run = subprocess.run([os.path.join(share, wrapper), "--help"], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0 and run.stdout, f"installed ci/{wrapper} --help: {run.stderr}"
    assert not os.path.exists(os.path.join(home_of(prefix), ".cache"))


def test_an_installed_build_verb_gets_the_tree_unless_one_is_named(prefix, tmp_path):
    code, out, err = tdc(prefix, f"--state-dir={tmp_path}/state", "ctest", "-N")
    assert code == 0, err
    assert [t for t in os.listdir(tmp_path / "state") if t.startswith("tree-")]
    code, _, err = tdc(prefix, f"--state-dir={tmp_path}/other", "context", "--build-dir=/nonexistent", "--out=x")
    assert code == 2 and not os.path.exists(tmp_path / "other"), err
