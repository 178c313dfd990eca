"""A failure's reason survives into every output, in TDC's words (issue 33):
a thrown exception is its description, never GoogleTest's "unknown file";
a missing kernel or a device guard call left at c10's default reads as what
to add (tdc.gaps); one missing kernel is one root cause; "What to add" lists
each missing piece once, most failures first, with its docs/backends.md
section. The XML below is GoogleTest's own, as a tdc_batch entry writes it."""
import json
import os

from conftest import ROOT, junit_text

from tdc import backends_doc, gaps, gtest, junit, results, schema, summarize, verdict

KERNEL_MESSAGE = ("Could not run &apos;aten::sum.IntList_out&apos; with arguments from the &apos;PrivateUse1&apos; "
                  "backend. This could be because the operator doesn&apos;t exist for this backend, or was "
                  "omitted during the selective/custom build process (if using custom build).&#x0A;&#x0A;"
                  "CPU: registered at /pytorch/build/aten/src/ATen/RegisterCPU.cpp:31085 [kernel]&#x0A;"
                  "Exception raised from reportError at /pytorch/aten/src/ATen/core/dispatch/OperatorEntry.cpp:632 "
                  "(most recent call first):&#x0A;frame #0: c10::Error::Error(c10::SourceLocation, std::string) + "
                  "0x96 (0x7f1 in libc10.so)&#x0A;frame #1: c10::impl::OperatorEntry::reportError(c10::DispatchKey) "
                  "const + 0x3f1 (0x7f2 in libtorch_cpu.so)&#x0A;")
POOL_MESSAGE = ("Backend doesn&apos;t support acquiring a stream from pool.&#x0A;Exception raised from "
                "getStreamFromGlobalPool at /torch/include/c10/core/impl/DeviceGuardImplInterface.h:127 (most recent "
                "call first):&#x0A;frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96&#x0A;")
EVENTS_MESSAGE = "LOOPBACK backend doesn&apos;t support events.&#x0A;Exception raised from record at x.h:346"


def thrown(description):
    """GoogleTest's <failure> for an exception that left the test body: the
    message attribute escaped, the element's text in CDATA."""
    text = f"unknown file&#x0A;C++ exception with description &quot;{description}&quot; thrown in the test body.&#x0A;"
    raw = text.replace("&#x0A;", "\n").replace("&quot;", '"').replace("&apos;", "'")
    return f'<failure message="{text}" type=""><![CDATA[{raw}]]></failure>'


def asserted(*lines):
    text = "&#x0A;".join(("/src/suites/x.cpp:12",) + lines)
    return f'<failure message="{text}" type=""/>'


def batch(cases):
    """One tdc_batch file: (result name, check, device, <failure> or '')."""
    body = ""
    for name, check, device, child in cases:
        suite, _, test = name.split("/")[0].partition(".")
        props = (f'<property name="test" value="{name}"/><property name="entry" value="loopback.batch"/>'
                 f'<property name="check" value="{check}"/><property name="device" value="{device}"/>'
                 f'<property name="device_type" value="{device.split(":")[0]}"/>')
        body += (f'<testcase name="{test}/{name.split("/")[1]}" status="run" result="completed" time="0.01" '
                 f'classname="{suite}">{child}<properties>{props}</properties></testcase>')
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="{len(cases)}"><testsuite name="batch">'
            f'{body}</testsuite></testsuites>\n')


def summary_of(write, cases):
    junit_path = write("junit.xml", junit_text(("loopback.batch", "fail", '<failure message=""/>')))
    write("gtest/batch.xml", batch(cases))
    records = gtest.read_dir(os.path.dirname(junit_path) + "/gtest")
    return summarize.build(junit.read(junit_path), records, {}, 3.0, 2)


