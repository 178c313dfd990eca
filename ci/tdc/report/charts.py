"""Charts for the reports, drawn with matplotlib (Debian's python3-matplotlib)
and embedded as data: URIs, so a report is one file that works offline.

bandwidth(results)  one panel per copy pattern, GB/s against transfer size,
                    one line per device (medians)
busbw(results)      one panel per collective, bus bandwidth (GB/s) against
                    message size, one line per device type and world
latency(results)    one bar per device and latency series, microseconds
                    (medians)
peers(...)          one benchmark series across the fleet's devices of one
                    model, the outliers marked
results are bench_results.Result objects (tdc.bench.results)."""
import base64
import io
import os

from tdc.bench import results as bench_results
from tdc.optional import require


_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf"]


def _pyplot():
    matplotlib = require("matplotlib", "python3-matplotlib")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "tdc"  # the same chart gives the same file
    import matplotlib.pyplot as plt
    return plt


def check_requirements():
    _pyplot()


def _plain(axis, which):
    """Tick labels as plain numbers (0.5, 2, 300), not 5 x 10^-1."""
    from matplotlib.ticker import FuncFormatter
    formatter = FuncFormatter(lambda value, _: f"{value:g}")
    target = axis.yaxis if which == "y" else axis.xaxis
    target.set_major_formatter(formatter)
    target.set_minor_formatter(FuncFormatter(lambda value, _: ""))


def _scale(axis, which, values):
    """Log only when the values span more than 20x; plain labels either way."""
    values = [v for v in values if v > 0]
    if values and max(values) / min(values) > 20:
        (axis.set_yscale if which == "y" else axis.set_xscale)("log")
    _plain(axis, which)


def _data_uri(figure, plt):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(figure)
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _labels(results):
    """result -> its line's label: the device, and its file when the device
    was measured in more than one (the host run and the loopback run)."""
    sources = {}
    for r in results:
        sources.setdefault(r.device, set()).add(os.path.basename(r.source))
    return lambda r: r.device + (f" [{os.path.splitext(os.path.basename(r.source))[0]}]"
                                 if len(sources[r.device]) > 1 else "")


def bandwidth(results):
    """A data: URI, or None when no transfer has a bandwidth."""
    label = _labels(results)
    return _by_size([(r.pattern, label(r), r.size, r.bytes_per_second / 1e9) for r in results
                     if r.family == "transfer" and r.bytes_per_second and r.size], "GB/s (median)")


def busbw(results):
    """A data: URI, or None when no collective has a bus bandwidth: one
    panel per collective, busbw against message size, one line per device
    type and world."""
    label = _labels(results)
    return _by_size([(r.pattern, f"{label(r)} w{r.world}" if r.world else label(r), r.size, r.busbw_gbps)
                     for r in results if r.family == "collectives" and r.busbw_gbps and r.size],
                    "busbw GB/s (median)")


def _by_size(points, ylabel):
    """[(panel, line, bytes, value)] -> one panel per pattern, value against
    bytes on a log2 axis, one line per device (None when no point)."""
    by_pattern = {}
    for pattern, line, size, value in points:
        by_pattern.setdefault(pattern, {}).setdefault(line, []).append((size, value))
    if not by_pattern:
        return None
    plt = _pyplot()
    columns = min(3, len(by_pattern))
    rows = (len(by_pattern) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(4.6 * columns, 3.3 * rows), squeeze=False)
    devices = sorted({d for series in by_pattern.values() for d in series})
    for panel, (pattern, series) in zip(axes.flat, sorted(by_pattern.items())):
        for device, points in sorted(series.items()):
            panel.plot(*zip(*sorted(points)), marker="o", markersize=3, label=device,
                       color=_COLOURS[devices.index(device) % len(_COLOURS)])
        panel.set_title(pattern, fontsize=10)
        panel.set_xscale("log", base=2)
        _scale(panel, "y", [gbs for points in series.values() for _, gbs in points])
        panel.set_xlabel("bytes", fontsize=8)
        panel.set_ylabel(ylabel, fontsize=8)
        panel.tick_params(labelsize=7)
        panel.grid(True, color="#ddd")
        panel.legend(fontsize=6)
    for panel in axes.flat[len(by_pattern):]:
        panel.set_visible(False)
    figure.tight_layout()
    return _data_uri(figure, plt)


def latency(results):
    """A data: URI, or None when there is no latency series."""
    label = _labels(results)
    bars = sorted((r.pattern + (f" {bench_results.human_bytes(r.size)}" if r.size else ""),
                   label(r), r.seconds * 1e6)
                  for r in results if r.family == "latency" and r.seconds)
    if not bars:
        return None
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(8, 0.22 * len(bars) + 1.0))
    labels = [f"{device}  {what}" for what, device, _ in bars]
    devices = sorted({device for _, device, _ in bars})
    axis.barh(range(len(bars)), [us for _, _, us in bars],
              color=[_COLOURS[devices.index(d) % len(_COLOURS)] for _, d, _ in bars])
    axis.set_yticks(range(len(bars)))
    axis.set_yticklabels(labels, fontsize=7)
    axis.invert_yaxis()
    _scale(axis, "x", [us for _, _, us in bars])
    axis.set_xlabel("microseconds per call (median)", fontsize=8)
    axis.grid(True, axis="x", color="#ddd")
    figure.tight_layout()
    return _data_uri(figure, plt)


def peers(title, members, flagged, median):
    """members: [(label, rate)] of one series and model; flagged: labels.
    Each device's rate as a multiple of the median, slowest first; a log
    scale when the spread is wider than 10x (a device 1000x slower stays
    visible beside its peers)."""
    plt = _pyplot()
    ordered = sorted(members, key=lambda m: m[1])
    ratios = [max(rate / median, 1e-6) for _, rate in ordered]
    figure, axis = plt.subplots(figsize=(7, 2.6))
    xs = list(range(1, len(ordered) + 1))
    axis.scatter(xs, ratios, s=14, zorder=3,
                 c=["#d62728" if label in flagged else "#1f77b4" for label, _ in ordered])
    _scale(axis, "y", ratios)
    for x, (label, _), ratio in zip(xs, ordered, ratios):
        if label in flagged:
            axis.annotate(f"{label} ({ratio:.2g}x)", (x, ratio), fontsize=7, xytext=(6, 4),
                          textcoords="offset points", color="#d62728")
    axis.axhline(1.0, color="#555", linewidth=0.8)
    axis.set_xlim(0.5, len(ordered) + 0.5)
    axis.set_xticks(xs if len(xs) <= 20 else [])
    axis.set_ylabel("x median of its model", fontsize=8)
    axis.set_xlabel(f"{len(ordered)} devices of the model, slowest first", fontsize=8)
    axis.set_title(title, fontsize=9)
    axis.tick_params(labelsize=7)
    axis.grid(True, color="#eee")
    figure.tight_layout()
    return _data_uri(figure, plt)
