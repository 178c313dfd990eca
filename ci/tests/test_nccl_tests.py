"""tdc side-by-side's (d): nccl-tests' all_reduce_perf read and set beside
tdc_bench_collectives' busbw (tdc.bench.nccl_tests). The table below is
all_reduce_perf's own format (nccl-tests 2.13, out-of-place then in-place)."""
import pytest

from tdc.bench import nccl_tests

OUTPUT = """\
# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  12345 on   host device  0 [0x18] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    37.41    0.00    0.00      0    36.13    0.00    0.00      0
     1048576        262144     float     sum      -1    48.51   21.62   37.83      0    47.92   21.88   38.29      0
   134217728      33554432     float     sum      -1    737.1  182.09  318.66      3    734.6  182.71  319.74      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 118.85
#
"""


def test_the_out_of_place_busbw_and_wrong_count_per_size_are_read():
    assert nccl_tests.parse(OUTPUT) == {8: (0.0, 0), 1048576: (37.83, 0), 134217728: (318.66, 3)}


def test_output_without_a_table_is_one_line():
    with pytest.raises(nccl_tests.NcclTestsOutput, match="printed no result table"):
        nccl_tests.parse("# nThread 1 nGpus 1\n# Avg bus bandwidth    : 0\n")


def test_rows_say_met_missed_latency_bound_and_wrong():
    theirs = nccl_tests.parse(OUTPUT)
    # 8 B: latency-bound, reported only; 1 MiB: 0.95 of NCCL's, met; 128 MiB:
    # nccl-tests itself counted wrong elements, which the row says first.
    rows = nccl_tests.compare({8: 0.0001, 1048576: 37.83 * 0.95, 134217728: 300.0, 4096: 1.0}, theirs, 8)
    assert [row[-1] for row in rows] == ["reported (latency-bound size)", "met", "nccl-tests counted 3 wrong"]
    assert rows[1][0] == "(d) cuda w8 allreduce 1 MiB: TDC / all_reduce_perf" and rows[1][3] == "0.95"
    slow = nccl_tests.compare({1048576: 37.83 * 0.5}, theirs, 8)
    assert slow[0][-1] == "MISSED" and slow[0][3] == "0.50"


def test_one_gpu_or_no_program_is_a_row_saying_why(tmp_path):
    one = nccl_tests.rows(str(tmp_path), {}, 1, None, True)
    assert one[0][-1] == "not measured: 1 cuda device(s); a collective needs two"
    missing = str(tmp_path / "all_reduce_perf")
    none = nccl_tests.rows(str(tmp_path), {}, 8, missing, True)
    assert none[0][-1] == f"not measured: nccl-tests' all_reduce_perf not found ({missing}; --nccl-tests=PATH)"