# A minimal backend: one missing kernel hit by three checks on two devices,
# the no-op guard's streams (one owner, a dependent naming it), an add that
# returns garbage, a check that passed.
MINIMAL = [
    ("SpawnedChild.RunsTheSeedForward/loopback_0", "SpawnedChild.RunsTheSeedForward", "loopback:0",
     thrown(KERNEL_MESSAGE)),
    ("ForkedChild.WorksOrSaysWhy/loopback_0", "ForkedChild.WorksOrSaysWhy", "loopback:0", thrown(KERNEL_MESSAGE)),
    ("ForkedChild.WorksOrSaysWhy/loopback_1", "ForkedChild.WorksOrSaysWhy", "loopback:1", thrown(KERNEL_MESSAGE)),
    ("StreamDefault.ExistsAndPoolStreamsDifferFromIt/loopback_0", "StreamDefault.ExistsAndPoolStreamsDifferFromIt",
     "loopback:0", thrown(POOL_MESSAGE)),
    ("StreamNew.DiffersFromTheDefault/loopback_0", "StreamNew.DiffersFromTheDefault", "loopback:0",
     asserted("prerequisite failed: the guard gives streams: Backend doesn't support acquiring a stream from "
              "pool. (checked by StreamDefault.ExistsAndPoolStreamsDifferFromIt/loopback_0)")),
    ("StreamSynchronize.Query/loopback_0", "StreamSynchronize.Query", "loopback:0",
     asserted("prerequisite failed: the guard gives streams: Backend doesn't support acquiring a stream from "
              "pool. (checked by StreamDefault.ExistsAndPoolStreamsDifferFromIt/loopback_0)")),
    ("Forward.SeedModelMatchesFloat64Reference/loopback_0", "Forward.SeedModelMatchesFloat64Reference",
     "loopback:0", asserted("Value of: close", "  Actual: false", "Expected: true",
                            "the seed forward on loopback:0 differs from the float64 reference by 3.5")),
    ("Placement.X/loopback_0", "Placement.X", "loopback:0", ""),
]


def test_a_thrown_exception_is_its_description_never_unknown_file(write):
    summary = summary_of(write, MINIMAL)
    messages = [t["message"] for t in summary["tests"] if t["status"] == "failed"]
    assert messages and not any(m.startswith("unknown file") or "C++ exception" in m for m in messages)
    assert not any("frame #" in m or "unknown file" in m for m in messages)
    record = gtest.read_dir(os.path.dirname(write("x", "")) + "/gtest")[
        "SpawnedChild.RunsTheSeedForward/loopback_0"]
    assert record.reason.startswith("Could not run 'aten::sum.IntList_out' with arguments from the 'PrivateUse1'")


def test_c10_backtrace_is_cut_to_the_frame_that_raised_it():
    text = ('unknown file\nC++ exception with description "Expected self.scalar_type() == dst.scalar_type() to be '
            'true, but got false.\nException raised from _copy_from at /vendor/copy.cpp:88 (most recent call first):'
            '\nframe #0: c10::Error::Error + 0x96\nframe #1: vendor::copy_from + 0x10\n" thrown in the test body.\n')
    assert junit.exception_description(text) == ("Expected self.scalar_type() == dst.scalar_type() to be true, "
                                                  "but got false.\n(raised from _copy_from at /vendor/copy.cpp:88)")
    assert junit.first_reason(text).startswith("Expected self.scalar_type() == dst.scalar_type()")
    assert junit.exception_description("a.cpp:3\nvalue 3 != 4") is None


def test_a_missing_kernel_reads_as_what_to_add_and_is_one_root_cause(write):
    summary = summary_of(write, MINIMAL)
    by_name = {t["name"]: t for t in summary["tests"]}
    fix = ("Missing kernel aten::sum.IntList_out for PrivateUse1: register it (TORCH_LIBRARY_IMPL(aten, PrivateUse1, "
           "m)) or route it to the CPU fallback (docs/backends.md, Kernels)")
    assert by_name["ForkedChild.WorksOrSaysWhy/loopback_1"]["message"] == fix
    (kernel_group,) = [g for g in summary["failures_by_root_cause"] if g.get("kernel")]
    assert kernel_group["kernel"] == "aten::sum.IntList_out"
    assert kernel_group["root_cause"] == "SpawnedChild.RunsTheSeedForward/loopback_0"
    assert sorted(kernel_group["dependents"]) == ["ForkedChild.WorksOrSaysWhy/loopback_0",
                                                  "ForkedChild.WorksOrSaysWhy/loopback_1"]


