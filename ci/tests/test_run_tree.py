"""A run tree (tdc.fleet.run_tree) of a build whose own runs go on beside
it: the self-tests' install prefix is not copied, and a file that vanishes
between the walk's listing and its copy is left out, not a failed tree.
Both once made the background health run of a detached node check die
before it recorded a verdict, while selftest.install.prefix_and_packages
remade the prefix (fleet_npd_wrapper waited 900 s on 1.13.1)."""
import os

from tdc.fleet import run_tree


def a_build(root):
    for name, text in {"CMakeCache.txt": "CMAKE_HOME:INTERNAL=x\n",
                       "CTestTestfile.cmake": f'subdirs("{root}/suites")\n',
                       "suites/CTestTestfile.cmake": "# entries\n",
                       "selftest-install/prefix/bin/tdc": "#!/bin/sh\n",
                       "results/summary.json": "{}\n"}.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return root


def test_the_tree_leaves_out_the_builds_run_time_state(tmp_path):
    build = a_build(str(tmp_path / "build"))
    tree = run_tree.prepare(build, str(tmp_path / "tree"))
    assert os.path.isfile(os.path.join(tree, "suites", "CTestTestfile.cmake"))
    with open(os.path.join(tree, "CTestTestfile.cmake")) as f:
        assert f.read() == f'subdirs("{tree}/suites")\n'
    assert not os.path.exists(os.path.join(tree, "selftest-install"))
    assert not os.path.exists(os.path.join(tree, "results"))


def test_a_file_that_vanishes_during_the_copy_is_left_out(tmp_path, monkeypatch):
    build = a_build(str(tmp_path / "build"))
    vanishing = os.path.join(build, "suites", "CTestTestfile.cmake")
    real = run_tree._is_binary

    def remade_meanwhile(path):
        if path == vanishing:
            os.remove(path)  # another run of the build removes it after the listing
        return real(path)
    monkeypatch.setattr(run_tree, "_is_binary", remade_meanwhile)
    tree = run_tree.prepare(build, str(tmp_path / "tree"))
    assert os.path.isfile(os.path.join(tree, "CTestTestfile.cmake"))
    assert not os.path.exists(os.path.join(tree, "suites", "CTestTestfile.cmake"))
