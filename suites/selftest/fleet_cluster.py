#!/usr/bin/env python3
"""The fleet tools on a real Slurm cluster on this host (slurm_cluster.py):
ci/slurm/submit's array over nodes that differ on purpose, then the node
adapters of ci/fleet/ against the same cluster.

  fleet_cluster.py --build-dir BUILD [--phases array,adapters] [--keep DIR]
  fleet_cluster.py --build-dir BUILD --short

--short, the version .ci/run runs (a few minutes): two nodes (n1 healthy,
n3 corrupt-copy), a 2-task array through ci/slurm/submit (level 1, no
benchmarks) with its tasks file and merge, one HealthCheckProgram cycle that
drains faulty n3 with a "TDC:" reason, and one in which a faulty n1 keeps an
administrator's reason. It runs from a new 0700 temporary folder, as a user's
`python3 fleet_cluster.py` does, so munged's socket permissions stay fixed.

Nodes (per-node settings: <results>/node-env/<node>.sh, sourced by each task
and by the adapters):
  n1  healthy, 2 loopback devices
  n2  healthy, 3 loopback devices
  n3  TDC_LOOPBACK_FAULT=corrupt-copy: unhealthy
  n4  TDC_LOOPBACK_DELAY_US=2000: healthy but slow, the benchmark outlier
  n5  TDC_LOOPBACK_FAULT=hang-copy and a one-minute time limit: TIMEOUT
  n6  Slurm configures 2 GPUs (gres); none initialise here: unhealthy
array: level 1 with the quick benchmarks, each node's row in the tasks file
  with Slurm's state, the packages, the job's record in context.json; the
  merged matrix when ci/merge exists (else the merge job must fail closed).
adapters: HealthCheckProgram (run as slurmd runs it), NHC's check_tdc, and the
  Prolog/Epilog run by slurmd: faulty nodes drain with a "TDC:" reason and
  come back once healthy; an administrator's reason survives both; a
  Prolog names the job's GPU by Slurm's index.
Every daemon is stopped by PID at the end, also on failure, and no process
may be left. Exit 0 passed, 1 a check failed, 2 could not set up.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

from detached import settled as settled_check
from slurm_cluster import ClusterError, LocalCluster, provision

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NODES = [
    {"name": "n1", "env": {"TDC_LOOPBACK_DEVICES": "2"}},
    {"name": "n2", "env": {"TDC_LOOPBACK_DEVICES": "3"}},
    {"name": "n3", "env": {"TDC_LOOPBACK_FAULT": "corrupt-copy"}},
    {"name": "n4", "env": {"TDC_LOOPBACK_DELAY_US": "2000"}},
    {"name": "n5", "env": {"TDC_LOOPBACK_FAULT": "hang-copy"}},
    {"name": "n6", "env": {}, "gpus": 2, "cpus": 2},
]
SHORT_NODES = [NODES[0], NODES[2]]  # n1 healthy, n3 corrupt-copy
ADMIN_REASON = "admin: replace fan"
# An unhealthy node's drain reason names the recommended action (tdc.fleet.actions).
ACTION_REASON = re.compile(r"TDC: (drain|reset_device|reboot|service): ")
OUTLIER_BENCHMARK = "transfer/h2d/loopback:0/262144/manual_time_median"


class Check:
    def __init__(self):
        self.failures = []
        self.passed = 0

    def __call__(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)
            print(f"FAILED: {what}", flush=True)
        return ok


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def write_node_env(results, name, env):
    os.makedirs(os.path.join(results, "node-env"), exist_ok=True)
    with open(os.path.join(results, "node-env", f"{name}.sh"), "w") as f:
        f.write("".join(f"{k}={v}\n" for k, v in env.items()))


def clean_environment(cluster):
    """The submitter's environment: no TDC_* settings of the outer run."""
    for key in [k for k in cluster.env if k.startswith("TDC_")]:
        del cluster.env[key]


