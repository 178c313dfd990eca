"""tdc.build_profile: CPU-seconds per source folder from ninja's own log."""
import pytest

from tdc import build_profile
from tdc.errors import InputError

HEADER = "# ninja log v5\n"


def log(write, *steps):
    """A .ninja_log of (start ms, end ms, output) steps, in a build folder."""
    lines = "".join(f"{start}\t{end}\t0\t{output}\tabc\n" for start, end, output in steps)
    return write("build/.ninja_log", HEADER + lines).rsplit("/", 1)[0]


def test_folders_pch_unity_and_links(write):
    build = log(write,
                (0, 4000, "fixtures/CMakeFiles/tdc_core.dir/cmake_pch.hxx.gch"),
                (4000, 6000, "fixtures/CMakeFiles/tdc_core.dir/src/compat/events.cpp.o"),
                (4000, 9000, "fixtures/loopback/CMakeFiles/tdc_loopback.dir/Unity/unity_0_cxx.cxx.o"),
                (9000, 9500, "bin/tdc_forward"),
                (9000, 10000, "suites/selftest/CMakeFiles/tdc_altdev.dir/__/__/fixtures/loopback/backend.cpp.o"))
    table, wall, sessions = build_profile.profile(build, depth=2)
    assert table["fixtures"] == [1, 4.0]
    assert table["fixtures/src"] == [1, 2.0]
    assert table["fixtures/loopback"] == [1, 5.0]
    assert table[build_profile.LINKS] == [1, 0.5]
    assert table["suites/selftest"] == [1, 1.0]  # depth 2 keeps the target's own folder first
    assert wall == 10.0 and sessions == 1


def test_only_the_last_invocation_counts(write):
    build = log(write, (0, 9000, "a/CMakeFiles/t.dir/old.cpp.o"), (0, 1000, "b/CMakeFiles/t.dir/new.cpp.o"))
    table, _, sessions = build_profile.profile(build)
    assert sessions == 2 and list(table) == ["b"]
    table, _, _ = build_profile.profile(build, invocation="all")
    assert sorted(table) == ["a", "b"]
    table, _, _ = build_profile.profile(build, invocation="first")
    assert list(table) == ["a"]


def test_before_and_after_side_by_side(write, tmp_path):
    before = log(write, (0, 8000, "suites/forward/CMakeFiles/o.dir/forward.cpp.o"))
    text = build_profile.render(build_profile.profile(before), build_profile.profile(before))
    assert "| suites/forward | 1 | 8.0 | 1 | 8.0 | 1.00x |" in text


@pytest.mark.parametrize("content", ["", "not a log\n", HEADER + "x\ty\n", HEADER])
def test_damaged_log_is_one_line(write, content, capsys):
    build = write("b/.ninja_log", content).rsplit("/", 1)[0]
    assert build_profile.main([build]) == 2
    err = capsys.readouterr().err
    assert err.startswith("build-profile: ") and err.count("\n") == 1


def test_missing_log(tmp_path, capsys):
    assert build_profile.main([str(tmp_path)]) == 2
    assert ".ninja_log" in capsys.readouterr().err


def test_unity_batch_counts_with_its_sources_folder(write, tmp_path):
    build = log(write, (0, 3000, "fixtures/CMakeFiles/tdc_core.dir/Unity/unity_0_cxx.cxx.o"))
    source = tmp_path / "src"
    write("build/CMakeCache.txt", f"CMAKE_HOME_DIRECTORY:INTERNAL={source}\n")
    write("build/fixtures/CMakeFiles/tdc_core.dir/Unity/unity_0_cxx.cxx",
          f'/* generated */\n#include "{source}/fixtures/src/a.cpp"\n#include "{source}/fixtures/src/compat/b.cpp"\n')
    table, _, _ = build_profile.profile(build, depth=2)
    assert table == {"fixtures/src": [1, 3.0]}
