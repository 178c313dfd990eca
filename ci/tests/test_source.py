"""tdc.source: the tree's git state is asked when a run runs, and a dirty
tree is warned about, naming its files; an installed TDC says what its
install recorded (share/tdc/source.json)."""
import json
import subprocess

import pytest

from tdc import source


def git(tree, *args):
    subprocess.run(["git", "-C", str(tree), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(tree)})


@pytest.fixture
def tree(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    git(tree, "init", "-q")
    (tree / ".gitignore").write_text("/build*/\n")
    (tree / "VERSION").write_text("0.2.0\n")
    git(tree, "add", ".")
    git(tree, "commit", "-q", "-m", "x")
    return tree


def test_a_clean_tree_has_no_warning(tree):
    found = source.state(str(tree))
    assert found["dirty"] is False and found["commit"] and source.warning(found, str(tree)) == ""


def test_an_ignored_package_leaves_it_clean_and_one_in_the_root_does_not(tree):
    (tree / "build" / "packages").mkdir(parents=True)
    (tree / "build" / "packages" / "tdc-vm-level2.tar.gz").write_bytes(b"x")
    assert source.state(str(tree))["dirty"] is False
    (tree / "tdc-vm-level2.tar.gz").write_bytes(b"x")          # where ci/package used to write
    found = source.state(str(tree))
    warning = source.warning(found, str(tree))
    assert found["dirty"] is True and found["dirty_files"] == ["?? tdc-vm-level2.tar.gz"]
    assert "uncommitted changes (?? tdc-vm-level2.tar.gz)" in warning and "dirty tree" in warning


def test_the_state_is_asked_now_not_kept(tree):
    (tree / "notes.txt").write_text("x")
    assert source.state(str(tree))["dirty"] is True
    (tree / "notes.txt").unlink()                                # moved away before the next run
    assert source.state(str(tree))["dirty"] is False


def test_many_files_are_named_a_few_and_counted(tree):
    for i in range(8):
        (tree / f"f{i}.txt").write_text("x")
    assert source.warning(source.state(str(tree)), str(tree)).count("?? f") == 5 and "and 3 more" in \
        source.warning(source.state(str(tree)), str(tree))


def test_an_install_says_what_it_recorded(tmp_path):
    (tmp_path / "source.json").write_text(json.dumps({"commit": "abc", "dirty": True, "dirty_files": ["M x"]}))
    assert source.state(str(tmp_path)) == {"commit": "abc", "dirty": True, "dirty_files": ["M x"]}
    assert not source.is_checkout(str(tmp_path))


def test_no_git_is_unknown_and_warned(tmp_path):
    found = source.state(str(tmp_path / "none"))
    assert found["dirty"] is None and "state unknown" in source.warning(found, "x")