def wait_job(cluster, job_id, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        out = cluster.run(["scontrol", "show", "job", job_id, "-o"], check=False).stdout
        state = next((f.split("=", 1)[1] for f in out.split() if f.startswith("JobState=")), "")
        if state and state not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED"):
            return state
        time.sleep(2)
    return None


def package_member(path, name):
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            if member.name.endswith("/" + name):
                return json.load(tar.extractfile(member))
    return None


def outlier_metric(package):
    transfer = package_member(package, "bench/transfer_host.json") if package else None
    for bench in (transfer or {}).get("benchmarks", []):
        if bench.get("name") == OUTLIER_BENCHMARK:
            return bench.get("bytes_per_second")
    return None


def phase_array(cluster, build, results, check):
    for node in NODES:
        write_node_env(results, node["name"], node["env"])
    started = time.time()
    submit = cluster.run([os.path.join(ROOT, "ci", "slurm", "submit"), f"--results={results}",
                          f"--use-build={build}", "--backend-lib=loopback", "--level=1", "--bench=quick",
                          "--time=15", "--budget=300", "--max-running=2", "--hold"], check=False, timeout=120)
    if not check(submit.returncode == 0, f"ci/slurm/submit exit {submit.returncode}: {submit.stderr.strip()}"):
        return
    jobs = json.loads(submit.stdout)
    with open(os.path.join(results, "plan.json")) as f:
        plan = json.load(f)
    check(len(plan["tasks"]) == len(NODES), f"one task per node: {len(plan['tasks'])} tasks")
    hung = next(t["index"] for t in plan["tasks"] if t["node"] == "n5")
    # n5's task gets a one-minute limit; its hung copies outlast it.
    cluster.run(["scontrol", "update", f"JobId={jobs['array_job']}_{hung}", "TimeLimit=1"])
    cluster.run(["scontrol", "release", jobs["array_job"]])
    log(f"array {jobs['array_job']} released ({len(plan['tasks'])} tasks), merge job {jobs['merge_job']}")
    merge_state = wait_job(cluster, jobs["merge_job"], 1500)
    log(f"merge job {merge_state} after {time.time() - started:.0f} s")
    check(merge_state is not None, "the merge job did not finish within 1500 s")
    try:
        with open(os.path.join(results, "tasks.json")) as f:
            rows = json.load(f)
    except (OSError, ValueError) as error:
        check(False, f"no tasks file: {error}")
        return
    print(json.dumps(rows, indent=1))
    by_host = {row["host"]: row for row in rows}
    check(sorted(by_host) == [n["name"] for n in NODES] and len(rows) == len(NODES),
          f"one row per node: {sorted(by_host)}")
    check(all(set(row) == {"host", "build", "job_id", "array_task_id", "state", "exit_code", "package",
                           "reason"} for row in rows), "every row has exactly the contract's keys")
    expected = {"n1": ("COMPLETED", 0), "n2": ("COMPLETED", 0), "n3": ("FAILED", 1),
                "n4": ("FAILED", 1), "n5": ("TIMEOUT", None), "n6": ("FAILED", 1)}
    for host, (state, code) in expected.items():
        row = by_host.get(host, {})
        check(row.get("state") == state, f"{host}: state {row.get('state')}, expected {state}")
        if code is not None:
            check(row.get("exit_code") == code, f"{host}: exit code {row.get('exit_code')}, expected {code}")
        if state != "TIMEOUT":
            check(bool(row.get("package")) and os.path.isfile(row["package"]), f"{host}: no package")
    check(by_host.get("n1", {}).get("reason") == "", f"n1: a reason on a healthy row: {by_host.get('n1')}")
    check("unhealthy" in by_host.get("n3", {}).get("reason", "") and
          "loopback" in by_host.get("n3", {}).get("reason", ""), "n3: the reason names the faulty loopback")
    check("benchmarks failed" in by_host.get("n4", {}).get("reason", ""), "n4: the reason names the benchmarks")
    n5 = by_host.get("n5", {})
    check(n5.get("package") is None and "TIMEOUT" in n5.get("reason", "") and "no package" in n5.get("reason", ""),
          f"n5: a timed-out task without a package, saying so: {n5}")
    check("cuda_at_least_2" in by_host.get("n6", {}).get("reason", ""),
          "n6: Slurm's 2 GPUs are expected (cuda_at_least_2) and missing")

    contexts = {h: package_member(r["package"], "context.json") for h, r in by_host.items() if r.get("package")}
    for host, devices in (("n1", "2"), ("n2", "3")):
        context = contexts.get(host) or {}
        slurm = context.get("slurm") or {}
        check(slurm.get("node") == host and slurm.get("array_job_id") == jobs["array_job"] and
              slurm.get("job_id") and slurm.get("array_task_id") == str(by_host[host]["array_task_id"]),
              f"{host}: context.json records the Slurm job: {slurm}")
        check(context.get("environment", {}).get("CUDA_DEVICE_ORDER") == "PCI_BUS_ID",
              f"{host}: CUDA_DEVICE_ORDER=PCI_BUS_ID in context.json")
        check(context.get("expect") == f"loopback:{devices}", f"{host}: TDC_EXPECT {context.get('expect')}")
    n6 = (contexts.get("n6") or {}).get("slurm") or {}
    check([g.get("global_index") for g in n6.get("gpus", [])] == ["0", "1"] and
          not any(g.get("initialised") for g in n6.get("gpus", [])) and
          n6.get("variables", {}).get("SLURM_JOB_GPUS") == "0,1",
          f"n6: context.json maps the job's 2 GPUs (none initialised): {n6}")
    check((contexts.get("n6") or {}).get("expect") == "cuda:2", "n6: TDC_EXPECT=cuda:2 from the allocation")

    # What the merge's outlier rule needs is in the packages: n4's copies are slow.
    metrics = {h: outlier_metric(r.get("package")) for h, r in by_host.items() if h in ("n1", "n2", "n4")}
    print(f"{OUTLIER_BENCHMARK} bytes/s: {metrics}")
    if check(all(metrics.values()), f"the packages carry {OUTLIER_BENCHMARK}: {metrics}"):
        check(metrics["n4"] < 0.1 * min(metrics["n1"], metrics["n2"]), "n4 is not the slow node by far")

    merge_log = "".join(open(p).read() for p in glob.glob(os.path.join(results, "logs", "merge-*.out")))
    if not os.access(os.path.join(ROOT, "ci", "merge"), os.X_OK):
        check(merge_state == "FAILED" and merge_log.strip() == "ci/merge not found",
              f"without ci/merge the merge job fails closed with one line: {merge_state}, {merge_log!r}")
        print("ci/merge does not exist yet: checked the tasks file and the packages only")
    else:
        check_merged(results, by_host, merge_state, merge_log, check)


def check_merged(results, by_host, merge_state, merge_log, check):
    """The merged matrix: every task a row with Slurm's state; the slow node,
    and no other, an outlier."""
    check(merge_state in ("COMPLETED", "FAILED"), f"merge job {merge_state}: {merge_log[-500:]}")
    try:
        with open(os.path.join(results, "merged", "matrix.json")) as f:
            matrix = json.load(f)
    except (OSError, ValueError) as error:
        check(False, f"no merged matrix.json: {error}; merge log: {merge_log[-500:]}")
        return
    text = json.dumps(matrix)
    for host, row in by_host.items():
        check(host in text, f"the merged matrix has no row for {host}")
    check("TIMEOUT" in text, "the merged matrix shows n5's TIMEOUT")
    # What the test plants is slow copies on n4's loopback devices: the rule
    # must flag n4's copy series and no other node's. The nodes' cpu is one
    # and the same CPU of this host, and forward timings of six nodes on two
    # shared cores measure each other's load: those flags are printed, not
    # judged (docs/measurements.md has the false positives seen).
    outliers = matrix.get("outliers") or {}
    copies = {s.get("host") for s in outliers.get("series", []) if isinstance(s, dict)
              and str(s.get("device", "")).startswith("loopback") and str(s.get("series", "")).startswith("transfer/")}
    check(copies == {"n4"}, f"the outlier rule flags n4's loopback copies and no other node's: {sorted(copies)}")
    for device in outliers.get("devices", []):
        print(f"outlier: {device.get('message')}")


def run_adapter(cluster, base, script, node, extra_env=None):
    """An adapter as slurmd runs it: SLURMD_NODENAME, SLURM_CONF, no PATH."""
    env = {"SLURMD_NODENAME": node, "SLURM_CONF": cluster.conf,
           "TDC_FLEET_CONF": os.path.join(base, "fleet.conf"), **(extra_env or {})}
    started = time.time()
    done = subprocess.run([os.path.join(ROOT, "ci", "fleet", script)], env=env, capture_output=True,
                          text=True, timeout=600)
    seconds = time.time() - started
    log(f"{script} on {node}: exit {done.returncode} in {seconds:.1f} s: {done.stdout.strip()} "
        f"| {done.stderr.strip()[-300:]}")
    return done, seconds


def run_nhc(cluster, base, node):
    """check_tdc the way NHC calls a check: its `die` records one line."""
    script = ('die() { printf "die %s %s\\n" "$1" "$2"; return "$1"; }; '
              f'source "{ROOT}/ci/fleet/tdc.nhc"; check_tdc')
    env = {"HOSTNAME": node, "NHC_RM": "slurm", "MARK_OFFLINE": "1", "SLURM_CONF": cluster.conf,
           "PATH": "/usr/local/bin:/usr/bin:/bin", "TDC_FLEET_CONF": os.path.join(base, "fleet.conf")}
    started = time.time()
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=600)
    seconds = time.time() - started
    log(f"check_tdc on {node}: exit {done.returncode} in {seconds:.1f} s: {done.stdout.strip()}")
    return done, seconds


