"""(d) of tdc side-by-side: tdc_bench_collectives' allreduce on cuda beside
nccl-tests' all_reduce_perf on the same GPUs, same sizes, float32 SUM.

Both report nccl-tests' busbw (algbw x 2(n-1)/n for allreduce), so the ratio
is TDC's path (LibTorch's ProcessGroupNCCL, one process per rank, timed from
a barrier to a synchronised device) over NCCL's own (one process driving
every GPU). all_reduce_perf runs with its check on (-c 1): a #wrong other
than 0 is said in the row. Ratios are reported, never asserted; at small
sizes both measure launch latency, so the target applies from TARGET_FROM
bytes up.
"""
import os
import shutil
import subprocess
import tempfile

from tdc.bench import results as bench_results

PROGRAM = "all_reduce_perf"
TARGET = 0.9
TARGET_FROM = 1 << 20   # bytes


class NcclTestsOutput(Exception):
    """all_reduce_perf printed no table: the message is one line."""


def parse(text):
    """{bytes: (out-of-place busbw in GB/s, #wrong or None)} from
    all_reduce_perf's table (its '#' lines are headers and the summary)."""
    rows = {}
    for line in text.splitlines():
        fields = line.split()
        if not fields or line.lstrip().startswith("#") or not fields[0].isdigit():
            continue
        # size count type redop root | time algbw busbw #wrong | (in-place: the same)
        if len(fields) < 9:
            continue
        try:
            size, busbw = int(fields[0]), float(fields[7])
        except ValueError:
            continue
        wrong = int(fields[8]) if fields[8].isdigit() else None  # "N/A" without -c
        rows[size] = (busbw, wrong)
    if not rows:
        raise NcclTestsOutput(f"{PROGRAM} printed no result table")
    return rows


def find(explicit):
    """The all_reduce_perf to run: --nccl-tests's, else the one on PATH."""
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which(PROGRAM)


def not_measured(why):
    return [("(d) cuda allreduce busbw: TDC / nccl-tests all_reduce_perf", "", "", "", f">= {TARGET}",
             f"not measured: {why}")]


def rows(bin_dir, env, cuda_devices, nccl_tests, quick):
    """The (d) rows: one per size both measured, or one saying why none."""
    if cuda_devices < 2:
        return not_measured(f"{cuda_devices} cuda device(s); a collective needs two")
    program = find(nccl_tests)
    if program is None:
        return not_measured(f"nccl-tests' {PROGRAM} not found ({nccl_tests or 'PATH'}; --nccl-tests=PATH)")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "collectives.json")
        quick_flag = ["--tdc-quick"] if quick else []
        done = subprocess.run([os.path.join(bin_dir, "tdc_bench_collectives"), *quick_flag,
                               "--benchmark_filter=^collectives/allreduce/cuda/",
                               f"--benchmark_out={out}", "--benchmark_out_format=json"],
                              env=env, stdout=subprocess.DEVNULL)
        if done.returncode != 0 or not os.path.exists(out):
            return not_measured(f"tdc_bench_collectives exited {done.returncode}")
        ours = {r.size: r for r in bench_results.load(out)[1] if r.busbw_gbps and r.size}
    if not ours:
        return not_measured("tdc_bench_collectives measured no cuda allreduce")
    world = max(r.world or 0 for r in ours.values())
    sizes = sorted(ours)
    run = subprocess.run([program, "-b", str(sizes[0]), "-e", str(sizes[-1]), "-f", "2", "-g", str(world),
                          "-c", "1", "-d", "float", "-o", "sum"], env=env, capture_output=True, text=True)
    if run.returncode != 0:
        last = (run.stderr or run.stdout).strip().splitlines()
        return not_measured(f"{program} exited {run.returncode}: {last[-1] if last else 'no output'}")
    try:
        theirs = parse(run.stdout)
    except NcclTestsOutput as failure:
        return not_measured(str(failure))
    return compare({size: r.busbw_gbps for size, r in ours.items()}, theirs, world) or not_measured(
        f"{program} measured none of TDC's sizes ({', '.join(map(str, sizes))})")


def compare(ours, theirs, world):
    """Rows for the sizes both measured: ours {bytes: busbw}, theirs parse()'s."""
    table = []
    for size in sorted(set(ours) & set(theirs)):
        busbw, wrong = theirs[size]
        mine = ours[size]
        ratio = mine / busbw if busbw > 0 else float("nan")
        if wrong:
            verdict = f"nccl-tests counted {wrong} wrong"
        elif size < TARGET_FROM:
            verdict = "reported (latency-bound size)"
        else:
            verdict = "met" if ratio >= TARGET else "MISSED"
        table.append((f"(d) cuda w{world} allreduce {bench_results.human_bytes(size)}: TDC / all_reduce_perf",
                      f"{mine:.4g} GB/s", f"{busbw:.4g} GB/s", f"{ratio:.2f}",
                      f">= {TARGET} from {bench_results.human_bytes(TARGET_FROM)}", verdict))
    return table
