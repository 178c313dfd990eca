#!/usr/bin/env python3
"""Self-test: the benchmark tools fail closed (docs/benchmarks.md, "Gates").

  --tool thresholds   tdc check-thresholds on damaged, empty, partial,
                      typo'd and not-a-number input: exit 2 with one line on
                      stderr, never a traceback, never exit 0 having checked
                      nothing (a NaN or negative time, a NaN or infinite
                      bandwidth, an error with a null message)
  --tool baseline     tdc compare on empty, partial, truncated and NaN input,
                      and on whole results folders
  --tool filter       a tdc_bench_* program whose --benchmark_filter matches
                      nothing or is no regex: exit 2, one line, no 0-byte JSON
  --tool device-error a device whose forward fails (loopback fault
                      result-on-host): the program keeps the cpu results,
                      names the device's error and exits 1

Each case also has a positive control, so a tool that always fails cannot
pass either. --ci-dir runs the Python cases against another checkout's ci/
(how the cases were seen to fail before the tools were fixed; one from
before `tdc <verb>` had check-thresholds and compare as scripts in its ci/).
"""
import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile

from tdc import ROOT, discovery_env, verbs
from tdc.bench import results as bench_results


def gbench_json(series, repetitions=10):
    """A Google Benchmark JSON file as tdc_bench_* write it. `series`: a list
    of (run name, seconds per iteration, bytes per second or None)."""
    benchmarks = []
    for name, seconds, rate in series:
        for i in range(repetitions):
            entry = {"name": name, "run_name": name, "run_type": "iteration",
                     "repetitions": repetitions, "repetition_index": i, "threads": 1,
                     "iterations": 100, "real_time": seconds * 1e6 * (1 + 0.01 * i),
                     "cpu_time": seconds * 1e6, "time_unit": "us"}
            if rate:
                entry["bytes_per_second"] = rate
            benchmarks.append(entry)
        for aggregate in ("mean", "median", "stddev", "cv"):
            value = 0.01 if aggregate == "cv" else seconds * 1e6
            entry = {"name": f"{name}_{aggregate}", "run_name": name, "run_type": "aggregate",
                     "repetitions": repetitions, "threads": 1, "aggregate_name": aggregate,
                     "iterations": repetitions, "real_time": value, "cpu_time": value,
                     "time_unit": "us"}
            if rate:
                entry["bytes_per_second"] = rate
            benchmarks.append(entry)
    return {"context": {"tdc.libtorch_version": "test"}, "benchmarks": benchmarks}


CPU_D2D = ("transfer/d2d/cpu/4096/manual_time", 1e-6, 4.096e9)
CPU_SEED = ("forward/seed_float32/cpu/manual_time", 3e-6, None)
LOOPBACK_H2D = ("transfer/h2d/loopback:0/4096/manual_time", 1e-6, 4.096e9)
GOOD_THRESHOLDS = {"devices": {
    "cpu": {"min_bandwidth_GBps": {"d2d": {"4096": 0.1}}, "max_forward_us": {"seed_float32": 200}},
    "loopback": {"min_bandwidth_GBps": {"h2d": {"4096": 0.1}}}}}


class Cases:
    def __init__(self, work):
        self.work, self.failures, self.count = work, [], 0

    def write(self, name, content):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def run(self, what, cmd, want_exit, one_line=None, env=None):
        """one_line: None = no check; True = stderr is exactly one line."""
        self.count += 1
        run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        # "skipping <series>: reason" notes come from registration, before
        # any input is judged (1.13 has no float16 on cpu): not the verdict.
        lines = [line for line in run.stderr.splitlines()
                 if line.strip() and not line.startswith("skipping ")]
        problems = []
        if run.returncode != want_exit:
            problems.append(f"exit {run.returncode}, expected {want_exit}")
        if "Traceback" in run.stderr:
            problems.append("a traceback")
        if one_line and len(lines) != 1:
            problems.append(f"{len(lines)} stderr lines, expected 1")
        status = "FAIL" if problems else "ok"
        print(f"[{status}] {what}: exit {run.returncode}; stderr: "
              f"{' | '.join(lines[-3:]) or '(none)'}")
        if problems:
            self.failures.append(f"{what}: {', '.join(problems)}")
        return run


def verb(tools, name):
    """tdc NAME from the ci/ folder `tools` (on Python's path: main), or its
    ci/NAME script in a checkout from before the verbs."""
    if os.path.isfile(os.path.join(tools, "tdc", "verbs.py")):
        return [sys.executable, "-m", "tdc", name]
    return [sys.executable, os.path.join(tools, name)]


