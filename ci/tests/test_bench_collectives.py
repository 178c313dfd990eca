"""tdc_bench_collectives' results: names with a world, and the min_busbw_GBps
floors of check-thresholds (a slow collective fails, a typo'd op is bad
input, a result without the counter is not checked)."""
import json

import pytest

from tdc.bench import results as bench_results
from tdc.bench import thresholds

NAME = "collectives/allreduce/cpu/w2/4096/manual_time"


def gbench(busbw, name=NAME):
    """One series of 3 repetitions and its median, busbw in GB/s (or None: no counter)."""
    counters = {} if busbw is None else {"busbw_GBps": busbw, "algbw_GBps": busbw}
    entries = [{"name": name, "run_name": name, "run_type": "iteration", "real_time": 100.0, "time_unit": "us",
                **counters} for _ in range(3)]
    entries.append({"name": name + "_median", "run_name": name, "run_type": "aggregate", "aggregate_name": "median",
                    "real_time": 100.0, "time_unit": "us", **counters})
    return json.dumps({"context": {}, "benchmarks": entries})


def floors(**ops):
    return json.dumps({"devices": {"cpu": {"min_busbw_GBps": ops or {"allreduce": {"8": 0.01}}}}})


def test_a_collective_names_its_world_and_size():
    assert bench_results.parse_name(NAME) == ("collectives", "allreduce", "cpu", 4096, 2)
    assert bench_results.parse_name("transfer/d2d/cpu/4096/manual_time") == ("transfer", "d2d", "cpu", 4096, None)


def test_busbw_above_the_floor_passes(write):
    assert thresholds.main(["--thresholds", write("t.json", floors()), write("r.json", gbench(0.5))]) == 0


def test_busbw_below_the_floor_is_a_violation(write, capsys):
    assert thresholds.main(["--thresholds", write("t.json", floors()), write("r.json", gbench(0.001))]) == 1
    assert "cpu: collectives allreduce w2 4 KiB: 0.001 GB/s busbw < required 0.01 GB/s busbw" in \
        capsys.readouterr().out


def test_the_floor_applies_from_its_size(write):
    later = floors(allreduce={"8": 0.0001, "65536": 100.0})  # 100 GB/s only from 64 KiB: not this 4 KiB result
    assert thresholds.main(["--thresholds", write("t.json", later), write("r.json", gbench(0.5))]) == 0


@pytest.mark.parametrize("entry, message", [
    ({"min_busbw_GBps": {"allreduc": {"8": 0.01}}}, "unknown pattern 'allreduc'"),
    ({"min_busbw_GBp": {"allreduce": {"8": 0.01}}}, "unknown key 'min_busbw_GBp'"),
    ({"min_busbw_GBps": {"allreduce": 0.01}}, "expected"),
    ({"min_busbw_GBps": {"allreduce": {"8 B": 0.01}}}, "is not a byte count"),
    ({"min_busbw_GBps": {"allreduce": {"8": -1}}}, "is not a positive number"),
])
def test_bad_floors_are_bad_input(write, capsys, entry, message):
    path = write("t.json", json.dumps({"devices": {"cpu": entry}}))
    assert thresholds.main(["--thresholds", path, write("r.json", gbench(0.5))]) == 2
    assert message in capsys.readouterr().err


def test_a_result_without_busbw_is_not_checked(write, capsys):
    assert thresholds.main(["--thresholds", write("t.json", floors()), write("r.json", gbench(None))]) == 2
    out = capsys.readouterr()
    assert "not checked (no threshold): 1 result(s)" in out.out
    assert "no result was checked" in out.err


def test_the_shipped_floors_cover_the_quick_sizes():
    """bench/thresholds.json has a floor for every op at every quick size (8 B up)
    on cpu and loopback: --require-thresholds passes on a collectives run."""
    entries = thresholds.load_thresholds(thresholds.DEFAULT_THRESHOLDS, set())
    for device in ("cpu", "loopback"):
        steps = entries[device]["min_busbw_GBps"]
        assert sorted(steps) == sorted(thresholds.COLLECTIVES)
        for op in thresholds.COLLECTIVES:
            assert thresholds.step_value(steps[op], 8) is not None, (device, op)
