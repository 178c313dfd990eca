"""tdc.summarize: every failure carries its reason; entries the selection
held but ctest never reported count as failed; the console keeps devices
apart from what is not a device."""
from conftest import DAMAGED, junit_text

from tdc import ctest, gtest, junit, summarize


def build(write, junit_body, gtest_files=(), selected=None, log=""):
    path = write("junit.xml", junit_body)
    for name, text in gtest_files:
        write(f"gtest/{name}.xml", text)
    records = gtest.read_dir(path.rsplit("/", 1)[0] + "/gtest") if gtest_files else {}
    return summarize.build(junit.read(path), records, {}, 2.0, 1, ctest.outcomes(log), selected,
                           "the run's budget of 50 s ran out before it started")


def test_reasons_never_empty(write):
    from conftest import gtest_text
    summary = build(write, junit_text(
        ("A.x/cpu", "fail", '<failure message=""/>'),
        ("A.y/cpu", "fail", '<failure message=""/><system-out>step 1\nsegfault in copy_\n</system-out>'),
        ("A.z/cpu", "fail", '<failure message=""/><system-out>[ RUN      ] A.z/cpu\n</system-out>')),
        [("A.x/cpu", gtest_text("A.x/cpu", {"check": "A.x"}, '<failure message="a.cpp:9&#10;value 3 != 4"/>'))],
        log=" 3/3 Test #3: A.z/cpu .....***Timeout  16.00 sec\n")
    by_name = {t["name"]: t for t in summary["tests"]}
    assert by_name["A.x/cpu"]["message"] == "value 3 != 4"              # GoogleTest's
    assert by_name["A.y/cpu"]["message"] == "segfault in copy_"         # the last meaningful line
    assert by_name["A.z/cpu"]["message"].startswith("timed out after 16.0 s")
    assert all(g["message"] for g in summary["failures_by_root_cause"])


def test_selected_but_never_reported_is_a_failure(write):
    summary = build(write, junit_text(("A.x/cpu", "run", "")), selected=["A.x/cpu", "B.y/cpu"])
    missing = [t for t in summary["tests"] if t["name"] == "B.y/cpu"][0]
    assert missing["status"] == "failed" and missing["message"].startswith("not run: the run's budget")
    assert summary["totals"]["failed"] == 1


def test_devices_apart_from_what_is_not_a_device(write):
    summary = build(write, junit_text(
        ("Selection.PicksCpu", "run", ""), ("DeviceExpectation.IsPresent/loopback_at_least_2", "run", ""),
        ("Placement.AVeryLongCheckNameThatWouldBreakAFixedColumn/mybackend_12", "run", ""),
        ("Placement.X/cpu", "run", ""),
        # dtype-suffixed instances are of their device, never a device of their own
        # (issue 23, finding 4: cpu_bfloat16 was listed as a device).
        ("Forward.Seed/cpu_bfloat16", "run", ""), ("loopback:Forward.Seed/loopback_0_float16", "run", "")))
    assert sorted(summary["devices"]) == ["cpu", "loopback:0", "mybackend:12"]
    assert summary["devices"]["cpu"]["passed"] == 2 and summary["devices"]["loopback:0"]["passed"] == 1
    assert sorted(summary["other"]) == ["expectation", "host"]
    lines = summarize.console(summary)
    rows = [l for l in lines if l.startswith(("cpu", "mybackend:12", "host-level", "TDC_EXPECT"))]
    assert len({len(l) for l in rows if l.startswith(("cpu", "mybackend"))}) == 1  # aligned


def test_root_causes_group_with_their_reason():
    summary = summarize.build(junit.read(f"{DAMAGED}/root_causes.xml"), {}, {}, None, None)
    (group,) = summary["failures_by_root_cause"]
    assert group["message"] == "Module::to(loopback:0) threw: set_data: incompatible tensor type"
    assert len(group["dependents"]) == 2


def test_counts_only_and_bad_seconds(capsys):
    assert summarize.main(["--junit", f"{DAMAGED}/root_causes.xml", "--counts-only"]) == 0
    assert capsys.readouterr().out.split() == ["1", "3", "0"]
    assert summarize.main(["--junit", f"{DAMAGED}/root_causes.xml", "--seconds", "nan"]) == 2
    assert "not a finite number" in capsys.readouterr().err


BATCH = ('<testsuites><testsuite name="Placement">'
         '<testcase name="X/cpu" classname="Placement" status="run" time="0.2"><properties>'
         '<property name="test" value="Placement.X/cpu"/><property name="entry" value="placement@cpu"/>'
         '<property name="check" value="Placement.X"/>'
         '<property name="device" value="cpu"/></properties>{fail}</testcase>'
         '<testcase name="Y/cpu" classname="Placement" status="run" time="0.3"><properties>'
         '<property name="test" value="Placement.Y/cpu"/><property name="entry" value="placement@cpu"/>'
         '<property name="check" value="Placement.Y"/>'
         '<property name="device" value="cpu"/></properties></testcase></testsuite></testsuites>')


