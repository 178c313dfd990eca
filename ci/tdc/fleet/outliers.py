"""Fleet performance outliers: each device against its peers, the devices of
the same model (context.json's device name) across the fleet, on each
benchmark series.

DCGM and nvbandwidth judge one GPU against fixed thresholds; this asks
whether a device is far below what the same model does elsewhere tonight.
For each model and each series (the series with the device left out,
"transfer/h2d/*/268435456"), the rate of every device is taken: bytes per
second for transfers and collectives (a collective's algbw: within one
series, one op and world, its busbw is algbw times the same factor, so the
ratios are busbw's), iterations per second (1 / median time) otherwise, so
that higher is better everywhere. A collective's series names a device type
("collectives/allreduce/cuda/w8/4096"): its model is the name of that
type's devices (model_of). Speeds are compared as ratios, so the
spread is measured on log(rate): with the group's median m (of the rates),
the median M of the log rates and their median absolute deviation MAD, a
device is an outlier when

    ratio = rate / m <= MAX_RATIO   and   0.6745 * (log(rate) - M) / MAD <= -MIN_Z

(the modified z-score of Iglewicz and Hoaglin, on the log scale: a device
ten times slower is as far below as one ten times faster is above, and a
group whose speeds spread widely needs a device far further out; MAD = 0,
all peers alike, counts as infinitely far), in a group of at least
MIN_DEVICES devices. The ratio floor keeps a tight group from flagging a
device 3 % slow; the z-score keeps a noisy series from flagging its
ordinary spread."""
import math
import statistics
from collections import defaultdict

from tdc.bench import results as bench_results

MAX_RATIO = 0.8
MIN_Z = 3.5
MIN_DEVICES = 4
RULE = (f"rate (bytes/s for transfers, 1/median time otherwise) at most {MAX_RATIO}x the median of "
        f"the devices of the same model on the same series, and a modified z-score of log(rate), "
        f"0.6745*(log rate - median log rate)/MAD, at most -{MIN_Z}, in groups of at least "
        f"{MIN_DEVICES} devices")


def template_of(series):
    """'transfer/h2d/cuda:3/268435456' -> ('transfer/h2d/*/268435456', 'cuda:3')."""
    parts = series.split("/")
    if len(parts) < 3:
        return None, None
    device = parts[2]
    return "/".join(parts[:2] + ["*"] + parts[3:]), device


def model_of(device, names):
    """The model a series' device is compared as: its name, or for a
    collective, whose series names the device type its world spans
    ("collectives/allreduce/cuda/w8/4096"), the name of that type's
    devices ("A + B" on a host that mixes models, compared with its like);
    "" when unnamed (left out)."""
    device = device.split("->")[0]
    if device in names or ":" in device:
        return names.get(device, "")
    return " + ".join(sorted({name for d, name in names.items() if d.split(":")[0] == device and name}))


def rate_of(entry):
    if not isinstance(entry, dict) or entry.get("error"):
        return None
    if entry.get("bytes_per_second"):
        return float(entry["bytes_per_second"])
    seconds = entry.get("seconds")
    return 1.0 / seconds if seconds else None


class Collector:
    """Gathers (model, template) -> [(row key, device, rate)] row by row."""

    def __init__(self):
        self.groups = defaultdict(list)

    def add(self, host, build, benchmarks, names):
        for series, entry in benchmarks.items():
            template, device = template_of(series)
            if template is None:
                continue
            model = model_of(device, names)
            rate = rate_of(entry)
            if model and rate:
                self.groups[(model, template)].append((host, build, device, rate))

    def flagged(self):
        """Every outlier, then one line per (host, device): its worst series."""
        found = []
        for (model, template), members in self.groups.items():
            if len(members) < MIN_DEVICES:
                continue
            rates = [m[3] for m in members]
            median = statistics.median(rates)
            logs = [math.log(r) for r in rates]
            centre = statistics.median(logs)
            mad = statistics.median(abs(v - centre) for v in logs)
            for (host, build, device, rate), value in zip(members, logs):
                ratio = rate / median if median else 1.0
                z = 0.6745 * (value - centre) / mad if mad else (float("-inf") if value < centre else 0.0)
                if ratio <= MAX_RATIO and z <= -MIN_Z:
                    found.append({"host": host, "build": build, "device": device, "model": model,
                                  "series": template.replace("*", device), "template": template,
                                  "rate": rate, "median": median, "ratio": float(f"{ratio:.3g}"),
                                  "mad": round(mad, 4), "z": None if z == float("-inf") else round(z, 2),
                                  "peers": len(members) - 1})
        found.sort(key=lambda f: (f["host"], f["build"], f["device"], f["ratio"]))
        return found

    def series_checked(self):
        return sum(1 for members in self.groups.values() if len(members) >= MIN_DEVICES)


def by_device(flags):
    """One entry per (host, build, device): the worst series and how many. A
    copy between two devices counts for its source (the first named)."""
    worst = {}
    for flag in flags:
        key = (flag["host"], flag["build"], flag["device"].split("->")[0])
        entry = worst.setdefault(key, {**flag, "series_flagged": 0})
        entry["series_flagged"] += 1
        if flag["ratio"] < entry["ratio"]:
            entry.update({**flag, "series_flagged": entry["series_flagged"]})
        entry["device"] = key[2]
    lines = []
    for entry in sorted(worst.values(), key=lambda e: e["ratio"]):
        more = entry["series_flagged"] - 1
        entry["message"] = (f"{entry['device']} on {entry['host']}: {describe(entry['series'])} is "
                            f"{times(entry['ratio'])} its {entry['peers']} peers ({entry['model']})"
                            + (f", and {more} other series" if more else ""))
        lines.append(entry)
    return lines


def times(ratio):
    """0.70x; a device hundreds of times slower keeps two digits (0.0012x,
    where two decimals said 0.00x)."""
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"


def describe(series):
    """'transfer/h2d/cuda:3/268435456' -> 'transfer h2d at 256 MiB'; a copy to
    another device names it ('transfer d2d_peer to cuda:4 at 4 KiB'), a
    collective its world ('collectives allreduce across 8 ranks at 4 KiB')."""
    parsed = bench_results.parse_name(series)
    if parsed is None:
        return " ".join(series.split("/")[:2])
    family, pattern, device, size, world = parsed
    text = f"{family} {pattern}"
    if "->" in device:
        text += f" to {device.split('->', 1)[1]}"
    if world:
        text += f" across {world} ranks"
    return f"{text} at {bench_results.human_bytes(size)}" if size is not None else text