def test_a_guard_default_reads_as_the_missing_interface(write):
    summary = summary_of(write, MINIMAL)
    owner = [t for t in summary["tests"] if t["check"] == "StreamDefault.ExistsAndPoolStreamsDifferFromIt"][0]
    assert owner["message"] == "Missing: getStreamFromGlobalPool in loopback's DeviceGuardImplInterface"
    assert owner["section"] == gaps.STREAMS
    events = gaps.of("LOOPBACK backend doesn't support events. (raised from record at x.h:346)", "")
    assert events.fix == "Missing: record, block and queryEvent (events) in loopback's DeviceGuardImplInterface"
    assert events.section == gaps.EVENTS
    several = gaps.of("the guard gives no streams: getDefaultStream threw: Backend doesn't support acquiring a "
                      "default stream.; getStreamFromGlobalPool threw: Backend doesn't support acquiring a stream "
                      "from pool.", "mine")
    assert several.fix == "Missing: getDefaultStream, getStreamFromGlobalPool in mine's DeviceGuardImplInterface"


def test_what_to_add_lists_each_missing_piece_once_most_failures_first(write):
    summary = summary_of(write, MINIMAL)
    what = summary["what_to_add"]
    assert [entry["failures"] for entry in what] == [3, 3, 1]
    assert what[0]["fix"].startswith("Missing kernel aten::sum.IntList_out")
    assert what[0]["section"] == gaps.KERNELS and what[0]["devices"] == ["loopback:0", "loopback:1"]
    assert what[1]["fix"] == "Missing: getStreamFromGlobalPool in loopback's DeviceGuardImplInterface"
    # No gap: the check's own message, GoogleTest's expression after it.
    assert what[2]["fix"] == ("the seed forward on loopback:0 differs from the float64 reference by 3.5 "
                              "[Value of: close Actual: false Expected: true]")
    lines = summarize.console(summary)
    start = lines.index("What to add (3 root cause(s), most failures first):")
    assert lines[start + 1].startswith("  1. Missing kernel aten::sum.IntList_out") and all(line.startswith("No TDC_EXPECT") for line in lines[start + 4:])  # the caveat, then the verdict
    assert f'[docs/backends.md, "{gaps.STREAMS}"]' in lines[start + 2]
    assert not schema.errors(results.stamp(summary), results.schema_of("summary"))


def test_a_prerequisite_line_is_never_translated():
    line = ("prerequisite failed: Module::to(loopback:0): Could not run 'aten::mm' with arguments from the "
            "'PrivateUse1' backend. (checked by Placement.ModuleToMovesParametersAndBuffers/loopback_0)")
    assert gaps.of(line, "loopback") is None
    assert gaps.of("the copy differs at element 7", "loopback") is None  # no gap: left as it is


def test_a_root_cause_without_a_gap_cites_the_section_naming_its_check():
    page = {"Host allocator": "fails `PinnedMemory.PinMemoryGivesPinnedMemoryAndPageableMemoryIsNot` (`pin-fake`)",
            "Copies": "`Placement.*`"}
    assert backends_doc.section_naming("PinnedMemory.PinMemoryGivesPinnedMemoryAndPageableMemoryIsNot", page) \
        == "Host allocator"
    assert backends_doc.section_naming("Placement.ToLeavesSourceWhereItWas", page) == "Copies"
    assert backends_doc.section_naming("Serialization.RoundTrip", page) == ""


def test_the_verdict_carries_what_to_add(write, tmp_path, capsys):
    summary = summary_of(write, MINIMAL)
    path = str(tmp_path / "summary.json")
    results.write(path, summary, "summary")
    out = str(tmp_path / "verdict.json")
    assert verdict.main(["--summary", path, "--level", "2", "--out", out, "--quiet"]) == 1
    document = results.read(out, "verdict")
    assert [e["fix"] for e in document["what_to_add"]] == [e["fix"] for e in summary["what_to_add"]]


