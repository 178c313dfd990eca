"""ci/package's names and folder (issue 35): a package's name carries the
host, the LibTorch build, the level and the run's time, so packages of two
builds gathered into one folder are two files; one run packaged twice is
refused, never overwritten; by default packages go to build/packages/ of
the checkout (ignored by git: a package never dirties the next run's tree)."""
import json
import os

import pytest
from conftest import context_doc, junit_text

from tdc import junit, package, results, summarize

RUN_ID = "20261202T063300Z-0123abcd"


def results_folder(folder, build="2.13.0+cpu", host="vm", run_id=RUN_ID):
    """A results folder as a level-1 run leaves one (what ci/package reads)."""
    os.makedirs(folder)
    text = junit_text(("Placement.X/cpu", "run", ""))
    for name in ("junit.xml", "ctest-junit.xml"):
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    context = context_doc(run_id=run_id, host=host, devices={"devices": [], "libtorch_version": build})
    results.write(os.path.join(folder, "context.json"), context, "context")
    summary = summarize.build(junit.read(os.path.join(folder, "junit.xml")), {}, context, 1.0, 1)
    results.write(os.path.join(folder, "summary.json"), summary, "summary")
    return str(folder)


def make(folder, *extra):
    return package.main([folder, "--product=X1", "--submitter=lab", *extra])


def test_the_name_carries_host_build_level_and_run_time(tmp_path, capsys):
    assert make(results_folder(tmp_path / "r"), f"--out={tmp_path / 'out'}") == 0
    path = capsys.readouterr().out.strip()
    assert os.path.basename(path) == "tdc-vm-torch2.13.0_cpu-level1-20261202T063300Z.tar.gz"


@pytest.mark.parametrize("build, token", [("2.13.0+cpu", "2.13.0_cpu"), ("1.13.1", "1.13.1"),
                                          ("2.14.1+cu121 (my/build)", "2.14.1_cu121_my_build"),
                                          ("", "unknown"), ("../..", ".._..")])
def test_the_build_is_a_filename_safe_token(build, token):
    name = package.package_name(context_doc(devices={"devices": [], "libtorch_version": build}), 2)
    assert f"-torch{token}-level2-" in name and "/" not in name and " " not in name


def test_two_builds_in_one_folder_are_two_packages(tmp_path, capsys):
    out = tmp_path / "packages"
    for build in ("2.13.0+cpu", "2.14.1+cpu"):
        assert make(results_folder(tmp_path / build, build=build), f"--out={out}") == 0
    assert len(os.listdir(out)) == 2, os.listdir(out)
    # The negative: the old name (tdc-<host>-level<N>-<date>) gave both the same file.
    old = {f"tdc-{c['host']}-level1-{c['run_id'][:8]}" for c in
           (json.load(open(tmp_path / b / "context.json")) for b in ("2.13.0+cpu", "2.14.1+cpu"))}
    assert len(old) == 1


def test_one_run_packaged_twice_is_refused_and_the_first_kept(tmp_path, capsys):
    folder, out = results_folder(tmp_path / "r"), tmp_path / "out"
    assert make(folder, f"--out={out}", "--product=build A") == 0
    first = capsys.readouterr().out.strip()
    before = open(first, "rb").read()
    assert make(folder, f"--out={out}", "--product=build B") == 2
    err = [l for l in capsys.readouterr().err.splitlines() if l.strip()]
    assert len(err) == 1 and "exists: refused, nothing overwritten" in err[0], err
    assert open(first, "rb").read() == before and os.listdir(out) == [os.path.basename(first)]


def test_a_later_run_of_the_same_build_is_a_package_of_its_own(tmp_path, capsys):
    out = tmp_path / "out"
    assert make(results_folder(tmp_path / "a"), f"--out={out}") == 0
    assert make(results_folder(tmp_path / "b", run_id="20261202T070000Z-99999999"), f"--out={out}") == 0
    assert len(os.listdir(out)) == 2


def test_the_default_folder_is_the_checkouts_build_packages(tmp_path, capsys, monkeypatch):
    checkout = tmp_path / "tree"
    (checkout / ".git").mkdir(parents=True)
    monkeypatch.setattr(package, "ROOT", str(checkout))
    monkeypatch.chdir(tmp_path)
    assert make(results_folder(tmp_path / "r")) == 0
    path = capsys.readouterr().out.strip()
    assert os.path.dirname(path) == str(checkout / "build" / "packages")
    # An installed TDC (no .git beside its tools) writes to the current folder.
    (checkout / ".git").rmdir()
    assert make(results_folder(tmp_path / "r2", run_id="20261202T070000Z-99999999")) == 0
    assert os.path.dirname(capsys.readouterr().out.strip()) == str(tmp_path)


def test_the_trees_gitignore_covers_build_packages():
    from conftest import ROOT
    import subprocess
    if not os.path.exists(os.path.join(ROOT, ".git")):
        pytest.skip("not a checkout")
    ignored = subprocess.run(["git", "-C", ROOT, "check-ignore", "-q", "build/packages/tdc-x.tar.gz"])
    kept = subprocess.run(["git", "-C", ROOT, "check-ignore", "-q", "tdc-x.tar.gz"])
    assert ignored.returncode == 0 and kept.returncode == 1  # the root itself is not ignored: packages went there
