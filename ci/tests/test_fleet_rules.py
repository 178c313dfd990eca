"""The fleet rules on small hand-made rows: signatures, node fault against
regression, outliers, history, the task list and the matrix file format.
(Real packages go through them in suites/selftest/test_fleet_merge.py.)"""
import json
import os

import pytest

from tdc.fleet import history, matrix, outliers, signatures, tasks
from tdc.errors import InputError


def row(host, build="2.13.0", fails=(), checks=("A.X", "B.Y", "C.Z"), devices=("cuda:0", "cuda:1"),
        driver="575.1", skipped=(), dependents=()):
    cells = {}
    for device in devices:
        for check in checks:
            status = "failed" if (check, device) in fails or (check, device) in dependents else \
                "skipped" if (check, device) in skipped else "passed"
            cell = {"status": status, "seconds": 0.1, "tests": 1}
            if status == "failed":
                cell.update(failed=1, message=f"{check} broke",
                            root_cause="A.X/cuda_0" if (check, device) in dependents else None)
            cells.setdefault(device, {})[check] = cell
    return {"host": host, "build": build, "trust": "verified", "cells": cells,
            "devices": {d: {"name": "H100", "driver": driver, "type": "cuda"} for d in devices},
            "counts": {}, "problems": [], "state": "COMPLETED"}


def digest(r):
    from tdc.fleet.merge import digest_of
    return digest_of(r)


def test_a_host_failing_what_others_pass_is_a_node_fault():
    rows = [row("n1", fails={("B.Y", "cuda:1")})] + [row(f"n{i}") for i in range(2, 6)]
    judged = signatures.findings([digest(r) for r in rows])
    finding = judged[("2.13.0", "B.Y")]
    assert finding["kind"] == "node fault" and finding["failing_hosts"] == ["n1"]
    assert finding["hosts_passed"] == 4


def test_every_host_of_a_build_failing_is_a_build_wide_failure_of_that_build():
    rows = [row(f"a{i}", "2.14.1", fails={("C.Z", "cuda:0")}) for i in range(3)] + \
           [row(f"b{i}", "2.13.0") for i in range(3)]
    judged = signatures.findings([digest(r) for r in rows])
    assert judged[("2.14.1", "C.Z")]["kind"] == "build-wide failure"
    assert ("2.13.0", "C.Z") not in judged


def test_the_hosts_of_one_driver_failing_is_a_driver_wide_failure():
    rows = [row(f"a{i}", fails={("A.X", "cuda:0")}, driver="580.0") for i in range(3)] + \
           [row(f"b{i}", driver="575.1") for i in range(3)]
    judged = signatures.findings([digest(r) for r in rows])
    assert judged[("2.13.0", "A.X")]["kind"] == "driver-wide failure"
    assert judged[("2.13.0", "A.X")]["driver"] == "580.0"


def test_one_host_alone_is_undetermined():
    judged = signatures.findings([digest(row("n1", fails={("A.X", "cuda:0")}))])
    assert judged[("2.13.0", "A.X")]["kind"] == "undetermined"


def test_hosts_group_by_signature_and_dependents_are_left_out():
    rows = [row(f"n{i}", fails={("B.Y", "cuda:1")}) for i in range(12)] + \
           [row("m1", fails={("A.X", "cuda:0")}, dependents={("C.Z", "cuda:0")})] + \
           [row(f"ok{i}") for i in range(5)]
    digests = [digest(r) for r in rows]
    groups = signatures.groups(digests, signatures.findings(digests))
    assert [(g["count"], g["title"]) for g in groups] == [
        (12, "B.Y on cuda:1"), (1, "A.X on cuda:0"), (5, "passed")]
    assert groups[0]["items"][0]["kind"] == "node fault"


