"""The fixtures' libraries have no include loop (issue 30): a file that
names a device in a prerequisite line must not need discovery, which makes
those lines. Each unit is a header in fixtures/include/tdc with its source in
fixtures/src of the same name; unit A uses unit B when A's header or source
includes "tdc/B.h". A loop among units is a cycle in that graph."""
import os
import re

from conftest import ROOT
from graph_loops import cycles

INCLUDE = re.compile(r'^\s*#\s*include\s+"tdc/([^"]+)\.h"', re.M)


def units(fixtures):
    """{unit: the units it includes} for the headers and sources under `fixtures`."""
    graph = {}
    for folder, suffix in (("include/tdc", ".h"), ("src", ".cpp")):
        base = os.path.join(fixtures, folder)
        for here, _, files in os.walk(base):
            for name in files:
                if not name.endswith(suffix):
                    continue
                path = os.path.join(here, name)
                unit = os.path.relpath(path, base)[: -len(suffix)]
                with open(path, encoding="utf-8") as f:
                    used = set(INCLUDE.findall(f.read())) - {unit}
                graph.setdefault(unit, set()).update(used)
    return graph


def test_the_fixtures_have_no_include_loop():
    graph = units(os.path.join(ROOT, "fixtures"))
    assert "discovery" in graph and "prerequisite" in graph, "the walk found no fixtures"
    assert cycles(graph) == [], f"include loops among fixture units: {cycles(graph)}"


def test_a_planted_loop_is_found(tmp_path):
    # discovery -> prerequisite -> devices_under_test -> discovery, the loop
    # this test was written against.
    (tmp_path / "include" / "tdc").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    for unit, uses in {"discovery": "prerequisite", "prerequisite": "devices_under_test",
                       "devices_under_test": "discovery", "text": None}.items():
        (tmp_path / "include" / "tdc" / f"{unit}.h").write_text("#pragma once\n")
        body = f'#include "tdc/{unit}.h"\n' + (f'#include "tdc/{uses}.h"\n' if uses else "")
        (tmp_path / "src" / f"{unit}.cpp").write_text(body)
    assert cycles(units(str(tmp_path))) == [["devices_under_test", "discovery", "prerequisite", "devices_under_test"]]