def thresholds_cases(c, tools):
    tool = verb(tools, "check-thresholds")
    results = c.write("results.json", gbench_json([CPU_D2D, CPU_SEED, LOOPBACK_H2D]))

    def gate(what, thresholds, want, result_files=None, extra=()):
        path = c.write(f"thresholds_{c.count}.json", thresholds)
        return c.run(what, tool + ["--thresholds", path, *extra, *(result_files or [results])],
                     want, one_line=want == 2)

    gate("valid thresholds, results within them", GOOD_THRESHOLDS, 0)
    slow = copy.deepcopy(GOOD_THRESHOLDS)
    slow["devices"]["cpu"]["min_bandwidth_GBps"]["d2d"]["4096"] = 100.0
    gate("a result below its floor", slow, 1)
    gate("no benchmarks in the results", GOOD_THRESHOLDS, 2,
         [c.write("empty.json", gbench_json([]))])
    no_loopback = copy.deepcopy(GOOD_THRESHOLDS)
    del no_loopback["devices"]["loopback"]
    gate("a device with no thresholds entry", no_loopback, 2)
    for where, bad in (("key", "min_bandwith_GBps"),):
        typo = copy.deepcopy(GOOD_THRESHOLDS)
        typo["devices"]["cpu"][bad] = typo["devices"]["cpu"].pop("min_bandwidth_GBps")
        gate(f"typo'd {where} '{bad}'", typo, 2)
    typo = copy.deepcopy(GOOD_THRESHOLDS)
    typo["devices"]["loopbak"] = typo["devices"].pop("loopback")
    gate("typo'd device 'loopbak'", typo, 2)
    typo = copy.deepcopy(GOOD_THRESHOLDS)
    typo["devices"]["loopback"]["min_bandwidth_GBps"]["h2d_pined"] = {"4096": 0.1}
    gate("typo'd pattern 'h2d_pined'", typo, 2)
    for what, value in (("size key '4 KiB'", {"4 KiB": 0.1}), ("a string value", {"4096": "fast"}),
                        ("a list of steps", [0.1, 0.5])):
        bad = copy.deepcopy(GOOD_THRESHOLDS)
        bad["devices"]["cpu"]["min_bandwidth_GBps"]["d2d"] = value
        gate(what, bad, 2)
    bad = copy.deepcopy(GOOD_THRESHOLDS)
    bad["devices"]["cpu"]["max_forward_us"]["seed_float32"] = [200]
    gate("a list as a latency limit", bad, 2)
    gate("damaged thresholds file", "{\"devices\": {", 2)
    gate("truncated results file", GOOD_THRESHOLDS, 2,
         [c.write("truncated.json", json.dumps(gbench_json([CPU_D2D]))[:200])])
    # Numbers that are not numbers (issue "Fail closed, round 3", finding 10).
    for what, change in (("a NaN real_time", lambda e: e.update(real_time=float("nan"))),
                         ("a negative real_time", lambda e: e.update(real_time=-1.0)),
                         ("a NaN bandwidth", lambda e: e.update(bytes_per_second=float("nan"))),
                         ("an infinite bandwidth", lambda e: e.update(bytes_per_second=float("inf"))),
                         ("a string bandwidth", lambda e: e.update(bytes_per_second="fast"))):
        damaged = gbench_json([CPU_D2D, CPU_SEED, LOOPBACK_H2D])
        for entry in damaged["benchmarks"]:
            if entry["run_name"] == CPU_D2D[0]:
                change(entry)
        gate(what, GOOD_THRESHOLDS, 2, [c.write(f"numbers_{c.count}.json", json.dumps(damaged))])
    errored = gbench_json([CPU_D2D, CPU_SEED, LOOPBACK_H2D])
    for entry in errored["benchmarks"]:
        if entry["run_name"] == LOOPBACK_H2D[0]:
            entry.update(error_occurred=True, error_message=None)
    gate("an error with a null message", GOOD_THRESHOLDS, 1, [c.write("null_error.json", errored)])
    listed = gbench_json([CPU_D2D, CPU_SEED, LOOPBACK_H2D])
    listed["context"]["tdc.device.cpu.name"] = ["AMD", "EPYC"]
    gate("a device name that is a list", GOOD_THRESHOLDS, 2, [c.write("name_list.json", listed)])

    partial = copy.deepcopy(GOOD_THRESHOLDS)
    del partial["devices"]["cpu"]["max_forward_us"]
    run = gate("a result without threshold: listed as not checked", partial, 0)
    if "not checked" not in run.stdout:
        c.failures.append("a result without threshold was not listed as not checked")
    gate("--require-thresholds with a result without threshold", partial, 2,
         extra=["--require-thresholds"])