def test_rows_without_results_group_by_why():
    digests = [signatures.Digest("n1", "2.13.0", "no package", state="TIMEOUT"),
               signatures.Digest("n2", "2.13.0", "no package", state="TIMEOUT"),
               signatures.Digest("n3", "2.13.0", "unverified", why="bad signature: MANIFEST.sig does not verify")]
    groups = signatures.groups(digests, {})
    assert {(g["count"], g["signature"]) for g in groups} == {
        (2, "no package: TIMEOUT"), (1, "unverified: bad signature")}


def bench(rate, device="cuda:0"):
    return {f"transfer/h2d/{device}/268435456": {"seconds": 1.0, "bytes_per_second": rate, "cv": 0.01}}


def test_a_device_far_below_its_peers_is_an_outlier_and_no_other():
    collector = outliers.Collector()
    for i, rate in enumerate([10.0, 10.2, 9.9, 10.1, 9.8, 10.0, 10.3, 7.0]):
        collector.add(f"n{i}", "2.13.0", bench(rate * 1e9), {"cuda:0": "H100"})
    flags = collector.flagged()
    assert [(f["host"], f["device"]) for f in flags] == [("n7", "cuda:0")]
    line = outliers.by_device(flags)[0]["message"]
    assert line == "cuda:0 on n7: transfer h2d at 256 MiB is 0.70x its 7 peers (H100)"


def test_a_device_hundreds_of_times_slower_is_not_shown_as_zero_times():
    collector = outliers.Collector()
    for i, rate in enumerate([10.0] * 6 + [0.012]):
        collector.add(f"n{i}", "2.13.0", bench(rate * 1e9), {"cuda:0": "H100"})
    line = outliers.by_device(collector.flagged())[0]["message"]
    assert line == "cuda:0 on n6: transfer h2d at 256 MiB is 0.0012x its 6 peers (H100)"


def test_noise_and_small_groups_and_other_models_are_not_outliers():
    collector = outliers.Collector()
    for i, rate in enumerate([10.0, 8.5, 11.0, 9.0, 12.0, 8.8]):   # wide spread, none far out
        collector.add(f"n{i}", "b", bench(rate), {"cuda:0": "H100"})
    for i, rate in enumerate([10.0, 10.0, 5.0]):                    # too few peers to judge
        collector.add(f"a{i}", "b", bench(rate), {"cuda:0": "A100"})
    assert collector.flagged() == []


def test_identical_peers_flag_a_slow_device_despite_zero_mad():
    collector = outliers.Collector()
    for i, rate in enumerate([10.0] * 5 + [7.9]):
        collector.add(f"n{i}", "b", bench(rate), {"cuda:0": "H100"})
    assert [f["host"] for f in collector.flagged()] == ["n5"]
    collector = outliers.Collector()
    for i, rate in enumerate([10.0] * 5 + [8.5]):   # 0.85x: above the ratio floor
        collector.add(f"n{i}", "b", bench(rate), {"cuda:0": "H100"})
    assert collector.flagged() == []


def test_latency_series_are_judged_by_their_rate():
    collector = outliers.Collector()
    for i, seconds in enumerate([1e-5] * 5 + [2e-5]):
        collector.add(f"n{i}", "b", {"latency/h2d/cuda:0/4096": {"seconds": seconds, "bytes_per_second": None,
                                                                  "cv": 0.01}}, {"cuda:0": "H100"})
    assert [(f["host"], f["ratio"]) for f in collector.flagged()] == [("n5", 0.5)]


def write_night(directory, night, rows):
    path = os.path.join(directory, night, "matrix.json")
    os.makedirs(os.path.dirname(path))
    writer = matrix.Writer(path, {"night": night, "generated_at": f"{night}T00:00:00Z", "provenance": "x"})
    for r in rows:
        writer.add(r)
    writer.close({"totals": {}})
    return path


def compare(tmp_path, nights, tonight_rows, tonight="2026-01-09", **kwargs):
    for night, rows in nights.items():
        write_night(str(tmp_path), night, rows)
    loaded = history.load(str(tmp_path), tonight, **kwargs)
    comparison = history.Comparison(loaded.nights, tonight, **kwargs)
    for r in tonight_rows:
        comparison.add(r)
    return comparison.report(), tonight_rows