def adapter_settled(cluster, build, base, script, node):
    """A detached adapter (slurm-healthcheck) until it applies a verdict of the
    node's configuration now: the background run it starts is waited for."""
    times = []

    def call():
        done, seconds = run_adapter(cluster, base, script, node)
        times.append(seconds)
        return done
    return settled_check(call, os.path.join(base, "health-state"), node), times


def nhc_settled(cluster, build, base, node):
    times = []

    def call():
        done, seconds = run_nhc(cluster, base, node)
        times.append(seconds)
        return done
    return settled_check(call, os.path.join(base, "health-state"), node), times


def wait_node(cluster, node, ready, timeout=240):
    deadline = time.time() + timeout
    while time.time() < deadline:
        state, reason = cluster.node(node)
        if ready(state, reason):
            return state, reason
        time.sleep(2)
    return cluster.node(node)


def settled(cluster, node):
    """The node's state once slurmctld has heard from it again: a resumed node
    reads idle* (not responding) until its next registration."""
    return wait_node(cluster, node, lambda s, r: not s.endswith("*"), timeout=60)


def write_fleet_conf(build, base, results):
    with open(os.path.join(base, "fleet.conf"), "w") as f:
        # The site's settings file (ci/fleet/common.sh); per-node faults for the test.
        f.write(f"TDC_BUILD_DIR={build}\nTDC_BACKEND_LIBS={build}/lib/libtdc_loopback.so\n"
                f"TDC_HEALTH_STATE={base}/health-state\nTDC_HEALTH_BUDGET=120\nTDC_NHC_BUDGET=120\n"
                f'node_env="{results}/node-env/${{SLURMD_NODENAME:-${{HOSTNAME%%.*}}}}.sh"\n'
                f'[ -f "$node_env" ] && . "$node_env"\n')