def baseline_cases(c, tools):
    tool = verb(tools, "compare")
    three = [CPU_D2D, CPU_SEED, LOOPBACK_H2D]
    base = c.write("base.json", gbench_json(three))
    same = c.write("same.json", gbench_json(three))
    slow = c.write("slow.json", gbench_json([(n, s * 3, r and r / 3) for n, s, r in three]))
    one = c.write("one.json", gbench_json(three[:1]))
    empty = c.write("empty.json", gbench_json([]))
    truncated = c.write("truncated.json", json.dumps(gbench_json(three))[:300])

    def gate(what, baseline, contender, want, *extra):
        return c.run(what, tool + ["--baseline", baseline, "--contender", contender, *extra], want,
                     one_line=want == 2)

    gate("same results", base, same, 0)
    gate("3x slower", base, slow, 1)
    gate("0 benchmarks on both sides", empty, empty, 2)
    gate("contender covers 1 of the baseline's 3", base, one, 2)
    gate("contender covers 1 of 3, --allow-partial", base, one, 0, "--allow-partial")
    for what, baseline, contender in (("truncated contender", base, truncated),
                                      ("truncated baseline", truncated, base)):
        # The reason must be real: name the damaged file, not "failed (1): ".
        if os.path.basename(truncated) not in gate(what, baseline, contender, 2).stderr:
            c.failures.append(f"{what}: the one line does not name the damaged file")
    gate("--max-regression nan", base, same, 2, "--max-regression", "nan")
    # Whole results folders (tdc compare OLD NEW): pairs files by name.
    folders = {}
    for tag, files in (("old", {"transfer_host.json": three}), ("same", {"transfer_host.json": three}),
                       ("slow", {"transfer_host.json": [(n, s * 3, r and r / 3) for n, s, r in three]}),
                       ("none", {})):
        folders[tag] = os.path.join(c.work, f"folder_{tag}")
        os.makedirs(folders[tag])
        for name, series in files.items():
            with open(os.path.join(folders[tag], name), "w") as f:
                json.dump(gbench_json(series), f)
    c.run("folders, same results", tool + [folders["old"], folders["same"]], 0)
    c.run("folders, 3x slower", tool + [folders["old"], folders["slow"]], 1)
    c.run("folder without benchmark files", tool + [folders["old"], folders["none"]], 2, one_line=True)


def filter_cases(c, args):
    for exe in args.exe:
        name = os.path.basename(exe)
        for what, flt in (("matches nothing", "nomatch"), ("is no regex", "(")):
            out = os.path.join(c.work, f"{name}_{c.count}.json")
            c.run(f"{name} --benchmark_filter {what}",
                  [exe, f"--benchmark_filter={flt}", f"--benchmark_out={out}"], 2, one_line=True)
            if os.path.exists(out) and os.path.getsize(out) == 0:
                c.failures.append(f"{name} --benchmark_filter {what}: left a 0-byte {out}")
        out = os.path.join(c.work, f"{name}_positive.json")
        c.run(f"{name} with a filter that matches", [exe, "--tdc-quick", "--benchmark_repetitions=1",
              "--benchmark_filter=d2d/cpu/4096|seed_float32/cpu", f"--benchmark_out={out}"], 0)


def device_error_cases(c, args):
    env = dict(discovery_env.minus(os.environ, ("TDC_BACKEND_LIBS", "TDC_DEVICES", *discovery_env.LOOPBACK_BEHAVIOUR)),
               TDC_LOOPBACK_FAULT="result-on-host", TDC_BENCH_QUICK="1")
    out = os.path.join(c.work, "forward_fault.json")
    run = c.run("forward with loopback fault result-on-host",
                [args.forward, f"--backend-lib={args.loopback}", "--benchmark_repetitions=1",
                 "--benchmark_filter=^forward/seed_float32/(cpu|[a-z]+:0)/",
                 f"--benchmark_out={out}"], 1, env=env)
    if not any(":0: forward on " in line for line in run.stderr.splitlines()):
        c.failures.append("the failing device's error was not reported on its own line")
    try:
        results = bench_results.load(out)[1]
    except bench_results.BadResults as error:
        c.failures.append(f"no usable JSON after a device error: {error}")
        return
    cpu = [r for r in results if r.device == "cpu"]
    broken = [r for r in results if r.device != "cpu"]
    if not cpu or any(r.error or not r.seconds for r in cpu):
        c.failures.append("the cpu results were not kept beside the failing device")
    if not broken or not all(r.error for r in broken):
        c.failures.append("the failing device's benchmarks were not marked as errors")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", choices=("thresholds", "baseline", "filter", "device-error"),
                        required=True)
    parser.add_argument("--ci-dir", default=os.path.join(ROOT, "ci"),
                        help="the ci/ folder whose check-thresholds and compare are run")
    parser.add_argument("--exe", action="append", default=[], help="tdc_bench_* (filter)")
    parser.add_argument("--forward", help="tdc_bench_forward (device-error)")
    parser.add_argument("--loopback", help="libtdc_loopback.so (device-error)")
    args = parser.parse_args()
    os.environ.update(verbs.tools_env(ci=args.ci_dir))  # the tools run are that folder's
    with tempfile.TemporaryDirectory() as work:
        c = Cases(work)
        if args.tool == "thresholds":
            thresholds_cases(c, args.ci_dir)
        elif args.tool == "baseline":
            baseline_cases(c, args.ci_dir)
        elif args.tool == "filter":
            filter_cases(c, args)
        else:
            device_error_cases(c, args)
    for line in c.failures:
        print(f"FAIL: {line}")
    print(f"{args.tool}: {c.count} case(s), {len(c.failures)} failure(s)")
    return 1 if c.failures or c.count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
