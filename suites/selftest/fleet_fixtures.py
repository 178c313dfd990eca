#!/usr/bin/env python3
"""Makes a small real fleet for the merge and report self-tests: real level-1
runs (ci/health) of this build on the loopback, one per node, each under its
own host name (a UTS namespace: unshare), then the nodes' real transfer
benchmarks back to back, then real packages (ci/package --sign-key, each
node with its own key).

  fleet_fixtures.py --build-dir BUILD --out DIR
Nodes (TDC_BACKEND_LIBS=the loopback, TDC_EXPECT=<its type>:2 on each; the
type is `privateuseone` on LibTorch 1.13, fleet.json's device_type, beside
the build's LibTorch version, its libtorch):
  n1 n2 n5   clean
  n3         slowed: TDC_LOOPBACK_DELAY_US on its run and benchmarks
  n4         night 1 with TDC_LOOPBACK_FAULT=corrupt-copy, night 2 clean
  n6         night 1 only (stale on night 3)
Then forgeries of n2's package (DIR/forged/): its host renamed to n9 and
the MANIFEST rewritten, (a) keeping n2's signature, (b) re-signed with n2's
key, (c) unsigned; and (d) a result edited without rewriting the MANIFEST.
DIR/fleet.json says where everything is. Exit 0, or 1 naming what failed."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

from tdc import ROOT, discovery_env
from tdc.fleet import allocation, matrix, rewrite

DELAY_US = "20000"
# 256 KiB copies: the injected delay dominates them (400x), and they are
# long enough (tens of us) that a shared host's jitter does not (4 KiB copies
# and latencies take 1 to 5 us here, and their spread alone made healthy
# nodes outliers). The nodes' benchmarks run back to back after every
# level-1 run, so that the host's changing load is as alike as it can be
# between them (the merge's rule is not tuned to it). One node also times
# latency, for its run report's chart: a series of one node is compared with
# no one.
BENCH_FILTER = "^transfer/(h2d|d2h)/[a-z]+:[01]/262144/"
LATENCY_NODE, LATENCY_FILTER = "n1", "|^latency/(h2d|d2h)/[a-z]+:0/4096/"
NODES = [  # (run name, host, extra environment, nights)
    ("n1", "n1", {}, (1, 2)),
    ("n2", "n2", {}, (1, 2)),
    ("n3", "n3", {"TDC_LOOPBACK_DELAY_US": DELAY_US}, (2,)),
    ("n4-faulty", "n4", {"TDC_LOOPBACK_FAULT": "corrupt-copy"}, (1,)),
    ("n4", "n4", {}, (2,)),
    ("n5", "n5", {}, (2,)),
    ("n6", "n6", {}, (1,)),
]


def in_namespace(host, command):
    """command run with `host` as its host name (a new UTS namespace; a user
    namespace too, so this works without root)."""
    return ["unshare", "--user", "--map-root-user", "--uts", "sh", "-c",
            'hostname "$0" && exec "$@"', host, *command]


def node_env(build, extra):
    env = dict(os.environ, TDC_BACKEND_LIBS=os.path.join(build, "lib", "libtdc_loopback.so"),
               TDC_EXPECT=f"{allocation.loopback_type(build)}:2", **extra)
    for unset in (*discovery_env.LOOPBACK_BEHAVIOUR, "TDC_DEVICES"):
        if unset not in extra:
            env.pop(unset, None)
    return env


def run(command, env, log, timeout=900):
    with open(log, "w") as out:
        return subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=timeout).returncode


ROUNDS = 7  # a node's median outlasts three slow repetitions of seven
# Each repetition warms up and then times copies for at least this long.
# Quick mode's 2 ms warm-up left a process's first series cold in about one
# run in three (7 GB/s against 20 on this host), and 5 ms of timing let
# one preemption count: a healthy node's 256 KiB median came out 0.58x its
# peers, an outlier the fleet does not have.
MIN_TIME_S = 0.05


def benchmark_in_rounds(build, ran, out):
    """Each node's transfer benchmarks, ROUNDS repetitions, taken in rounds
    (one repetition of every node, then the next): a shared host's load
    changes over a minute, and taking the nodes one after the other gave one
    node all of a busy spell, an outlier the fleet does not have. Each node's
    bench/transfer_host.json then holds its repetitions and their median, as
    --benchmark_repetitions would have written them."""
    failures, rounds = [], {name: [] for name, *_ in ran}
    for round_index in range(ROUNDS):
        for name, host, extra, nights, results in ran:
            os.makedirs(os.path.join(results, "bench"), exist_ok=True)
            path = os.path.join(out, "logs", f"{name}.bench.{round_index}.json")
            code = run([os.path.join(build, "bin", "tdc_bench_transfer"), "--tdc-quick",
                        f"--benchmark_filter={BENCH_FILTER}{LATENCY_FILTER if name == LATENCY_NODE else ''}",
                        "--benchmark_repetitions=1", f"--benchmark_min_time={MIN_TIME_S}",
                        f"--benchmark_min_warmup_time={MIN_TIME_S}",
                        f"--benchmark_out={path}", "--benchmark_out_format=json"],
                       node_env(build, extra), os.path.join(out, "logs", f"{name}.bench.log"))
            if code != 0 and "TDC_LOOPBACK_FAULT" not in extra:
                failures.append(f"{name}: tdc_bench_transfer exited {code} (log: {out}/logs/{name}.bench.log)")
            if os.path.exists(path):
                with open(path) as f:
                    rounds[name].append(json.load(f))
    for name, host, extra, nights, results in ran:
        if rounds[name]:
            with open(os.path.join(results, "bench", "transfer_host.json"), "w") as f:
                json.dump(with_medians(rounds[name]), f, indent=1)
    return failures


def with_medians(documents):
    """One Google Benchmark document of the rounds' repetitions, each run's
    median appended as Benchmark's own aggregate (run_type "aggregate",
    aggregate_name "median", the median of each number). A run that reported
    an error keeps its entries and gets no median, as Benchmark writes it."""
    entries = []
    for repetition, document in enumerate(documents):
        for entry in document.get("benchmarks", []):
            if entry.get("run_type") == "aggregate":
                continue
            entries.append(dict(entry, repetitions=len(documents), repetition_index=repetition))
    runs = {}
    for entry in entries:
        runs.setdefault(entry.get("run_name", entry["name"]), []).append(entry)
    for run_name, repetitions in runs.items():
        if any(entry.get("error_occurred") for entry in repetitions):
            continue
        median = dict(repetitions[0], name=f"{run_name}_median", run_type="aggregate", aggregate_name="median")
        median.pop("repetition_index", None)
        for key, value in repetitions[0].items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and key not in (
                    "repetitions", "repetition_index", "family_index", "per_family_instance_index", "threads"):
                median[key] = statistics.median(entry[key] for entry in repetitions)
        entries.append(median)
    return dict(documents[0], benchmarks=entries)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    build, out = os.path.abspath(args.build_dir), os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    for folder in ("keys", "runs", "packages", "forged", "logs"):
        os.makedirs(os.path.join(out, folder))
    hosts = sorted({host for _, host, _, _ in NODES} | {"n9"})
    allowed = []
    for host in hosts:
        key = os.path.join(out, "keys", host)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", host, "-f", key], check=True)
        allowed.append(f"{host} {open(key + '.pub').read().strip()}")
    with open(os.path.join(out, "allowed_signers"), "w") as f:
        f.write("\n".join(allowed) + "\n")

    fleet = {"build": build, "device_type": allocation.loopback_type(build), "libtorch": "",
             "delayed": "n3", "delay_us": int(DELAY_US), "nodes": {}, "nights": {1: [], 2: []}}
    failures, ran = [], []
    for name, host, extra, nights in NODES:
        env = node_env(build, extra)
        results = os.path.join(out, "runs", name)
        code = run(in_namespace(host, [os.path.join(ROOT, "ci", "health"), f"--build-dir={build}",
                                       f"--out={results}", "--budget=600"]), env,
                   os.path.join(out, "logs", f"{name}.health.log"))
        expected = 1 if "TDC_LOOPBACK_FAULT" in extra else 0
        if code != expected:
            failures.append(f"{name}: ci/health exited {code}, expected {expected} "
                            f"(log: {out}/logs/{name}.health.log)")
            continue
        ran.append((name, host, extra, nights, results))
    failures += benchmark_in_rounds(build, ran, out)
    for name, host, extra, nights, results in ran:
        folder = os.path.join(out, "packages", name)
        made = subprocess.run([os.path.join(ROOT, "ci", "package"), results, f"--product=fleet self-test {name}",
                               "--submitter=tdc self-test", f"--out={folder}",
                               f"--sign-key={os.path.join(out, 'keys', host)}"],
                              capture_output=True, text=True, timeout=300)
        if made.returncode != 0:
            failures.append(f"{name}: ci/package exited {made.returncode}: {made.stderr.strip()}")
            continue
        fleet["nodes"][name] = {"host": host, "package": made.stdout.strip(), "results": results}
        with open(os.path.join(results, "context.json")) as f:
            fleet["libtorch"] = fleet["libtorch"] or matrix.libtorch_of(json.load(f))
        for night in nights:
            fleet["nights"][night].append(name)
    if "n2" in fleet["nodes"]:
        fleet["forged"] = forge(fleet["nodes"]["n2"]["package"], os.path.join(out, "forged"),
                                os.path.join(out, "keys", "n2"))
    with open(os.path.join(out, "fleet.json"), "w") as f:
        json.dump(fleet, f, indent=2)
    for failure in failures:
        print("FAILED:", failure)
    print(f"fleet fixtures: {len(fleet['nodes'])} packages in {out}")
    return 1 if failures else 0


def forge(package, folder, n2_key):
    """The forged-host cases: what an edit to context.json leaves behind."""
    original = rewrite.Package.read(package)
    forged = {}
    for case, sign_key, keep_signature in (("kept-signature", None, True), ("resigned-by-n2", n2_key, False),
                                           ("unsigned", None, False)):
        copy = original.copy()
        copy.set_host("n9")
        if not keep_signature:
            copy.files.pop("MANIFEST.sig", None)
        forged[case] = copy.write(folder, sign_key=sign_key, name=f"forged-{case}")
    edited = original.copy()
    summary = edited.json("summary.json")
    failed = next(t for t in summary["tests"] if t["status"] == "passed")
    failed["seconds"] = failed["seconds"] + 1
    forged["edited-unmanifested"] = edited.write(folder, remanifest=False, name="forged-edited-unmanifested")
    return forged


if __name__ == "__main__":
    sys.exit(main())