def listed(report, key):
    return {(i["check"], i["device"], tuple(i["hosts"])) for i in report[key]}


def test_history_names_new_fixed_still_failing_since_and_newly_skipped(tmp_path):
    nights = {"2026-01-07": [row("n1", fails={("A.X", "cuda:0")}), row("n2")],
              "2026-01-08": [row("n1", fails={("A.X", "cuda:0")}), row("n2", fails={("B.Y", "cuda:1")}),
                             row("n3")]}
    tonight = [row("n1", fails={("A.X", "cuda:0")}), row("n2", skipped={("C.Z", "cuda:0")}),
               row("n3", fails={("C.Z", "cuda:1")})]
    report, rows = compare(tmp_path, nights, tonight)
    assert listed(report, "newly_failing") == {("C.Z", "cuda:1", ("n3 (2.13.0)",))}
    assert listed(report, "fixed") == {("B.Y", "cuda:1", ("n2 (2.13.0)",))}
    assert report["still_failing"][0]["since"] == "2026-01-07"
    assert rows[0]["cells"]["cuda:0"]["A.X"]["since"] == "2026-01-07"
    assert rows[2]["cells"]["cuda:1"]["C.Z"]["since"] == "2026-01-09"
    assert listed(report, "newly_skipped") == {("C.Z", "cuda:0", ("n2 (2.13.0)",))}
    # One night failed between two passes: two changes, so also flaky.
    assert [(i["check"], i["outcomes"]) for i in report["flaky"]] == [("B.Y", "PFP")]


def test_flaky_needs_two_changes_in_the_window(tmp_path):
    f = {("A.X", "cuda:0")}
    nights = {"2026-01-05": [row("n1"), row("n2", fails=f)],
              "2026-01-06": [row("n1", fails=f), row("n2", fails=f)],
              "2026-01-07": [row("n1"), row("n2", fails=f)],
              "2026-01-08": [row("n1", fails=f), row("n2", fails=f)]}
    report, _ = compare(tmp_path, nights, [row("n1"), row("n2")], window=7)
    assert [(i["hosts"], i["outcomes"]) for i in report["flaky"]] == [(["n1 (2.13.0)"], "PFPFP")]
    # n2 failed four nights, then was fixed: a fix, not flakiness.
    assert listed(report, "fixed") == {("A.X", "cuda:0", ("n1 (2.13.0)", "n2 (2.13.0)"))}


def test_a_flake_outside_the_window_is_forgotten(tmp_path):
    f = {("A.X", "cuda:0")}
    nights = {"2026-01-01": [row("n1", fails=f)], "2026-01-02": [row("n1")], "2026-01-03": [row("n1", fails=f)],
              "2026-01-06": [row("n1")], "2026-01-07": [row("n1")], "2026-01-08": [row("n1")]}
    report, _ = compare(tmp_path, nights, [row("n1")], window=3)
    assert report["flaky"] == []


def test_hosts_without_a_report_for_too_long_are_stale(tmp_path):
    nights = {"2026-01-05": [row("n1"), row("n2"), row("n3")], "2026-01-06": [row("n1"), row("n3")],
              "2026-01-07": [row("n1"), row("n3")], "2026-01-08": [row("n1")]}
    report, _ = compare(tmp_path, nights, [row("n1")], stale_after=2)
    assert [(s["host"], s["last_seen"], s["nights_missing"]) for s in report["stale_hosts"]] == \
        [("n2", "2026-01-05", 4)]   # n3: 2 nights without, not yet stale


