"""plot-bandwidth: plots bandwidth against transfer size from tdc_bench_transfer JSON files:
one panel per copy pattern (h2d, d2h, d2d, ...), one line per device, and in
every panel the host's plain memcpy (the anchor: what the memory system does
with no device in the way; on CUDA hosts, the raw cudaMemcpy anchor too
when its results are given). Log-2 x axis (bytes), log-10 y axis (GB/s,
1e9 B/s, medians). Needs matplotlib (Debian python3-matplotlib).

  tdc plot-bandwidth RESULT.json... --out bandwidth.svg
Exit status: 0 written; 2 no usable input or no matplotlib (one line)."""
import os
import sys

from tdc import cli
from tdc.bench import results as bench_results

ANCHOR_PATTERNS = ("memcpy", "cuda_memcpy")


def curves(paths):
    """{pattern: {device: [(bytes, GB/s)]}} for the transfer results; a
    device seen in several files is labelled by file."""
    found = {}
    for path in paths:
        for r in bench_results.load(path)[1]:
            if r.family == "transfer" and r.bytes_per_second and r.size:
                found.setdefault(r.pattern, {}).setdefault((r.device, path), []).append(
                    (r.size, r.bytes_per_second / 1e9))
    result = {}
    for pattern, by_series in found.items():
        devices_in = {}
        for device, path in by_series:
            devices_in.setdefault(device, set()).add(path)
        for (device, path), points in sorted(by_series.items()):
            label = device
            if len(devices_in[device]) > 1:
                label += f" [{os.path.splitext(os.path.basename(path))[0]}]"
            result.setdefault(pattern, {})[label] = sorted(points)
    return result


def run(argv):
    parser = cli.Parser("plot_bandwidth", __doc__)
    parser.add_argument("results", nargs="+", help="tdc_bench_transfer JSON files")
    parser.add_argument("--out", required=True, help="the image to write (.svg or .png)")
    parser.add_argument("--title", default="tdc_bench_transfer: bandwidth vs transfer size")
    args = parser.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_bandwidth: matplotlib is not installed (apt install python3-matplotlib)", file=sys.stderr)
        return 2
    by_pattern = curves(args.results)
    anchors = {f"{device} {pattern}": points for pattern in ANCHOR_PATTERNS
               for device, points in by_pattern.pop(pattern, {}).items()}
    if not by_pattern:
        print("plot_bandwidth: no transfer results with bandwidth in the input", file=sys.stderr)
        return 2
    columns = min(3, len(by_pattern))
    rows = (len(by_pattern) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(5.5 * columns, 4.2 * rows), squeeze=False,
                                sharey=True)
    for panel, (pattern, series) in zip(axes.flat, sorted(by_pattern.items())):
        for label, points in series.items():
            panel.plot(*zip(*points), marker="o", markersize=3, label=label)
        for label, points in anchors.items():
            panel.plot(*zip(*points), color="black", linestyle="--", linewidth=1, label=label)
        panel.set_title(pattern)
        panel.set_xscale("log", base=2)
        panel.set_yscale("log")
        panel.set_xlabel("transfer size (bytes)")
        panel.grid(True, which="major", color="#ddd")
        panel.legend(fontsize=7)
    for panel in axes.flat[len(by_pattern):]:
        panel.set_visible(False)
    for row in axes:
        row[0].set_ylabel("bandwidth (GB/s, median)")
    figure.suptitle(args.title)
    figure.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    figure.savefig(args.out)
    print(f"plot_bandwidth: {len(by_pattern)} panels, {len(anchors)} anchor line(s) -> {args.out}")
    return 0


def main(argv=None):
    return cli.run_main("plot_bandwidth", run, argv)