def phase_short(cluster, build, base, results, check):
    """The array and the adapters on two nodes, as briefly as they can be shown."""
    for node in SHORT_NODES:
        write_node_env(results, node["name"], node["env"])
    submit = cluster.run([os.path.join(ROOT, "ci", "slurm", "submit"), f"--results={results}",
                          f"--use-build={build}", "--backend-lib=loopback", "--level=1", "--bench=off",
                          "--time=10", "--budget=300", "--max-running=2"], check=False, timeout=120)
    if not check(submit.returncode == 0, f"ci/slurm/submit exit {submit.returncode}: {submit.stderr.strip()}"):
        return
    jobs = json.loads(submit.stdout)
    merge_state = wait_job(cluster, jobs["merge_job"], 900)
    log(f"array {jobs['array_job']}: merge job {merge_state}")
    try:
        with open(os.path.join(results, "tasks.json")) as f:
            by_host = {row["host"]: row for row in json.load(f)}
    except (OSError, ValueError, KeyError, TypeError) as error:
        check(False, f"no tasks file: {error}")
        by_host = {}
    n1, n3 = by_host.get("n1", {}), by_host.get("n3", {})
    check(sorted(by_host) == ["n1", "n3"], f"one row per node: {sorted(by_host)}")
    check(n1.get("state") == "COMPLETED" and n1.get("exit_code") == 0 and n1.get("reason") == "",
          f"n1: a passing task: {n1}")
    check(n3.get("state") == "FAILED" and n3.get("exit_code") == 1 and "unhealthy" in n3.get("reason", ""),
          f"n3: a failing task whose reason says unhealthy: {n3}")
    for host, row in by_host.items():
        check(bool(row.get("package")) and os.path.isfile(row["package"]), f"{host}: no package")
    check(os.path.isfile(os.path.join(results, "merged", "matrix.json")),
          f"the merge job wrote no matrix ({merge_state})")

    write_fleet_conf(build, base, results)
    fault = {"TDC_LOOPBACK_FAULT": "corrupt-copy"}
    write_node_env(results, "n1", {})
    write_node_env(results, "n3", fault)
    done, _ = adapter_settled(cluster, build, base, "slurm-healthcheck", "n3")
    state, reason = cluster.node("n3")
    check(done.returncode == 1 and state.startswith("drain") and ACTION_REASON.match(reason),
          f"HealthCheckProgram drains faulty n3 with a TDC: <action>: reason: exit {done.returncode}, "
          f"{state}, {reason!r}")
    # A setting the check cannot run with is unknown, which drains (never exit 2 before scontrol).
    write_node_env(results, "n1", {"TDC_HEALTH_BUDGET": "abc"})
    done, _ = run_adapter(cluster, base, "slurm-healthcheck", "n1")
    state, reason = cluster.node("n1")
    check(done.returncode == 2 and state.startswith("drain") and reason.startswith("TDC: unknown: ")
          and "budget" in reason,
          f"a bad TDC_HEALTH_BUDGET drains n1 as unknown: exit {done.returncode}, {state}, {reason!r}")
    cluster.run(["scontrol", "update", "NodeName=n1", "State=DRAIN", f"Reason={ADMIN_REASON}"])
    write_node_env(results, "n1", fault)
    done, _ = adapter_settled(cluster, build, base, "slurm-healthcheck", "n1")
    check(done.returncode == 1 and cluster.node("n1")[1] == ADMIN_REASON,
          f"faulty n1 keeps the administrator's reason: exit {done.returncode}, {cluster.node('n1')}")


