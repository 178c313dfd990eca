"""tdc_bench_collectives' results beside the transfer benchmarks (issue 31):
the run's report shows each collective's busbw (table and chart), the
level-3 qualification gate that ci/package packs and ci/verify reads gates
collectives_*.json, fleet outliers compare a collective across hosts of one
device model, and tdc compare judges it night to night."""
import json
import re
import subprocess

from tdc import qualification_gate, verbs
from tdc.bench import compare
from tdc.fleet import outliers

NAME = "collectives/allreduce/cpu/w2/4096/manual_time"
TRANSFER = "transfer/d2d/cpu/4096/manual_time"


def gbench(name, samples_us, busbw=None):
    """One series: its repetitions and their median, with tdc_bench_collectives'
    counters when busbw (GB/s) is given."""
    counters = {} if busbw is None else {"busbw_GBps": busbw, "algbw_GBps": busbw / 2}
    entries = [{"name": name, "run_name": name, "run_type": "iteration", "real_time": s, "time_unit": "us",
                "bytes_per_second": 4096 / (s * 1e-6), **counters} for s in samples_us]
    median = sorted(samples_us)[len(samples_us) // 2]
    entries.append({"name": name + "_median", "run_name": name, "run_type": "aggregate",
                    "aggregate_name": "median", "real_time": median, "time_unit": "us",
                    "bytes_per_second": 4096 / (median * 1e-6), **counters})
    return entries


def document(*series):
    return json.dumps({"context": {}, "benchmarks": [e for s in series for e in s]})


def floors(busbw):
    return json.dumps({"devices": {"cpu": {"min_bandwidth_GBps": {"d2d": {"8": 0.001}},
                                           "min_busbw_GBps": {"allreduce": {"8": busbw}}}}})


# (a) the report
def report_folder(folder, busbw):
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps({"run_id": "20261204T000000Z-0123abcd", "level": 3, "tests": [
        {"name": "Build.Flags", "check": "Build.Flags", "device": "", "status": "passed", "seconds": 0.1}]}))
    (folder / "context.json").write_text(json.dumps({"host": "n1", "level": 3}))
    (folder / "bench").mkdir()
    (folder / "bench" / "collectives_host.json").write_text(document(gbench(NAME, [100.0] * 3, busbw)))
    return folder


def page_of(folder):
    report, env = verbs.child("report", python="/usr/bin/python3")  # Debian's, which has jinja2
    run = subprocess.run([*report, str(folder)], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    return open(run.stdout.strip(), encoding="utf-8").read()


def test_the_report_shows_a_collectives_busbw_per_op_size_and_world(tmp_path):
    page = page_of(report_folder(tmp_path / "a", busbw=1.25))
    table = re.search(r'id="bench-table"(.*?)</table>', page, re.S).group(1)
    assert "busbw GB/s" in table
    row = re.sub(r"<[^>]+>", " ", re.search(r'<tr class="bench-row">(.*?)</tr>', table, re.S).group(1)).split()
    assert row[:6] == ["cpu", "collectives", "allreduce", "w2", "4", "KiB"] and "1.250" in row, row
    assert 'id="chart-busbw"' in page
    # Without the counter there is no busbw to show: no chart, no number.
    page = page_of(report_folder(tmp_path / "b", busbw=None))
    assert 'id="chart-busbw"' not in page and "1.250" not in page


# (b) the qualification gate that ci/package packs (bench/gate.json) and ci/verify reads
def gate(tmp_path, busbw):
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "transfer_host.json").write_text(document(gbench(TRANSFER, [1.0] * 3)))
    (bench / "collectives_host.json").write_text(document(gbench(NAME, [100.0] * 3, busbw=0.5)))
    (tmp_path / "t.json").write_text(floors(busbw))
    status = qualification_gate.main(["--bench-dir", str(bench), "--thresholds", str(tmp_path / "t.json")])
    return status, json.loads((bench / "gate.json").read_text())


def test_the_qualification_gate_gates_the_collectives(tmp_path):
    (tmp_path / "a").mkdir()
    status, verdict = gate(tmp_path / "a", busbw=0.01)
    assert status == 0 and verdict["results"] == ["collectives_host.json", "transfer_host.json"]
    (tmp_path / "b").mkdir()
    status, verdict = gate(tmp_path / "b", busbw=1.0)   # 0.5 GB/s busbw < 1.0: the gate fails
    assert status == 1 and "collectives allreduce w2 4 KiB: 0.500 GB/s busbw < required" in verdict["output"]


# (c) fleet outliers
def collective(rate, device="cuda", world=8):
    return {f"collectives/allreduce/{device}/w{world}/4096": {"seconds": 1.0, "bytes_per_second": rate, "cv": 0.01}}


def test_a_collective_far_below_the_same_model_is_an_outlier():
    collector = outliers.Collector()
    for i, rate in enumerate([10.0, 10.2, 9.9, 10.1, 9.8, 10.0, 10.3, 7.0]):
        collector.add(f"n{i}", "b", collective(rate * 1e9), {"cpu": "cpu", "cuda:0": "H100", "cuda:1": "H100"})
    flags = collector.flagged()
    assert [(f["host"], f["device"], f["model"]) for f in flags] == [("n7", "cuda", "H100")]
    assert outliers.by_device(flags)[0]["message"] == \
        "cuda on n7: collectives allreduce across 8 ranks at 4 KiB is 0.70x its 7 peers (H100)"


def test_collectives_compare_only_with_the_same_models_and_world():
    collector = outliers.Collector()
    for i in range(6):
        collector.add(f"n{i}", "b", collective(10.0), {"cuda:0": "H100", "cuda:1": "H100"})
    collector.add("mixed", "b", collective(5.0), {"cuda:0": "H100", "cuda:1": "A100"})   # a model of its own
    collector.add("small", "b", collective(5.0, world=2), {"cuda:0": "H100", "cuda:1": "H100"})  # its own series
    collector.add("unnamed", "b", collective(5.0), {})                                # no model: left out
    assert collector.flagged() == []
    assert ("A100 + H100", "collectives/allreduce/*/w8/4096") in collector.groups


# (d) tdc compare, night to night: a collective is a benchmark of its file like any other
def test_compare_finds_a_slower_collective(tmp_path, capsys):
    for tag, samples in (("old", [100.0] * 10), ("new", [300.0] * 10)):
        (tmp_path / tag).mkdir()
        (tmp_path / tag / "collectives_host.json").write_text(document(gbench(NAME, samples, busbw=0.5)))
    assert compare.main([str(tmp_path / "old"), str(tmp_path / "new")]) == 1
    assert f"REGRESSION collectives_host.json: {NAME}" in capsys.readouterr().out
    assert compare.main([str(tmp_path / "old"), str(tmp_path / "old")]) == 0
