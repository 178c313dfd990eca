"""tdc.ctest_profile: a ctest run's slowest entries, how they run, which are nested."""
import json

from conftest import junit_text

from tdc import ctest_profile


def tests_json(write, *tests):
    document = {"kind": "ctestInfo", "tests": [
        {"name": name, "properties": [{"name": "LABELS", "value": labels}] + extra} for name, labels, extra in tests]}
    return write("tests.json", json.dumps(document))


def test_slowest_first_with_how_they_run(write, capsys):
    junit = write("junit.xml", junit_text(("fast", "run", ""), ("slow", "run", "")).replace(
        'name="slow" classname="slow" time="0.5"', 'name="slow" classname="slow" time="9.5"'))
    tests = tests_json(write, ("slow", ["selftest", "nested"], [{"name": "RUN_SERIAL", "value": True}]),
                       ("fast", ["selftest"], [{"name": "RESOURCE_LOCK", "value": ["tdc_nested_ctest"]}]))
    assert ctest_profile.main([junit, "--tests", tests, "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "| slow | 9.5 | 95.0 % | alone | yes |" in out and "| fast |" not in out
    assert "entries that run alone 10 s, nested runs 10 s" in out


def test_without_the_test_list_it_says_it_does_not_know(write, capsys):
    junit = write("junit.xml", junit_text(("a", "run", "")))
    assert ctest_profile.main([junit]) == 0
    assert "| a | 0.5 | 100.0 % | ? | ? |" in capsys.readouterr().out


def test_damaged_inputs_are_one_line(write, capsys):
    junit = write("junit.xml", junit_text(("a", "run", "")))
    for tests in (write("t1.json", "{"), write("t2.json", "[]")):
        assert ctest_profile.main([junit, "--tests", tests]) == 2
        err = capsys.readouterr().err
        assert err.startswith("ctest-profile: ") and err.count("\n") == 1
    assert ctest_profile.main([write("empty.xml", '<testsuite name="x" tests="0"></testsuite>')]) == 2
    assert "nothing ran" in capsys.readouterr().err