def phase_adapters(cluster, build, base, results, check):
    write_fleet_conf(build, base, results)
    for node in NODES:
        write_node_env(results, node["name"], {k: v for k, v in node["env"].items()
                                               if k == "TDC_LOOPBACK_DEVICES"})
    fault = {"TDC_LOOPBACK_FAULT": "corrupt-copy"}
    cluster.run(["scontrol", "update", "NodeName=n2", "State=DRAIN", f"Reason={ADMIN_REASON}"])
    times = []

    def healthcheck(node):
        done, seconds = adapter_settled(cluster, build, base, "slurm-healthcheck", node)
        times.extend(seconds)
        return done

    write_node_env(results, "n3", fault)
    done = healthcheck("n3")
    state, reason = cluster.node("n3")
    check(done.returncode == 1 and state.startswith("drain") and ACTION_REASON.match(reason),
          f"HealthCheckProgram drains faulty n3 with a TDC: reason: exit {done.returncode}, {state}, {reason!r}")
    done = healthcheck("n1")
    check(done.returncode == 0 and settled(cluster, "n1") == ("idle", "none"),
          f"HealthCheckProgram leaves healthy n1 idle: exit {done.returncode}, {cluster.node('n1')}")
    write_node_env(results, "n2", fault)
    healthcheck("n2")
    check(cluster.node("n2")[1] == ADMIN_REASON, f"faulty n2 keeps the administrator's reason: {cluster.node('n2')}")
    write_node_env(results, "n3", {})
    done = healthcheck("n3")
    check(done.returncode == 0 and settled(cluster, "n3") == ("idle", "none"),
          f"HealthCheckProgram resumes n3 once healthy: exit {done.returncode}, {cluster.node('n3')}")
    write_node_env(results, "n2", {})
    healthcheck("n2")
    state, reason = cluster.node("n2")
    check(state.startswith("drain") and reason == ADMIN_REASON,
          f"healthy n2 stays drained for the administrator: {state}, {reason!r}")

    # NHC's check: die with one line; the same drain rule.
    write_node_env(results, "n3", fault)
    done, seconds = nhc_settled(cluster, build, base, "n3")
    times.extend(seconds)
    lines = [line for line in done.stdout.splitlines() if line.startswith("die ")]
    check(done.returncode == 1 and len(lines) == 1 and lines[0].startswith("die 1 unhealthy: "),
          f"check_tdc calls die 1 with one line: {done.stdout!r}")
    check(bool(ACTION_REASON.match(cluster.node("n3")[1])), f"check_tdc drains n3: {cluster.node('n3')}")
    write_node_env(results, "n3", {})
    done, seconds = nhc_settled(cluster, build, base, "n3")
    times.extend(seconds)
    check(done.returncode == 0 and "die" not in done.stdout and settled(cluster, "n3") == ("idle", "none"),
          f"check_tdc passes and resumes n3 once healthy: {done.stdout!r}, {cluster.node('n3')}")

    # Prolog and Epilog, run by slurmd itself: the Prolog reads the recorded
    # verdict and lists the devices (never a run); the Epilog runs level 1.
    blocker = cluster.run(["sbatch", "--parsable", "-w", "n6", "--gres=gpu:1", "-o", "/dev/null",
                           "--wrap", "sleep 600"]).stdout.strip()
    wait_job_running(cluster, blocker)
    wrapper = os.path.join(base, "prolog-epilog")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nTDC_FLEET_CONF={base}/fleet.conf exec {ROOT}/ci/fleet/slurm-prolog-epilog\n")
    os.chmod(wrapper, 0o755)
    cluster.reconfigure([f"Prolog={wrapper}", f"Epilog={wrapper}"])
    state_dir = os.path.join(base, "health-state")
    before = recorded_stamp(state_dir, "n1")
    job = cluster.run(["sbatch", "--parsable", "-w", "n1", "-o", "/dev/null", "--wrap", "true"]).stdout.strip()
    check(wait_job(cluster, job, 400) == "COMPLETED" and settled(cluster, "n1") == ("idle", "none"),
          f"a job on healthy n1 passes the Prolog (its recorded verdict) and the Epilog: {cluster.node('n1')}")
    check(recorded_stamp(state_dir, "n1") != before, "the Epilog recorded n1's verdict")

    def prolog_blocks(node, reason_ok, what, gres=()):
        """A job on NODE: the Prolog drains it with a reason REASON_OK
        accepts and the job is requeued held, never run."""
        job = cluster.run(["sbatch", "--parsable", "-w", node, *gres, "-o", "/dev/null",
                           "--wrap", "true"]).stdout.strip()
        state, reason = wait_node(cluster, node, lambda s, r: s.startswith("drain"))
        log(f"Prolog on {node} ({what}): {state}, {reason!r}")
        check(state.startswith("drain") and bool(reason_ok(reason)),
              f"the Prolog drains {node}, {what}: {state}, {reason!r}")
        record = cluster.run(["scontrol", "show", "job", job, "-o"]).stdout
        check("Reason=launch_failed_requeued_held" in record and "Restarts=0 " not in record,
              f"the job that met {node} ({what}) was requeued, not run: {record[:300]}")
        cluster.run(["scancel", job])

    # A recorded failure: faulty n3 drained by the HealthCheckProgram, put
    # back by an administrator without a repair; the Prolog reads the verdict.
    write_node_env(results, "n3", fault)
    healthcheck("n3")
    cluster.run(["scontrol", "update", "NodeName=n3", "State=RESUME"])
    settled(cluster, "n3")
    prolog_blocks("n3", ACTION_REASON.match, "whose recorded verdict failed")
    # No verdict yet: n4 was never checked here.
    prolog_blocks("n4", lambda r: r.startswith("TDC: unknown: no verdict yet"), "with no recorded verdict")
    # Another configuration than the one recorded: n1 now has 3 devices.
    write_node_env(results, "n1", {"TDC_LOOPBACK_DEVICES": "3"})
    prolog_blocks("n1", lambda r: r.startswith("TDC: unknown: ") and "another configuration" in r
                  and "TDC_LOOPBACK_DEVICES" in r, "whose verdict is of another configuration")
    # The device list: the job's GPU (Slurm's GPU 1, the job's cuda:0) is not there.
    prolog_blocks("n6", lambda r: r.startswith("TDC: reboot: [job GPUs cuda:0=GPU 1] device list: cuda:0 missing"),
                  "whose job GPU is missing", gres=["--gres=gpu:1"])
    cluster.run(["scancel", blocker])
    write_node_env(results, "n1", {"TDC_LOOPBACK_DEVICES": "2"})
    write_node_env(results, "n3", {})
    for node in ("n1", "n3"):
        healthcheck(node)
        check(settled(cluster, node) == ("idle", "none"),
              f"{node} resumed after the Prolog's drain: {cluster.node(node)}")
    check(cluster.node("n2")[1] == ADMIN_REASON, f"n2 still carries the administrator's reason: {cluster.node('n2')}")
    log("adapter run times (s): " + ", ".join(f"{t:.1f}" for t in times))