def test_a_batched_entry_is_its_checks(write):
    # Batched runs: one ctest entry per suite and device set, its checks in
    # one file with `test` and `entry` properties each (fixtures/batch).
    summary = build(write, junit_text(("placement@cpu", "run", "")),
                    [("placement@cpu", BATCH.format(fail=""))])
    assert sorted(t["name"] for t in summary["tests"]) == ["Placement.X/cpu", "Placement.Y/cpu"]
    assert summary["totals"]["passed"] == 2 and summary["tests"][0]["seconds"] == 0.2


def test_a_batched_entry_that_failed_says_so(write):
    failing = build(write, junit_text(("placement@cpu", "fail", "<failure/>")),
                    [("placement@cpu", BATCH.format(fail='<failure message="a.cpp:1&#10;lost: killed"/>'))])
    assert {t["name"]: t["status"] for t in failing["tests"]} == {"Placement.X/cpu": "failed",
                                                                  "Placement.Y/cpu": "passed"}


def test_a_failed_entry_whose_checks_all_passed_is_a_failure_of_its_own(write, tmp_path):
    summary = build(write, junit_text(("placement@cpu", "fail", '<system-out>tdc_batch: refused\n</system-out>')),
                    [("placement@cpu", BATCH.format(fail=""))])
    assert [t["name"] for t in summary["tests"] if t["status"] == "failed"] == ["placement@cpu"]


def test_measurements_are_kept_as_numbers(write):
    """The level-3 checks' measured.<name> properties (the sustained run's
    seconds, the d2d matrix) reach summary.json as numbers, and the summary
    still matches its schema."""
    from conftest import gtest_text
    from tdc import results
    matrix = ('{&quot;unit&quot;:&quot;GB/s&quot;,&quot;rows&quot;:[&quot;loopback:0&quot;,&quot;loopback:1&quot;],'
              '&quot;columns&quot;:[&quot;loopback:0&quot;,&quot;loopback:1&quot;],'
              '&quot;values&quot;:[[null,1.39],[1.44,null]]}')
    summary = build(write, junit_text(("DeviceToDeviceBandwidth.MatrixIsCompleteAndExact", "run", ""),
                                      ("SustainedNumerics.S/cpu", "run", "")),
                    [("DeviceToDeviceBandwidth.MatrixIsCompleteAndExact",
                      gtest_text("DeviceToDeviceBandwidth.MatrixIsCompleteAndExact",
                                 {"measured.d2d_GBps.loopback": matrix})),
                     ("SustainedNumerics.S/cpu", gtest_text("SustainedNumerics.S/cpu",
                                                            {"measured.sustained_seconds": "10"}))])
    by_name = {t["name"]: t for t in summary["tests"]}
    assert by_name["DeviceToDeviceBandwidth.MatrixIsCompleteAndExact"]["matrices"]["d2d_GBps.loopback"]["values"] \
        == [[None, 1.39], [1.44, None]]
    assert by_name["SustainedNumerics.S/cpu"]["measurements"] == {"sustained_seconds": 10}
    assert results.stamp(summary) and not results.schema.errors(results.stamp(summary), results.schema_of("summary"))
    table = "\n".join(summarize.console(summary))
    assert "d2d_GBps.loopback (GB/s, rows from, columns to)" in table
    assert "  loopback:0         N/A        1.39" in table


def test_console_names_the_skips_by_reason():
    # Issue 23, finding 7: the table's skips with their reasons, grouped, capped.
    absent = [(f"Placement.X{i}/cuda_0", "notrun", "cuda:0 is absent") for i in range(5)]
    summary = {"devices": {"cpu": {"passed": 1}}, "other": {}, "failures_by_root_cause": [], "wall_seconds": None,
               "tests": [{"name": n, "status": "skipped", "message": m} for n, _, m in absent]
               + [{"name": "Forward.Y/cpu", "status": "skipped", "message": "no float64 here"},
                  {"name": "Forward.Z/cpu", "status": "passed", "message": ""}]}
    lines = [l for l in summarize.console(summary) if l.startswith("SKIPPED")]
    assert lines == ["SKIPPED 5: cuda:0 is absent (Placement.X0/cuda_0, Placement.X1/cuda_0, Placement.X2/cuda_0 "
                     "and 2 more)", "SKIPPED 1: no float64 here (Forward.Y/cpu)"]
