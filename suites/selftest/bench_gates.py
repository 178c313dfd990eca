#!/usr/bin/env python3
"""Self-test: both performance gates fail on an injected slow-down and pass
without it, and the benchmark clock follows a known delay. Runs a few
loopback benchmarks (quick mode, small sizes) normally and with every copy
and operation delayed by TDC_LOOPBACK_DELAY_US (default 100 ms).

No verdict here depends on how fast or how loaded the host is: the delay is
hundreds of times what the normal benchmarks take even on a loaded 2-core
host (a 4 KiB copy takes microseconds, the seed forward under a millisecond
at load average 14), and every limit sits a factor of ten or more from both.
A host's speed is what tdc run-benchmarks measures; it is not asserted here.

Each program runs once per benchmark family its filter selects (transfer/,
forward/, latency/: the first part of the name), each family into its own
JSON file. The normal runs run one after the other, so that none of them
shares the cores with another; the delayed runs run side by side: they
sleep (the delay) nearly all of their time (about 0.3 s of CPU in 45 s),
so side by side they load the host hardly more than one does, and their
figures stay hundreds of times the normal ones.

--gate thresholds: tdc check-thresholds with limits made for the delay (every
  copy, latency and forward at most a tenth of the delay) passes the normal
  run and fails the delayed one; bench/thresholds.json fails the delayed run
  too. The normal run against bench/thresholds.json is printed, a figure of
  this host, not a verdict.
--gate baseline: tdc compare with its documented defaults (tdc compare --help).
  Its negative compares two halves of one normal run whose repetitions were
  interleaved with each other (alternate repetitions of each benchmark):
  both halves saw the same load, so a busy spell cannot make one of them a
  regression; two separate runs can differ by +190 % on a loaded host. Its
  positive compares one half with the delayed run.
--gate timing: with every copy delayed by D, each 4 KiB copy benchmark
  (device events where the LibTorch has them) reports a median between D
  and 1.25 D + 5 ms per copy, for D = the delay and a quarter of it. A timer
  that reads the clock before the work is done reports less than D; one that
  answers a constant cannot fall in both bands, nor one that answers noise.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from tdc import ROOT, discovery_env

# Accelerator-side benchmarks only (not cpu): 4 KiB and 256 KiB copies and
# the seed forward, each microseconds unless delayed.
TIMED_COPIES = "h2d/[a-z]+:0/4096/"
FILTER = "h2d/[a-z]+:0/(4096|262144)/|seed_float32/[a-z]+:0/"
SIZES = (4096, 262144)
# tdc compare's --min-repetitions: each half of the normal run needs as many.
REPETITIONS = 10
# The loopback's device type: 'privateuseone' on LibTorch 1.13 (no renaming).
LOOPBACK_TYPES = ("loopback", "privateuseone")


def families(exe, args, env, only):
    """The benchmark families (the first part of each name: transfer,
    forward, latency) that `only` selects in the program exe."""
    listing = subprocess.run([exe, f"--backend-lib={args.loopback}", f"--benchmark_filter={only}",
                              "--benchmark_list_tests=true"], env=env, capture_output=True, text=True, timeout=120)
    names = listing.stdout.split()
    if listing.returncode != 0 or not names:
        sys.exit(f"{exe} --benchmark_list_tests exited {listing.returncode}, listing {len(names)} benchmarks "
                 f"for {only!r}:\n{listing.stderr[-2000:]}")
    return sorted({name.split("/")[0] for name in names})


def bench(args, tag, delay_us, only=FILTER, programs=None, repetitions=None):
    """Runs each program once per benchmark family (its own JSON file):
    undelayed one after the other, delayed side by side (they sleep).
    Returns [(program, family, JSON file)]."""
    env = dict(discovery_env.minus(os.environ, ("TDC_BACKEND_LIBS", "TDC_DEVICES", *discovery_env.LOOPBACK_BEHAVIOUR)),
               TDC_BENCH_QUICK="1", OMP_NUM_THREADS="1")
    extra = ([f"--benchmark_repetitions={repetitions}", "--benchmark_enable_random_interleaving=true"]
             if repetitions else [])
    runs = []
    for exe in programs or (args.transfer, args.forward):
        for family in families(exe, args, env, only):
            program = os.path.basename(exe)
            out = os.path.join(args.work, f"{program}_{family}_{tag}.json")
            command = [exe, f"--backend-lib={args.loopback}", f"--benchmark_filter=^{family}/({only})",
                       f"--benchmark_out={out}", "--benchmark_out_format=json", *extra]
            runs.append((program, family, out, command))
    if delay_us:
        env["TDC_LOOPBACK_DELAY_US"] = str(delay_us)
        ended = side_by_side([run[3] for run in runs], env)
    else:
        ended = [subprocess.run(run[3], env=env, capture_output=True, text=True, timeout=600) for run in runs]
    for (program, family, _, _), done in zip(runs, ended):
        if done.returncode != 0:
            sys.exit(f"{program} ({family}, {tag}) exited {done.returncode}:\n{done.stderr[-2000:]}")
    return [(program, family, out) for program, family, out, _ in runs]


def side_by_side(commands, env, timeout=600):
    """Starts every command at once and waits for all of them, within
    timeout seconds together; a run past it is killed, which fails it."""
    processes = [subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for command in commands]
    deadline = time.monotonic() + timeout
    ended = []
    for command, process in zip(commands, processes):
        try:
            _, stderr = process.communicate(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()  # no effect on one that ended meanwhile
            _, stderr = process.communicate()
            if process.returncode != 0:
                stderr += f"\nkilled after {timeout} s"
        ended.append(subprocess.CompletedProcess(command, process.returncode, None, stderr))
    return ended


def gate(cmd):
    run = subprocess.run([sys.executable, *cmd], capture_output=True, text=True)
    print(f"$ python3 {' '.join(cmd)}\n{run.stdout}{run.stderr}exit {run.returncode}\n")
    return run.returncode


def medians_us(path):
    """{benchmark: median time per copy in microseconds, timing method}."""
    with open(path) as f:
        report = json.load(f)
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    return {b["run_name"]: (b["real_time"] * scale[b["time_unit"]], b.get("label", ""))
            for b in report["benchmarks"] if b.get("aggregate_name") == "median"}


def timing_follows_delay(args):
    wrong = checked = 0
    for delay in (args.delay_us // 4, args.delay_us):
        outputs = [out for _, _, out in bench(args, f"timing_{delay}", delay, TIMED_COPIES, (args.transfer,))]
        low, high = delay, 1.25 * delay + 5000
        for name, (median, method) in sorted(item for out in outputs for item in medians_us(out).items()):
            ok = low <= median <= high
            wrong += not ok
            checked += 1
            print(f"{'ok  ' if ok else 'FAIL'} {name}: median {median:.0f} us per copy ({method}); "
                  f"expected {low:.0f}..{high:.0f} us for a {delay} us delay")
    if not checked:
        print("FAIL: no median in the timing runs: the timing gate checked nothing")
        return 1
    return 1 if wrong else 0


def thresholds_for(delay_us):
    """Limits a tenth of the delay: every copy of FILTER takes at most
    delay / 10 (as a bandwidth floor at its size), every latency and forward
    at most delay / 10 microseconds."""
    limit_us = delay_us / 10
    floors = {str(size): size / (limit_us * 1e-6) / 1e9 for size in SIZES}
    entry = {"min_bandwidth_GBps": {"h2d": floors},
             "max_latency_us": {"h2d": limit_us, "seed_float32": limit_us},
             "max_forward_us": {"seed_float32": limit_us}}
    return {"about": [f"bench_gates.py: limits of a tenth of a {delay_us} us delay"],
            "devices": {kind: entry for kind in LOOPBACK_TYPES}}


def write_json(path, document):
    with open(path, "w") as f:
        json.dump(document, f, indent=1)
    return path


def halves(path):
    """Two Google Benchmark files made of one run's alternate repetitions of
    each benchmark (its aggregates left out: tdc compare reads the
    repetitions). With the repetitions interleaved, neighbours in time land
    in different halves."""
    with open(path) as f:
        document = json.load(f)
    seen, sides = {}, ([], [])
    for entry in document["benchmarks"]:
        if entry.get("run_type") == "aggregate":
            continue
        name = entry.get("run_name", entry["name"])
        sides[seen.get(name, 0) % 2].append(entry)
        seen[name] = seen.get(name, 0) + 1
    stem = path[:-len(".json")]
    return [write_json(f"{stem}_{half}.json", dict(document, benchmarks=entries))
            for half, entries in zip("ab", sides)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gate", choices=("thresholds", "baseline", "timing"), required=True)
    parser.add_argument("--transfer", required=True)
    parser.add_argument("--forward", required=True)
    parser.add_argument("--loopback", required=True, help="libtdc_loopback.so")
    parser.add_argument("--work", required=True, help="directory for the JSON files")
    parser.add_argument("--delay-us", type=int, default=100000)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.gate == "timing":
        return timing_follows_delay(args)

    expectations = []
    if args.gate == "thresholds":
        normal = [out for _, _, out in bench(args, "normal", 0)]
        slow = [out for _, _, out in bench(args, "slow", args.delay_us)]
        check = ["-m", "tdc", "check-thresholds", "--thresholds"]
        own = write_json(os.path.join(args.work, "thresholds_for_the_delay.json"), thresholds_for(args.delay_us))
        project = os.path.join(ROOT, "bench", "thresholds.json")
        expectations = [("normal run, limits for the delay", gate(check + [own] + normal), 0),
                        ("slow run, limits for the delay", gate(check + [own] + slow), 1),
                        ("slow run, bench/thresholds.json", gate(check + [project] + slow), 1)]
        print(f"(a figure, not a verdict) the normal run against bench/thresholds.json: exit "
              f"{gate(check + [project] + normal)}\n")
    else:
        normal = bench(args, "normal", 0, repetitions=2 * REPETITIONS)
        slow = bench(args, "slow", args.delay_us, repetitions=REPETITIONS)
        compare = ["-m", "tdc", "compare", "--verbose"]
        # Family by family: tdc compare takes one file a side.
        delayed_files = {(program, family): out for program, family, out in slow}
        for program, family, whole in normal:
            name = f"{program} {family}"
            delayed = delayed_files.pop((program, family), None)
            if delayed is None:
                sys.exit(f"{name}: no delayed run to compare (families {sorted(delayed_files)})")
            first, second = halves(whole)
            expectations.append((f"{name}: normal vs normal, interleaved halves of one run",
                                 gate(compare + ["--baseline", first, "--contender", second]), 0))
            expectations.append((f"{name}: normal vs slow",
                                 gate(compare + ["--baseline", first, "--contender", delayed]), 1))

        if delayed_files:
            sys.exit(f"delayed runs without a normal one: {sorted(delayed_files)}")

    wrong = [(what, got, want) for what, got, want in expectations if got != want]
    for what, got, want in wrong:
        print(f"FAIL: {args.gate} gate on the {what} exited {got}, expected {want}")
    if not wrong:
        print(f"PASS: the {args.gate} gate passes the normal run and fails the "
              f"{args.delay_us} us slow-down")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
