"""side-by-side: comparisons on one host, in one run: the C++ benchmarks
against the references they should match.

  (a) the seed's forward: C++ tdc_bench_forward vs Python PyTorch
      (torch.utils.benchmark.Timer, median), same version. Target: C++ <= 0.5x.
  (c) on a CUDA host: pinned h2d/d2h vs raw cudaMemcpyAsync of the same size
      (tdc_cuda_memcpy_anchor, built with a CUDA LibTorch), and d2d vs
      PyTorch's own copy_ timed from Python. Target: >= 0.9x.
  (d) on a host of two or more GPUs with nccl-tests: tdc_bench_collectives'
      allreduce busbw on cuda against all_reduce_perf's (tdc.bench.nccl_tests;
      --nccl-tests=PATH, else all_reduce_perf on PATH). Target: >= 0.9x
      from 1 MiB.

(b), the harness against a bare loop of the same copies, is
tdc harness-overhead. memcpy is no target for LibTorch's copies (those ratios
measured LibTorch's own per-call cost, which the suite does not own); it is
the physical reference line of the bandwidth plot.

Targets are reported, never asserted: timing is not a pass/fail test here.
The Python side runs in --python (an interpreter with torch), as a subprocess,
so this script needs only the standard library.
"""
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile

from tdc import cli
from tdc.bench import nccl_tests
from tdc.bench import results as bench_results
from tdc.bench import table as report_table

# Table rows: the quick set's sizes and the largest, on the first device of
# each type (the others repeat it), to keep the table readable.
ROW_SIZES = {4 << 10, 256 << 10, 16 << 20, 256 << 20}

PYTHON_SIDE = r"""
import json, sys, torch, torch.utils.benchmark as tb
args = json.loads(sys.argv[1])
out = {"torch": torch.__version__}
model, x = torch.nn.Linear(3, 2), torch.ones(4, 3)
timer = tb.Timer(stmt="model(x)", setup="torch.set_grad_enabled(False)",
                 globals={"model": model, "x": x, "torch": torch}, num_threads=args["threads"])
out["seed_forward_s"] = timer.blocked_autorange(min_run_time=args["min_run_time"]).median
if torch.cuda.is_available():
    out["cuda_d2d_s"] = {}
    for size in args["sizes"]:
        src = torch.empty(size, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        t = tb.Timer(stmt="dst.copy_(src)", globals={"src": src, "dst": dst})
        out["cuda_d2d_s"][str(size)] = t.blocked_autorange(min_run_time=args["min_run_time"]).median
print(json.dumps(out))
"""


