#!/usr/bin/env python3
"""Self-test: both performance gates fail on an injected slow-down and pass
without it. Runs a few loopback benchmarks (quick mode, small sizes, where a
TDC_LOOPBACK_DELAY_US delay dominates) normally and slowed down, then expects
check_thresholds.py / compare_baseline.py to exit 0 on the normal run and 1
on the slow one.

The baseline gate here allows +1000%: the delay makes these benchmarks 200x
to 4000x slower, so the gate's power is intact, while two normal runs of a
sub-microsecond copy on a loaded 2-core CI host differ by more than +100%
(+125% seen in CI) and must not fail this self-test.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Accelerator-side benchmarks only (not cpu): 4 KiB and 256 KiB copies and
# the seed forward, each a few microseconds unless delayed.
MAX_REGRESSION = "10.0"
FILTER = "h2d/[a-z]+:0/(4096|262144)/|seed_float32/[a-z]+:0/"


def bench(args, tag, delay_us, work):
    env = dict(os.environ, TDC_BENCH_QUICK="1", OMP_NUM_THREADS="1")
    for inherited in ("TDC_BACKEND_LIBS", "TDC_DEVICES", "TDC_LOOPBACK_DELAY_US", "TDC_LOOPBACK_FAULT"):
        env.pop(inherited, None)
    if delay_us:
        env["TDC_LOOPBACK_DELAY_US"] = str(delay_us)
    outputs = []
    for exe in (args.transfer, args.forward):
        out = os.path.join(work, f"{os.path.basename(exe)}_{tag}.json")
        run = subprocess.run([exe, f"--backend-lib={args.loopback}", f"--benchmark_filter={FILTER}",
                              f"--benchmark_out={out}", "--benchmark_out_format=json"],
                             env=env, capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            sys.exit(f"{exe} ({tag}) exited {run.returncode}:\n{run.stderr[-2000:]}")
        outputs.append(out)
    return outputs


def gate(cmd):
    run = subprocess.run([sys.executable, *cmd], capture_output=True, text=True)
    print(f"$ {' '.join(cmd)}\n{run.stdout}{run.stderr}exit {run.returncode}\n")
    return run.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gate", choices=("thresholds", "baseline"), required=True)
    parser.add_argument("--transfer", required=True)
    parser.add_argument("--forward", required=True)
    parser.add_argument("--loopback", required=True, help="libtdc_loopback.so")
    parser.add_argument("--work", required=True, help="directory for the JSON files")
    parser.add_argument("--delay-us", type=int, default=2000)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    normal = bench(args, "normal", 0, args.work)
    slow = bench(args, "slow", args.delay_us, args.work)
    expectations = []
    if args.gate == "thresholds":
        check = [os.path.join(HERE, "check_thresholds.py"), "--thresholds",
                 os.path.join(HERE, "thresholds.json")]
        expectations = [("normal run", gate(check + normal), 0), ("slow run", gate(check + slow), 1)]
    else:
        again = bench(args, "normal_again", 0, args.work)
        compare = [os.path.join(HERE, "compare_baseline.py"), "--max-regression", MAX_REGRESSION]
        for i, name in enumerate(("transfer", "forward")):
            expectations.append((f"{name}: normal vs normal", gate(
                compare + ["--baseline", normal[i], "--contender", again[i]]), 0))
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