def test_the_report_has_what_to_add_and_missing_kernels(write, tmp_path):
    from tdc.report import run
    summary = summary_of(write, MINIMAL)
    results.write(str(tmp_path / "summary.json"), summary, "summary")
    view = run.view(str(tmp_path))
    assert view["what_to_add"][0]["fix"].startswith("Missing kernel aten::sum.IntList_out")
    (row,) = view["missing_kernels"]
    assert row["kernel"] == "aten::sum.IntList_out"
    assert row["checks"] == ["ForkedChild.WorksOrSaysWhy", "SpawnedChild.RunsTheSeedForward"]


def test_every_section_a_gap_names_is_in_docs_backends_md():
    with open(os.path.join(ROOT, "docs", "backends.md"), encoding="utf-8") as handle:
        titles = backends_doc.sections(handle.read())
    missing = lambda page: [s for s in gaps.sections() if s not in page]
    assert missing(titles) == []
    assert missing({k: v for k, v in titles.items() if k != gaps.EVENTS}) == [gaps.EVENTS]  # it can fail


def test_the_fault_matrix_holds_what_to_add_to_the_gap_and_nothing_else():
    from tdc import faults
    registry = faults.load()
    no_streams = registry.by_name("no-streams")
    right = [{"fix": "Missing: getDefaultStream, getStreamFromGlobalPool in loopback's DeviceGuardImplInterface"}]
    assert no_streams.what_to_add_problems(right) == []
    assert no_streams.what_to_add_problems([]) == [
        "What to add does not name 'Missing: getDefaultStream, getStreamFromGlobalPool in '"]
    extra = right + [{"fix": "Missing kernel aten::sum.IntList_out for PrivateUse1: ..."}]
    assert no_streams.what_to_add_problems(extra) == [
        "What to add names another gap too: 'Missing kernel aten::sum.IntList_out for PrivateUse1: ...'"]
    # Every personality of issue 33 is held to its What to add.
    for name in ("no-streams", "no-events", "missing-kernel=sum", "missing-kernel=uniform", "pinned-flag-global"):
        assert registry.by_name(name).what_to_add, name


def test_a_message_that_says_only_where_or_what_is_caught():
    for bare in ("", "unknown file", "/src/x.cpp:12", "Value of: independent(a, b) Actual: false Expected: true",
                 "Expected equality of these values: first.device() Which is: loopback device() Which is: loopback:0"):
        assert junit.says_only_where_or_what(bare), bare
    for reason in ("pageable memory reads as pinned: ... [Value of: x Actual: true Expected: false]",
                   "Missing kernel aten::sum for PrivateUse1: register it ...",
                   "prerequisite failed: the guard gives streams: ... (checked by StreamDefault.X/loopback_0)"):
        assert not junit.says_only_where_or_what(reason), reason


def test_the_console_form_of_a_thrown_exception_gives_its_description_too():
    # What ctest's JUnit carries in <system-out>: GoogleTest's console lines.
    output = ('[ RUN      ] StreamNew.X/loopback_0\nunknown file: Failure\nC++ exception with description "Backend '
              "doesn't support acquiring a stream from pool.\nException raised from getStreamFromGlobalPool at "
              'x.h:127 (most recent call first):\nframe #0: c10::Error::Error\n" thrown in SetUp().\n'
              "[  FAILED  ] StreamNew.X/loopback_0 (0 ms)\n")
    assert junit.first_reason(output) == "Backend doesn't support acquiring a stream from pool."


def test_every_run_names_its_failures_that_say_only_where_or_what(write):
    """The summary of any run, not only a fault's, names each failure that is
    no reason (GoogleTest's expression alone here), and the console says so;
    the failures that carry a reason are not named."""
    bare = ("Guard.X/loopback_0", "Guard.X", "loopback:0", asserted("Value of: ok", "  Actual: false", "Expected: true"))
    summary = summary_of(write, MINIMAL + [bare])
    named = summary["reasonless_failures"]
    assert len(named) == 1 and named[0].endswith("Guard.X/loopback_0"), named
    assert any(line.startswith("NO REASON  1 failure(s)") for line in summarize.console(summary))
    assert not schema.errors(results.stamp(summary), results.schema_of("summary"))
    assert summary_of(write, MINIMAL)["reasonless_failures"] == []
