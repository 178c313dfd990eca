#!/usr/bin/env python3
"""Plots bandwidth against transfer size, one line per device and pattern,
from tdc_bench_transfer JSON files: log-2 x axis (bytes), log-10 y axis
(GB/s, 1e9 B/s), legend on the right. Hand-written SVG, standard library only.
"""
import argparse
import math
import os
import sys
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_results  # noqa: E402

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
DASHES = ("", "6,3", "2,3", "8,3,2,3")
WIDTH, HEIGHT = 1000, 560
LEFT, TOP, PLOT_W, PLOT_H = 80, 40, 600, 440


def series_from(paths):
    """{label: [(bytes, GB/s)]}; a series seen in several files is labelled by file."""
    found = {}
    for path in paths:
        for r in bench_results.load(path)[1]:
            if r.family == "transfer" and r.bytes_per_second and r.size:
                found.setdefault((r.device, r.pattern), {}).setdefault(path, []).append(
                    (r.size, r.bytes_per_second / 1e9))
    series = {}
    for (device, pattern), by_file in sorted(found.items()):
        for path, points in by_file.items():
            label = f"{device} {pattern}"
            if len(by_file) > 1:
                label += f" [{os.path.splitext(os.path.basename(path))[0]}]"
            series[label] = sorted(points)
    return series


def render(series, title):
    xs = [x for pts in series.values() for x, _ in pts]
    ys = [y for pts in series.values() for _, y in pts if y > 0]
    x0, x1 = math.log2(min(xs)), math.log2(max(xs))
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    if y1 == y0:
        y1 += 1

    def px(x):
        return LEFT + (math.log2(x) - x0) / (x1 - x0) * PLOT_W

    def py(y):
        return TOP + PLOT_H - (math.log10(y) - y0) / (y1 - y0) * PLOT_H

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{LEFT + PLOT_W / 2}" y="22" text-anchor="middle" font-size="15">{escape(title)}</text>',
           f'<rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" fill="none" stroke="black"/>']
    for e in range(int(x0), int(x1) + 1, 2 if x1 - x0 > 12 else 1):
        x = LEFT + (e - x0) / (x1 - x0) * PLOT_W
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + PLOT_H}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{TOP + PLOT_H + 16}" text-anchor="middle">'
                   f'{escape(bench_results.human_bytes(2 ** e))}</text>')
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + PLOT_W}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{10.0 ** e:g}</text>')
    out.append(f'<text x="{LEFT + PLOT_W / 2}" y="{TOP + PLOT_H + 36}" text-anchor="middle">'
               'transfer size</text>')
    out.append(f'<text transform="translate(22,{TOP + PLOT_H / 2}) rotate(-90)" '
               'text-anchor="middle">bandwidth (GB/s, median)</text>')

    for i, (label, points) in enumerate(series.items()):
        colour, dash = COLOURS[i % len(COLOURS)], DASHES[(i // len(COLOURS)) % len(DASHES)]
        style = f'stroke="{colour}" stroke-width="2" fill="none"' + (
            f' stroke-dasharray="{dash}"' if dash else "")
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points if y > 0)
        out.append(f'<polyline points="{path}" {style}/>')
        for x, y in points:
            if y > 0:
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
        ly = TOP + 8 + i * 17
        out.append(f'<line x1="{LEFT + PLOT_W + 20}" y1="{ly}" x2="{LEFT + PLOT_W + 48}" y2="{ly}" {style}/>')
        out.append(f'<text x="{LEFT + PLOT_W + 54}" y="{ly + 4}">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="tdc_bench_transfer JSON files")
    parser.add_argument("--out", required=True, help="the SVG to write")
    parser.add_argument("--title", default="tdc_bench_transfer: bandwidth vs transfer size")
    args = parser.parse_args()
    series = series_from(args.results)
    if not series:
        print("plot_bandwidth: no transfer results with bandwidth in the input", file=sys.stderr)
        return 2
    global HEIGHT
    HEIGHT = max(HEIGHT, TOP + 30 + 17 * len(series))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(render(series, args.title))
    print(f"plot_bandwidth: {len(series)} series -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
