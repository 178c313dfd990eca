"""The run report reads on its own (issue 35, "The report, for a person"):
a PASS/FAIL banner with host, date and level; the seed's four lines; a
thresholds table (each result, its threshold, its verdict); the benchmark
numbers as a table; a legend for the host and expectation columns; the
reference backend labelled; the skip reasons summed up; and a message of
1 MB cut with a pointer to summary.json (issue 34, finding 12)."""
import json
import os
import re
import subprocess

from tdc import verbs

REPORT, REPORT_ENV = verbs.child("report", python="/usr/bin/python3")  # Debian's, which has jinja2


def gbench(run_name, seconds_us, size=None):
    entry = {"name": run_name, "run_name": run_name, "run_type": "aggregate", "aggregate_name": "median",
             "real_time": seconds_us, "time_unit": "us"}
    if size:
        entry["bytes_per_second"] = size / (seconds_us * 1e-6)
    return entry


def results_folder(tmp, failed=False, seed=True, message="x"):
    tests = [{"name": "Placement.RoundTrip/loopback_0", "check": "Placement.RoundTrip", "device": "loopback:0",
              "status": "failed" if failed else "passed", "seconds": 0.5, "message": message},
             {"name": "Streams.Ordering/cpu", "check": "Streams.Ordering", "device": "cpu", "status": "skipped",
              "seconds": 0.0, "message": "cpu has no streams"},
             {"name": "Streams.Events/cpu", "check": "Streams.Events", "device": "cpu", "status": "skipped",
              "seconds": 0.0, "message": "cpu has no streams"},
             {"name": "Build.Flags", "check": "Build.Flags", "device": "", "status": "passed", "seconds": 0.1}]
    (tmp / "summary.json").write_text(json.dumps({"run_id": "20261203T095006Z-cc5c8eae", "level": 2, "tests": tests}))
    (tmp / "context.json").write_text(json.dumps({"host": "node-<7>", "level": 2,
                                                  "devices": {"libtorch_version": "2.13.0"}}))
    if seed:
        (tmp / "device_select.txt").write_text(
            "libtorch_version=2.13.0\naccelerator=compiled: cpu, available: no, selected: cpu\n"
            "selected_device=cpu\nmodel_device=cpu\ninput_device=cpu\noutput_device=cpu\n")
    (tmp / "bench").mkdir()
    # cpu d2d at 4 KiB: 0.1 GB/s required (bench/thresholds.json); 4096 B in 1 us is 4.1 GB/s.
    (tmp / "bench" / "transfer.json").write_text(json.dumps({"context": {}, "benchmarks": [
        gbench("transfer/d2d/cpu/4096/manual_time", 1.0, 4096),
        gbench("transfer/clone/cpu/65536/manual_time", 1e6, 65536)]}))
    return tmp


def page_of(folder):
    run = subprocess.run([*REPORT, str(folder)], capture_output=True, text=True, timeout=120, env=REPORT_ENV)
    assert run.returncode == 0, run.stderr
    return open(run.stdout.strip(), encoding="utf-8").read()


def text_of(page, element_id):
    match = re.search(r'id="%s"[^>]*>(.*?)</(div|table|p)>' % element_id, page, re.S)
    assert match, f"no #{element_id} in the page"
    return re.sub(r"<[^>]+>", " ", match.group(1))


def test_the_banner_says_pass_or_fail_with_host_date_and_level(tmp_path):
    (tmp_path / "a").mkdir()
    page = page_of(results_folder(tmp_path / "a"))
    banner = text_of(page, "banner")
    # 65536 B in 1 s is far below clone's 0.3 GB/s: the run FAILs on its threshold alone.
    assert "FAIL" in banner and "node-&lt;7&gt;" in banner and "2026-12-03 09:50:06 UTC" in banner
    assert "level 2" in banner and "1 benchmark threshold violation(s)" in banner


def test_the_seed_lines_are_there_and_a_run_without_them_says_so(tmp_path):
    (tmp_path / "a").mkdir()
    seed = text_of(page_of(results_folder(tmp_path / "a")), "seed-table")
    for key in ("selected_device", "model_device", "input_device", "output_device"):
        assert re.search(key + r"\s+cpu", seed), seed
    (tmp_path / "b").mkdir()
    page = page_of(results_folder(tmp_path / "b", seed=False))
    assert 'id="seed-table"' not in page and "kept no seed report" in page


def test_the_thresholds_table_has_each_result_its_threshold_and_verdict(tmp_path):
    (tmp_path / "a").mkdir()
    page = page_of(results_folder(tmp_path / "a"))
    rows = re.findall(r'<tr class="threshold" data-verdict="([^"]+)">(.*?)</tr>', page, re.S)
    flat = {re.sub(r"<[^>]+>", " ", row).split()[3]: verdict for verdict, row in rows}
    assert flat == {"d2d": "passed", "clone": "violated"}, rows
    assert "≥ 0.1" in page and "≥ 0.3" in page
    assert "thresholds: 2 of 2 results checked, 1 violation(s)" in page
    bench = text_of(page, "bench-table")
    assert "4.096" in bench and "1000000.0" in bench   # GB/s and µs, as numbers


def test_a_passing_run_reads_pass(tmp_path):
    (tmp_path / "a").mkdir()
    folder = results_folder(tmp_path / "a")
    os.unlink(folder / "bench" / "transfer.json")
    banner = text_of(page_of(folder), "banner")
    assert "PASS" in banner and "FAIL" not in banner
    (tmp_path / "b").mkdir()
    folder = results_folder(tmp_path / "b", failed=True)
    os.unlink(folder / "bench" / "transfer.json")
    assert "1 test(s) failed" in text_of(page_of(folder), "banner")


def test_legend_reference_and_skip_reasons(tmp_path):
    (tmp_path / "a").mkdir()
    page = page_of(results_folder(tmp_path / "a"))
    legend = text_of(page, "columns-legend")
    assert "host" in legend and "_at_least_" in legend and "reference backend" in legend
    assert re.search(r'<th class="device reference">loopback:0 \(reference\)</th>', page)
    skips = text_of(page, "skips-table")
    assert re.search(r"2\s+cpu has no streams", skips), skips


def test_a_megabyte_message_is_cut_with_a_pointer_to_summary_json(tmp_path):
    (tmp_path / "a").mkdir()
    page = page_of(results_folder(tmp_path / "a", failed=True, message="y" * 1_000_000))
    assert len(page) < 200_000, len(page)
    assert "the whole message is in summary.json" in page


def test_a_fault_runs_reference_failures_keep_their_prefix_and_column(tmp_path):
    """tdc faults: the loopback under test beside its reference twin, both on loopback:0."""
    (tmp_path / "a").mkdir()
    folder = results_folder(tmp_path / "a", failed=True, message="faulty copy")
    summary = json.loads((folder / "summary.json").read_text())
    summary["tests"].append({"name": "loopback:Placement.RoundTrip/loopback_0", "check": "Placement.RoundTrip",
                             "device": "loopback:0", "status": "failed", "seconds": 0.5,
                             "message": "reference broke", "twin": True})
    (folder / "summary.json").write_text(json.dumps(summary))
    page = page_of(folder)
    assert '<th class="device reference">loopback:0 (reference)</th>' in page
    assert '<th class="device">loopback:0</th>' in page      # the device under test, not the reference
    causes = re.findall(r'<tr class="root-cause" data-check="([^"]+)">', page)
    assert sorted(causes) == ["Placement.RoundTrip", "loopback:Placement.RoundTrip"], causes
