"""tdc.bench: numbers that are not numbers are bad input; the comparison's
noise floor and non-overlap rule."""
import json

import pytest

from tdc.bench import compare
from tdc.bench import results as bench_results


def gbench(samples, name="transfer/d2d/cpu/4096/manual_time", **median_changes):
    entries = [{"name": name, "run_name": name, "run_type": "iteration", "real_time": s, "time_unit": "us",
                "bytes_per_second": 4096 / (s * 1e-6)} for s in samples]
    median = sorted(samples)[len(samples) // 2]
    entries.append({"name": name + "_median", "run_name": name, "run_type": "aggregate",
                    "aggregate_name": "median", "real_time": median, "time_unit": "us",
                    "bytes_per_second": 4096 / (median * 1e-6), **median_changes})
    return {"context": {}, "benchmarks": entries}


@pytest.mark.parametrize("text, message", [
    ('{"benchmarks": [{"name": "a/b/c", "real_time": NaN}]}', "NaN is not a JSON number"),
    ('{"benchmarks": [{"name": "a/b/c", "real_time": Infinity}]}', "Infinity is not a JSON number"),
    ('{"benchmarks": [{"name": "a/b/c", "real_time": -1}]}', "not a finite non-negative number"),
    ('{"benchmarks": [{"name": "a/b/c", "real_time": "1"}]}', "not a finite non-negative number"),
    ('{"benchmarks": [{"name": "a/b/c", "real_time": 1, "time_unit": "fortnight"}]}', "time_unit"),
    ('{"context": {"tdc.device.cpu.name": ["A"]}, "benchmarks": []}', "expected a string"),
    ('[]', "not a Google Benchmark JSON file"),
])
def test_bad_numbers_are_bad_input(write, text, message):
    with pytest.raises(bench_results.BadResults, match=message):
        bench_results.load(write("r.json", text))


def test_an_error_without_a_message_is_still_an_error(write):
    text = {"benchmarks": [{"name": "a/b/c", "error_occurred": True, "error_message": None}]}
    (result,) = bench_results.load(write("r.json", json.dumps(text)))[1]
    assert result.error == "error (no message given)"


def result(samples):
    return bench_results.Result("n", "transfer", "d2d", "cpu", 4096, sorted(samples)[len(samples) // 2],
                                None, {}, None, len(samples), None, samples=samples)


@pytest.mark.parametrize("old, new, regressed", [
    ([1.0, 1.0, 1.0, 1.0, 1.0], [1.5, 1.5, 1.5, 1.5, 1.5], True),          # every repetition slower
    ([1.0, 1.1, 1.0, 1.05, 1.0], [1.0, 1.02, 1.0, 1.01, 1.0], False),      # the same
    ([1.0, 2.0, 1.2, 1.5, 1.1], [1.6, 1.7, 1.6, 1.8, 2.1], False),         # +45%, but noise is 83%
    ([1.0, 1.0, 1.0, 1.0, 1.3], [1.2, 1.25, 1.3, 1.25, 1.2], False),        # overlaps the baseline
    ([1.0, 1.0, 1.0, 1.0, 1.0], [2000.0] * 5, True),                        # a loopback delay
])
def test_noise_floor_and_overlap(old, new, regressed):
    assert compare.judge(result(old), result(new), 0.10, 2.0)[2] is regressed


def test_compare_folders(tmp_path, capsys):
    for tag, samples in (("old", [1.0] * 10), ("new", [3.0] * 10)):
        (tmp_path / tag).mkdir()
        (tmp_path / tag / "transfer_host.json").write_text(json.dumps(gbench(samples)))
        (tmp_path / tag / "gate.json").write_text("{}")  # not a benchmark file: not compared
    assert compare.main([str(tmp_path / "old"), str(tmp_path / "new")]) == 1
    assert "REGRESSION transfer_host.json" in capsys.readouterr().out
    assert compare.main([str(tmp_path / "old"), str(tmp_path / "old")]) == 0


def test_too_few_repetitions_are_not_compared(tmp_path, capsys):
    for tag in ("old", "new"):
        (tmp_path / f"{tag}.json").write_text(json.dumps(gbench([1.0] * 5)))
    assert compare.main([str(tmp_path / "old.json"), str(tmp_path / "new.json")]) == 2
    assert "fewer than 10 repetitions" in capsys.readouterr().out