def test_a_matrix_of_another_major_version_is_skipped_with_why(tmp_path):
    """A damaged or foreign earlier night is one warning, never an abort (issue 34, finding 7)."""
    path = write_night(str(tmp_path), "2026-01-08", [row("n1")])
    text = open(path).read().replace('"schema_version":"1.0"', '"schema_version":"2.0"')
    open(path, "w").write(text)
    loaded = history.load(str(tmp_path), "2026-01-09")
    assert loaded.nights == []
    assert [(s["path"], "schema_version '2.0'; this TDC reads 1.x: refused" in s["why"])
            for s in loaded.skipped] == [(path, True)]


def test_any_unreadable_json_under_history_is_skipped_and_the_rest_read(tmp_path):
    write_night(str(tmp_path), "2026-01-07", [row("n1", fails={("A.X", "cuda:0")})])
    (tmp_path / "notes.json").write_bytes(b"caf\xe9 {")                  # not UTF-8, not JSON
    (tmp_path / "list.json").write_text("[]")                             # JSON, not a matrix
    os.makedirs(tmp_path / "old")
    (tmp_path / "old" / "matrix.json").write_text('{"schema_version": "1.0", "kind": "tdc-fleet-matrix", '
                                                  '"night": "2020-01-01", "rows": [1, ')  # truncated, outside the window
    loaded = history.load(str(tmp_path), "2026-01-09")
    assert [n.name for n in loaded.nights] == ["2026-01-07"]
    assert sorted(os.path.relpath(s["path"], str(tmp_path)) for s in loaded.skipped) == \
        ["list.json", "notes.json", "old/matrix.json"]
    assert all(s["why"] and "\n" not in s["why"] for s in loaded.skipped)


def test_nights_that_are_not_dates_tonights_and_later_ones_are_skipped_and_named(tmp_path):
    for night in ("2026-13-45", "2026-01-09", "2026-02-01"):
        write_night(str(tmp_path), night, [row("n1")])
    loaded = history.load(str(tmp_path), "2026-01-09")
    why = sorted(s["why"] for s in loaded.skipped)
    assert loaded.nights == [] and len(why) == 3
    assert any("'2026-13-45' is not a date" in w for w in why)
    assert any("tonight's" in w for w in why) and any("after tonight" in w for w in why)


@pytest.mark.parametrize("text, real", [("2026-12-01", True), ("2026-13-45", False), ("0000-00-00", False),
                                        ("2026-02-30", False), ("2026-1-1", False), ("", False), (None, False)])
def test_a_night_is_a_real_date(text, real):
    assert history.is_night(text) is real


def test_a_since_that_is_no_night_is_derived_again(tmp_path):
    f = {("A.X", "cuda:0")}
    first = row("n1", fails=f)
    second = row("n1", fails=f)
    second["cells"]["cuda:0"]["A.X"]["since"] = "<script>alert(1)</script>"
    write_night(str(tmp_path), "2026-01-07", [first])
    write_night(str(tmp_path), "2026-01-08", [second])
    tonight = [row("n1", fails=f)]
    report, rows = compare(tmp_path, {}, tonight)
    assert rows[0]["cells"]["cuda:0"]["A.X"]["since"] == "2026-01-07"
    third = row("n1", fails=f)
    third["cells"]["cuda:0"]["A.X"]["since"] = "2099-01-01"              # after its own night
    write_night(str(tmp_path), "2026-01-10", [third])
    report, rows = compare(tmp_path, {}, [row("n1", fails=f)], tonight="2026-01-11")
    assert rows[0]["cells"]["cuda:0"]["A.X"]["since"] == "2026-01-07"


def test_without_an_earlier_night_nothing_is_newly_failing(tmp_path):
    """Issue 35: "Newly failing (34)" beside "Nights compared: none"."""
    report, _ = compare(tmp_path, {}, [row("n1", fails={("A.X", "cuda:0")})])
    assert report["compared_with"] is None and report["nights"] == []
    assert all(report[k] == [] for k in ("newly_failing", "fixed", "still_failing", "flaky", "newly_skipped"))
    report, _ = compare(tmp_path, {"2026-01-08": [row("n1")]}, [row("n1", fails={("A.X", "cuda:0")})])
    assert report["compared_with"] == "2026-01-08" and len(report["newly_failing"]) == 1


