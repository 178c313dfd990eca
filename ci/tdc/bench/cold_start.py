"""cold-start: runs tdc_cold_start N times and reports medians: spawn-to-result (the
process launch, loading LibTorch and any plugin, lazy accelerator init and
the first forward) as seen from outside, and main-to-result as the program
measures it. Prints and optionally writes one JSON object.
"""
import json
import os
import statistics
import subprocess
import sys
import time

from tdc import cli


def measure(exe, args, env, runs):
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.Popen([exe, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        line = proc.stdout.readline()   # the result line arrives before teardown
        spawn_to_result = time.perf_counter() - started
        rest, err = proc.communicate(timeout=300)
        if proc.returncode != 0 or not line.strip():
            raise RuntimeError(f"{exe} exited {proc.returncode}: {err.strip()[-300:]}")
        sample = json.loads(line)
        sample["spawn_to_result_us"] = spawn_to_result * 1e6
        samples.append(sample)
    return {
        "device": samples[0]["device"],
        "selection": samples[0]["selection"],
        "libtorch": samples[0]["libtorch"],
        "runs": runs,
        "spawn_to_result_us_median": statistics.median(s["spawn_to_result_us"] for s in samples),
        "main_to_result_us_median": statistics.median(s["main_to_result_us"] for s in samples),
        "first_forward_us_median": statistics.median(s["first_forward_us"] for s in samples),
    }


def run(argv):
    parser = cli.Parser("cold_start", __doc__)
    parser.add_argument("--exe", required=True, help="path to tdc_cold_start")
    parser.add_argument("--runs", type=cli.whole(1, 1000), default=10)
    parser.add_argument("--out", help="JSON file to write")
    parser.add_argument("args", nargs="*", help="arguments for tdc_cold_start (after --)")
    args = parser.parse_args(argv)
    try:
        summary = measure(args.exe, args.args, dict(os.environ), args.runs)
    except (OSError, RuntimeError, ValueError) as error:
        print(f"cold_start: {error}", file=sys.stderr)
        return 1
    text = json.dumps(summary, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


def main(argv=None):
    return cli.run_main("cold_start", run, argv)
