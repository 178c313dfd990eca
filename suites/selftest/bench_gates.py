#!/usr/bin/env python3
"""Self-test: both performance gates fail on an injected slow-down and pass
without it. Runs a few loopback benchmarks (quick mode, small sizes, where a
TDC_LOOPBACK_DELAY_US delay dominates) normally and slowed down, then expects
ci/check-thresholds / ci/compare to exit 0 on the normal run and 1 on the
slow one.

--gate timing checks the clock itself: with the loopback's copies delayed by
D, every 4 KiB copy benchmark (device events where the LibTorch has them)
must report a median between D and 1.25 D + 0.5 ms per copy. A timer that
reads the clock before the work is done reports less than D; one that
answers a constant or noise falls outside the band.

The baseline gate runs with its documented defaults (ci/compare --help): two
normal runs back to back, on a loaded 2-core host where a sub-microsecond
copy's median moves by +100% and more between runs, must not regress; the
delayed run must. Its power comes from the noise floor the baseline's own
repetitions give, and from requiring the runs not to overlap. A normal run
flagged as a regression is measured once more (ctest runs this alone, but
a shared host's neighbours are not ctest's); the delayed run is measured once.
"""
import argparse
import json
import os
import subprocess
import sys

from tdc import ROOT, discovery_env

CI = os.path.join(ROOT, "ci")
# Accelerator-side benchmarks only (not cpu): 4 KiB and 256 KiB copies and
# the seed forward, each a few microseconds unless delayed.
TIMED_COPIES = "h2d/[a-z]+:0/4096/"
FILTER = "h2d/[a-z]+:0/(4096|262144)/|seed_float32/[a-z]+:0/"


def bench(args, tag, delay_us, work, only=FILTER, programs=None, extra=()):
    env = dict(discovery_env.minus(os.environ, ("TDC_BACKEND_LIBS", "TDC_DEVICES", *discovery_env.LOOPBACK_BEHAVIOUR)),
               TDC_BENCH_QUICK="1", OMP_NUM_THREADS="1")
    if delay_us:
        env["TDC_LOOPBACK_DELAY_US"] = str(delay_us)
    outputs = []
    for exe in programs or (args.transfer, args.forward):
        out = os.path.join(work, f"{os.path.basename(exe)}_{tag}.json")
        run = subprocess.run([exe, f"--backend-lib={args.loopback}", f"--benchmark_filter={only}",
                              f"--benchmark_out={out}", "--benchmark_out_format=json", *extra],
                             env=env, capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            sys.exit(f"{exe} ({tag}) exited {run.returncode}:\n{run.stderr[-2000:]}")
        outputs.append(out)
    return outputs


def gate(cmd):
    run = subprocess.run([sys.executable, *cmd], capture_output=True, text=True)
    print(f"$ {' '.join(cmd)}\n{run.stdout}{run.stderr}exit {run.returncode}\n")
    return run.returncode


def medians_us(path):
    """{benchmark: median time per copy in microseconds, timing method}."""
    with open(path) as f:
        report = json.load(f)
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    return {b["run_name"]: (b["real_time"] * scale[b["time_unit"]], b.get("label", ""))
            for b in report["benchmarks"] if b.get("aggregate_name") == "median"}


def timing_follows_delay(args):
    (out,) = bench(args, "timing", args.delay_us, args.work, TIMED_COPIES, (args.transfer,))
    low, high = args.delay_us, 1.25 * args.delay_us + 500
    medians = medians_us(out)
    if not medians:
        print(f"FAIL: no median in {out}: the timing gate checked nothing")
        return 1
    wrong = 0
    for name, (median, method) in sorted(medians.items()):
        ok = low <= median <= high
        wrong += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: median {median:.0f} us per copy ({method}); "
              f"expected {low:.0f}..{high:.0f} us for a {args.delay_us} us delay")
    return 1 if wrong else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gate", choices=("thresholds", "baseline", "timing"), required=True)
    parser.add_argument("--transfer", required=True)
    parser.add_argument("--forward", required=True)
    parser.add_argument("--loopback", required=True, help="libtdc_loopback.so")
    parser.add_argument("--work", required=True, help="directory for the JSON files")
    parser.add_argument("--delay-us", type=int, default=2000)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.gate == "timing":
        return timing_follows_delay(args)

    # The baseline gate needs ci/run-benchmarks' repetitions: ten, interleaved.
    extra = (["--benchmark_repetitions=10", "--benchmark_enable_random_interleaving=true"]
             if args.gate == "baseline" else [])
    normal = bench(args, "normal", 0, args.work, extra=extra)
    slow = bench(args, "slow", args.delay_us, args.work, extra=extra)
    expectations = []
    if args.gate == "thresholds":
        check = [os.path.join(CI, "check-thresholds"), "--thresholds",
                 os.path.join(ROOT, "bench", "thresholds.json")]
        expectations = [("normal run", gate(check + normal), 0), ("slow run", gate(check + slow), 1)]
    else:
        again = bench(args, "normal_again", 0, args.work, extra=extra)
        compare = [os.path.join(CI, "compare"), "--verbose"]
        for i, name in enumerate(("transfer", "forward")):
            same = gate(compare + ["--baseline", normal[i], "--contender", again[i]])
            if same == 1:
                # A false alarm on a shared host: the program is measured once
                # more and that run compared. A gate that flags every normal
                # run still fails here; the slow run gets no second chance.
                print(f"{name}: normal vs normal flagged a regression; measuring the normal run once more")
                (third,) = bench(args, "normal_third", 0, args.work, extra=extra,
                                 programs=((args.transfer, args.forward)[i],))
                same = gate(compare + ["--baseline", normal[i], "--contender", third])
            expectations.append((f"{name}: normal vs normal", same, 0))
            expectations.append((f"{name}: normal vs slow", gate(
                compare + ["--baseline", normal[i], "--contender", slow[i]]), 1))

    wrong = [(what, got, want) for what, got, want in expectations if got != want]
    for what, got, want in wrong:
        print(f"FAIL: {args.gate} gate on the {what} exited {got}, expected {want}")
    if not wrong:
        print(f"PASS: the {args.gate} gate passes the normal run and fails the "
              f"{args.delay_us} us slow-down")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
