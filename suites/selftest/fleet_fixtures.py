#!/usr/bin/env python3
"""Makes a small real fleet for the merge and report self-tests: real level-1
runs (ci/health) of this build on the loopback, one per node, each under its
own host name (a UTS namespace: unshare), then real transfer benchmarks
(the clean nodes share one measurement: benchmark() says why), then real
packages (ci/package --sign-key, each node with its own key).

  fleet_fixtures.py --build-dir BUILD --out DIR
Nodes (TDC_BACKEND_LIBS=the loopback, TDC_EXPECT=<its type>:2 on each; the
type is `privateuseone` on LibTorch 1.13, fleet.json's device_type, beside
the build's LibTorch version, its libtorch):
  n1 n2 n5   clean
  n3         slowed: TDC_LOOPBACK_DELAY_US on its run and benchmarks
  n4         night 1 with TDC_LOOPBACK_FAULT=corrupt-copy, night 2 clean
  n6         night 1 only (stale on night 3)
Each node's package is its first night's; for each later night (2, 3) the
same run under a new run id, re-signed by the node's key (a run merged on
one night is a replay on the next: ci/merge --history sets it aside).
Then forgeries of n2's package (DIR/forged/): its host renamed to n9 and
the MANIFEST rewritten, (a) keeping n2's signature, (b) re-signed with n2's
key, (c) unsigned; and (d) a result edited without rewriting the MANIFEST.
DIR/fleet.json says where everything is. Exit 0, or 1 naming what failed."""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys

from fleetsim import rewrite
from health_budget import BUDGET, TIMEOUT

from tdc import ROOT, discovery_env
from tdc.fleet import allocation
from tdc.results import libtorch_of

DELAY_US = "20000"
# 256 KiB copies: the injected delay dominates them (400x, and still more
# than 20x what a 256 KiB copy takes at load average 15). One node also
# times latency, for its run report's chart.
BENCH_FILTER = "^transfer/(h2d|d2h)/[a-z]+:[01]/262144/"
LATENCY_FILTER = "|^latency/(h2d|d2h)/[a-z]+:0/4096/"
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


def run(command, env, log, timeout=TIMEOUT):
    with open(log, "w") as out:
        return subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=timeout).returncode


REPETITIONS = 7
# Each repetition warms up and then times copies for at least this long.
MIN_TIME_S = 0.05


def benchmark(build, ran, out):
    """Each node's bench/transfer_host.json. The clean nodes share one
    measurement: the merge's outlier rule is what the fleet tests, and real
    figures of six "nodes" on one shared host differ with its load (a healthy
    node read 0.58x its peers in CI, an outlier the fleet does not have),
    so two clean nodes' figures may not differ here. The slowed node and the
    faulty one are measured on their own settings."""
    failures, measured = [], {}
    for name, host, extra, nights, results in ran:
        key = json.dumps(extra, sort_keys=True)
        if key not in measured:
            path = os.path.join(out, "logs", f"{name}.bench.json")
            log = os.path.join(out, "logs", f"{name}.bench.log")
            code = run([os.path.join(build, "bin", "tdc_bench_transfer"), "--tdc-quick",
                        f"--benchmark_filter={BENCH_FILTER}{'' if extra else LATENCY_FILTER}",
                        f"--benchmark_repetitions={REPETITIONS}", f"--benchmark_min_time={MIN_TIME_S}",
                        f"--benchmark_min_warmup_time={MIN_TIME_S}",
                        f"--benchmark_out={path}", "--benchmark_out_format=json"], node_env(build, extra), log)
            if code != 0 and "TDC_LOOPBACK_FAULT" not in extra:
                failures.append(f"{name}: tdc_bench_transfer exited {code} (log: {log})")
            measured[key] = path
        if os.path.exists(measured[key]):
            os.makedirs(os.path.join(results, "bench"), exist_ok=True)
            shutil.copyfile(measured[key], os.path.join(results, "bench", "transfer_host.json"))
    return failures


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
                                       f"--out={results}", f"--budget={BUDGET}"]), env,
                   os.path.join(out, "logs", f"{name}.health.log"))
        expected = 1 if "TDC_LOOPBACK_FAULT" in extra else 0
        if code != expected:
            failures.append(f"{name}: ci/health exited {code}, expected {expected} "
                            f"(log: {out}/logs/{name}.health.log)")
            continue
        ran.append((name, host, extra, nights, results))
    failures += benchmark(build, ran, out)
    for name, host, extra, nights, results in ran:
        folder = os.path.join(out, "packages", name)
        made = subprocess.run([os.path.join(ROOT, "ci", "package"), results, f"--product=fleet self-test {name}",
                               "--submitter=tdc self-test", f"--out={folder}",
                               f"--sign-key={os.path.join(out, 'keys', host)}"],
                              capture_output=True, text=True, timeout=300)
        if made.returncode != 0:
            failures.append(f"{name}: ci/package exited {made.returncode}: {made.stderr.strip()}")
            continue
        package = made.stdout.strip()
        fleet["nodes"][name] = {"host": host, "package": package, "results": results,
                                "packages": later_nights(package, nights, os.path.join(out, "keys", host))}
        with open(os.path.join(results, "context.json")) as f:
            fleet["libtorch"] = fleet["libtorch"] or libtorch_of(json.load(f))
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


def later_nights(package, nights, key):
    """{night: package} for nights 1-3: the node's own package on its first
    night, its run under a new run id (a later second: newer) on the others."""
    found = {str(nights[0]): package}
    original = rewrite.Package.read(package)
    for night in range(1, 4):
        if str(night) in found:
            continue
        copy = original.copy()
        old = copy.json("context.json")["run_id"]
        stamp = datetime.datetime.strptime(old.split("-")[0], "%Y%m%dT%H%M%SZ") + datetime.timedelta(seconds=night)
        copy.set_run_id(f"{stamp:%Y%m%dT%H%M%SZ}-{os.urandom(4).hex()}")
        found[str(night)] = copy.write(os.path.dirname(package), sign_key=key,
                                       name=os.path.basename(package)[:-len(".tar.gz")] + f"-night{night}")
    return found


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