def test_history_keeps_the_run_ids_of_earlier_verified_rows(tmp_path):
    replayed, unverified = row("n1"), row("n2")
    replayed["run_id"] = "20260107T010000Z-0123abcd"
    unverified.update(run_id="20260107T010000Z-99999999", trust="unverified")
    write_night(str(tmp_path), "2026-01-07", [replayed, unverified])
    assert history.load(str(tmp_path), "2026-01-09").run_ids == {"20260107T010000Z-0123abcd": "2026-01-07"}


def test_matrix_reads_back_what_it_wrote_and_any_json_layout(tmp_path):
    path = write_night(str(tmp_path), "2026-01-08", [row("n1"), row("n2")])
    header, rows = matrix.read(path)
    assert header["night"] == "2026-01-08" and header["totals"] == {}
    assert [r["host"] for r in rows] == ["n1", "n2"]
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps({**header, "rows": [row("n9")]}, indent=2))
    header, rows = matrix.read(str(pretty))
    assert [r["host"] for r in rows] == ["n9"]
    truncated = tmp_path / "truncated.json"
    truncated.write_text(open(path).read()[:200])
    with pytest.raises(InputError, match="never end|not JSON"):
        matrix.read(str(truncated))


TASK = {"host": "n7", "build": "2.13.0", "job_id": "42", "array_task_id": 7, "state": "COMPLETED",
        "exit_code": 0, "package": "p.tar.gz", "reason": ""}


@pytest.mark.parametrize("change, message", [
    ({"state": "RUNNING"}, "state 'RUNNING' is not a finished Slurm state"),
    ({"colour": "red"}, "unknown key(s) 'colour'"),
    ({"exit_code": "0"}, "'exit_code' is str, expected an integer or null"),
    ({"host": ""}, "host and build must not be empty"),
    ({"host": "n\x007"}, "holds a control or unprintable character"),    # issue 34, finding 6
    ({"build": "2.13.0\n"}, "holds a control or unprintable character"),
    ({"array_task_id": True}, "'array_task_id' is bool"),
])
def test_bad_tasks_are_refused_with_one_line(tmp_path, change, message):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([{**TASK, **change}]))
    with pytest.raises(InputError) as error:
        tasks.read(str(path))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_tasks_resolve_packages_beside_the_file_and_refuse_duplicates(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([TASK, {**TASK, "host": "n8", "package": None, "state": "TIMEOUT"}]))
    read = tasks.read(str(path))
    assert read[0].package == str(tmp_path / "p.tar.gz") and read[1].package is None
    path.write_text(json.dumps([TASK, TASK]))
    with pytest.raises(InputError, match="is also task 0"):
        tasks.read(str(path))


def test_a_device_far_below_noisy_peers_is_judged_on_the_log_scale():
    """Peers spread 6x (a loaded shared host); a device 1000x slower is still
    far out on log(rate), where a linear MAD could not tell it from zero."""
    collector = outliers.Collector()
    for i, rate in enumerate([0.40, 0.20, 1.16, 0.68, 0.0004]):
        collector.add(f"n{i}", "b", bench(rate), {"cuda:0": "H100"})
    assert [f["host"] for f in collector.flagged()] == ["n4"]


def test_a_signature_names_each_check_once_with_its_devices_compactly():
    roots = tuple((check, f"cuda:{i}") for check in ("A.X", "B.Y") for i in range(8)) + (("C.Z", "cuda:3"),
                                                                                       ("C.Z", "cuda:4"))
    assert signatures.title_of(roots) == "A.X on cuda:0-7; B.Y on cuda:0-7; C.Z on cuda:3, cuda:4"
    assert signatures.title_of(roots + (("D.W", "cpu"),)).endswith("; and 1 more check")