def run_json(cmd, env, out):
    subprocess.run(cmd + [f"--benchmark_out={out}", "--benchmark_out_format=json"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return bench_results.load(out)


def ratio_row(what, measured, reference, target, higher_is_better, unit):
    ratio = measured / reference
    met = ratio >= target if higher_is_better else ratio <= target
    sign = ">=" if higher_is_better else "<="
    return (what, f"{measured:.4g} {unit}", f"{reference:.4g} {unit}", f"{ratio:.2f}",
            f"{sign} {target}", "met" if met else "MISSED")


def raw_cuda_rows(bin_dir, transfers, env):
    """(c) pinned copies on cuda:0 against the same copies issued raw."""
    anchor = os.path.join(bin_dir, "tdc_cuda_memcpy_anchor")
    pinned = [r for r in transfers if r.device == "cuda:0" and r.size in ROW_SIZES
              and r.pattern in ("h2d_pinned", "d2h_pinned") and r.bytes_per_second]
    if not pinned or not os.path.exists(anchor):
        return []
    sizes = ",".join(sorted({str(r.size) for r in pinned}))
    with tempfile.TemporaryDirectory() as tmp:
        try:
            _, anchored = run_json([anchor, "--device=0", f"--sizes={sizes}"], env,
                                   os.path.join(tmp, "anchor.json"))
        except subprocess.CalledProcessError as failure:
            print(f"side_by_side: {anchor} failed (exit {failure.returncode})", file=sys.stderr)
            return []
    raw = {(r.pattern, r.size): r.bytes_per_second for r in anchored if r.bytes_per_second}
    return [ratio_row(f"(c) cuda:0 {r.pattern} {bench_results.human_bytes(r.size)}: C++ / raw cudaMemcpyAsync",
                      r.bytes_per_second / 1e9, raw[(r.pattern, r.size)] / 1e9, 0.9, True, "GB/s")
            for r in pinned if (r.pattern, r.size) in raw]


def run(argv):
    parser = cli.Parser("side_by_side", __doc__)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--python", default=sys.executable, help="an interpreter with torch")
    parser.add_argument("--out", help="markdown file to write the table to")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--nccl-tests", help="nccl-tests' all_reduce_perf for (d) (default: the one on PATH)")
    parser.add_argument("--threads", type=int, default=1,
                        help="intra-op threads on both sides (torch.utils.benchmark defaults to 1)")
    args = parser.parse_args(argv)

    bin_dir = os.path.join(args.build_dir, "bin")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    env.pop("TDC_BACKEND_LIBS", None)
    quick = ["--tdc-quick"] if args.quick else []

    with tempfile.TemporaryDirectory() as tmp:
        fwd_ctx, forward = run_json([os.path.join(bin_dir, "tdc_bench_forward"), *quick,
                                     "--benchmark_filter=^forward/seed_float32/cpu/"], env,
                                    os.path.join(tmp, "forward.json"))
        # (c) needs the CUDA copies only; a filter that matches nothing fails.
        xfer_ctx, transfers = fwd_ctx, []
        if any(key.startswith("tdc.device.cuda:0.") for key in fwd_ctx):
            xfer_ctx, transfers = run_json(
                [os.path.join(bin_dir, "tdc_bench_transfer"), *quick,
                 "--benchmark_filter=^transfer/(h2d_pinned|d2h_pinned|d2d)/cuda:0/"],
                env, os.path.join(tmp, "transfer.json"))
    sizes = sorted({r.size for r in transfers if r.size})
    py = subprocess.run([args.python, "-c", PYTHON_SIDE,
                         json.dumps({"threads": args.threads, "sizes": sizes,
                                     "min_run_time": 0.5 if args.quick else 2.0})],
                        capture_output=True, text=True, env=env)
    if py.returncode != 0:
        print(f"side_by_side: the Python side failed:\n{py.stderr[-2000:]}", file=sys.stderr)
        return 1
    python = json.loads(py.stdout.strip().splitlines()[-1])

    rows = []
    seed = next(r for r in forward if r.device == "cpu" and r.family == "forward")
    rows.append(ratio_row("(a) seed forward, cpu: C++ / Python", seed.seconds * 1e6,
                          python["seed_forward_s"] * 1e6, 0.5, False, "us"))
    rows += raw_cuda_rows(bin_dir, transfers, env)
    for r in transfers:
        if r.device.startswith("cuda") and r.pattern == "d2d" and str(r.size) in python.get("cuda_d2d_s", {}):
            rows.append(ratio_row(
                f"(c) {r.device} d2d {bench_results.human_bytes(r.size)}: C++ / Python copy_",
                r.bytes_per_second / 1e9, r.size / python["cuda_d2d_s"][str(r.size)] / 1e9,
                0.9, True, "GB/s"))
    cuda_devices = len({key.split(".")[2] for key in xfer_ctx if key.startswith("tdc.device.cuda:")})
    nccl_rows = nccl_tests.rows(bin_dir, env, cuda_devices, args.nccl_tests, args.quick)
    if not any(row[0].startswith("(c)") for row in rows):
        rows.append(("(c) CUDA copies vs raw cudaMemcpyAsync and Python", "", "", "", ">= 0.9",
                     "not measured: no cuda:0 here, or no tdc_cuda_memcpy_anchor"))
    rows += nccl_rows

    header = (f"Measured {datetime.date.today().isoformat()} on {platform.node()} "
              f"({xfer_ctx.get('num_cpus', '?')} CPUs, {platform.machine()}), "
              f"LibTorch {fwd_ctx.get('tdc.libtorch_version')} (C++) vs torch {python['torch']} "
              f"(Python), {args.threads} intra-op thread(s), "
              f"{'quick' if args.quick else 'full'} size set; medians of 5 repetitions.")
    report_table.emit(header, ["comparison", "measured", "reference", "ratio", "target", ""],
                      "lrrrll", rows, args.out)
    return 0


def main(argv=None):
    return cli.run_main("side_by_side", run, argv)