def recorded_stamp(state_dir, node):
    """(inode, mtime) of NODE's recorded verdict, or None: a new one replaces it."""
    found = glob.glob(os.path.join(state_dir, f"last-{node}-*.json"))
    return (os.stat(found[0]).st_ino, os.stat(found[0]).st_mtime_ns) if found else None


def wait_job_running(cluster, job_id, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if "JobState=RUNNING" in cluster.run(["scontrol", "show", "job", job_id, "-o"], check=False).stdout:
            return
        time.sleep(1)
    raise ClusterError(f"job {job_id} did not start within {timeout} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--phases", default="array,adapters")
    parser.add_argument("--keep", help="leave the cluster's folder here (after stopping it)")
    parser.add_argument("--short", action="store_true", help="two nodes, the array and two adapter cycles")
    args = parser.parse_args()
    build = os.path.abspath(args.build_dir)
    if not os.path.exists(os.path.join(build, "lib", "libtdc_loopback.so")):
        print(f"fleet_cluster: {build} has no loopback library", file=sys.stderr)
        return 2
    phases = ["short"] if args.short else args.phases.split(",")
    nodes = SHORT_NODES if args.short else NODES
    check = Check()
    started = time.time()
    base = args.keep or tempfile.mkdtemp(prefix="tdc-slurm-")
    os.makedirs(base, exist_ok=True)
    if not args.keep:
        os.chmod(base, 0o755)  # mkdtemp's 0700 hides munged's socket from its clients
    results = os.path.join(base, "results")
    cluster = LocalCluster(os.path.join(base, "cluster"),
                           [{"name": n["name"], "cpus": n.get("cpus", 1), "gpus": n.get("gpus", 0)} for n in nodes])
    try:
        provision(ROOT)
        cluster.start()
        clean_environment(cluster)
        log(f"cluster up: {len(nodes)} nodes in {base}")
        if "short" in phases:
            phase_short(cluster, build, base, results, check)
        if "array" in phases:
            phase_array(cluster, build, results, check)
        if "adapters" in phases:
            phase_adapters(cluster, build, base, results, check)
    except (ClusterError, subprocess.TimeoutExpired, OSError) as error:
        check(False, f"setup: {error}")
    finally:
        cluster.stop()
        left = cluster.leftovers()
        check(not left, f"processes left behind: {left}")
        cluster.kill_leftovers()
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    log(f"{check.passed} checks passed, {len(check.failures)} failed, {time.time() - started:.0f} s")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
