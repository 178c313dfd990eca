"""CMake as rapids-cmake lays it out (issue 30): every file under cmake/
defines at most one public function or macro (a name without a leading
underscore), and a file that defines one is named after it
(cmake/tdc_add_selftest.cmake defines tdc_add_selftest). Private helpers
(_tdc_*) sit beside the one function that uses them, or in
TdcTestingHelpers.cmake when several do; a file without a public function
sets things up (TdcTesting.cmake, the entry point) or is a script ctest
runs (TdcInstalledTests.cmake).

And an installed TDC has every file its CMake files include: the files
installed into share/tdc/cmake (cmake/TdcInstall.cmake) and
lib/cmake/TDC/TDCConfig.cmake include, configure or read only files that
are installed too, so a file split off is installed with its includer."""
import os
import re

from conftest import ROOT

CMAKE = os.path.join(ROOT, "cmake")
DEFINITION = re.compile(r"^[ \t]*(?:function|macro)[ \t]*\([ \t]*([A-Za-z0-9_]+)", re.M | re.I)
BRACKET_COMMENT = re.compile(r"#\[(=*)\[.*?\]\1\]", re.S)
LINE_COMMENT = re.compile(r"^[ \t]*#.*$", re.M)
# A file of cmake/ named from another one: through the folder an included
# file is in, TDC_CMAKE_DIR (the configured scripts), or an installed
# TDC's share/tdc/cmake (TDCConfig.cmake).
REFERENCE = re.compile(r'"(?:\$\{CMAKE_CURRENT_LIST_DIR\}|\$\{CMAKE_CURRENT_FUNCTION_LIST_DIR\}|@TDC_CMAKE_DIR@'
                       r'|\$\{TDC_CMAKE_DIR\}|\$\{_tdc_prefix\}/share/tdc/cmake)/([\w-]+(?:\.[\w-]+)+)"')
# TDCConfig.cmake is installed elsewhere (lib/cmake/TDC, beside TDCTargets.cmake):
# only what it names under share/tdc/cmake counts.
CONFIG_REFERENCE = re.compile(r'"\$\{_tdc_prefix\}/share/tdc/cmake/([\w-]+(?:\.[\w-]+)+)"')
INSTALL_FILES = re.compile(r"install\(FILES\s+([^)]*?)\s+DESTINATION share/tdc/cmake\)")


def code(text):
    """CMake text without its comments."""
    return LINE_COMMENT.sub("", BRACKET_COMMENT.sub("", text))


def public_functions(text):
    return [name for name in DEFINITION.findall(code(text)) if not name.startswith("_")]


def layout_problem(name, text):
    """What is wrong with cmake/<name> (None when it keeps the rule)."""
    public = public_functions(text)
    if len(public) > 1:
        return f"{name} defines {len(public)} public functions ({', '.join(public)}): one file each"
    if public and name != f"{public[0]}.cmake":
        return f"{name} defines {public[0]}: name the file {public[0]}.cmake"
    return None


def cmake_files():
    return sorted(n for n in os.listdir(CMAKE) if n.endswith((".cmake", ".cmake.in")))


def read(name):
    with open(os.path.join(CMAKE, name), encoding="utf-8") as handle:
        return handle.read()


def test_every_cmake_file_has_at_most_one_public_function_named_after_it():
    problems = [p for p in (layout_problem(n, read(n)) for n in cmake_files()) if p]
    assert problems == []
    # The rule reads every file: the ones split for it, and the entry point.
    assert {"tdc_add_selftest.cmake", "tdc_installed_suite.cmake", "TdcTesting.cmake"} <= set(cmake_files())


def test_the_layout_rule_fails_on_two_public_functions_or_a_wrong_name():
    """The negatives: the old TdcLevelLabels.cmake (a macro and a function),
    a function in a file of another name; comments and helpers are no
    functions."""
    two = "macro(tdc_read_level_rules)\nendmacro()\n\nfunction(tdc_level_labels out test labels)\nendfunction()\n"
    assert "2 public functions (tdc_read_level_rules, tdc_level_labels)" in layout_problem("TdcLevelLabels.cmake", two)
    assert "name the file tdc_level_labels.cmake" in layout_problem(
        "TdcLevelLabels.cmake", "function(tdc_level_labels out)\nendfunction()\n")
    assert "public functions" in layout_problem("x.cmake", "FUNCTION(tdc_a)\nendfunction()\n  function (tdc_b)\n")
    helpers = ("# function(tdc_in_a_comment)\n#[[\nfunction(tdc_in_a_bracket_comment)\n]]\n"
               "function(_tdc_helper)\nendfunction()\nfunction(tdc_one)\nendfunction()\n")
    assert layout_problem("tdc_one.cmake", helpers) is None
    assert layout_problem("TdcTesting.cmake", "set(TDC_X 1)\ninclude(y)\n") is None


def installed():
    """The files cmake/TdcInstall.cmake installs into share/tdc/cmake."""
    with open(os.path.join(CMAKE, "TdcInstall.cmake"), encoding="utf-8") as handle:
        lists = INSTALL_FILES.findall(code(handle.read()))
    assert lists, "cmake/TdcInstall.cmake installs nothing into share/tdc/cmake"
    return {os.path.basename(path) for listed in lists for path in listed.split()}


def missing_from_install(files, texts):
    """(file, what it names) for each file of cmake/ that an installed file
    (or TDCConfig.cmake.in) names and that is not installed."""
    found = {name: REFERENCE.findall(code(texts(name))) for name in files}
    found["TDCConfig.cmake.in"] = CONFIG_REFERENCE.findall(code(texts("TDCConfig.cmake.in")))
    return sorted((name, wanted) for name, named in found.items() for wanted in named if wanted not in files)


def test_every_file_an_installed_cmake_file_includes_is_installed():
    files = installed()
    assert missing_from_install(files, read) == []
    assert {"TdcTesting.cmake", "TdcInstalledTests.cmake", "tdc_installed_suite.cmake"} <= files
    # The negative: a split-off file left out of the install list is named.
    assert ("TdcInstalledTests.cmake", "tdc_installed_suite.cmake") in \
        missing_from_install(files - {"tdc_installed_suite.cmake"}, read)
