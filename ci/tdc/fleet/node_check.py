"""The body every node adapter shares (ci/fleet/: Slurm's HealthCheckProgram,
Prolog and Epilog, the NHC check, node-problem-detector): level 1 of a
shared build, run from a node-private run tree within a time budget, the
expectation taken from what Slurm says the node or job has, and, with
--drain, the one drain rule (tdc.fleet.drain) applied to the node.

  python3 -m tdc.fleet.node_check [--build-dir DIR] [--budget SECONDS] [--drain]
      [--mode run|detached|recorded] [--interval S] [--max-age S]
      [--node NAME] [--job-gpus LIST] [--state-dir DIR] [--width N] [--condition ACTION]
--build-dir defaults to TDC_BUILD_DIR; --node to SLURMD_NODENAME, else the
short host name; --job-gpus (a Prolog's SLURM_JOB_GPUS) names the job's GPUs:
CUDA_VISIBLE_DEVICES is set to them, so the job's own cuda:i is the i-th of
them, and the message names both. Without TDC_EXPECT the expectation is the
loopback's device count when the loopback is the backend, the job's GPUs, or
the GPUs Slurm configures on the node (gres gpu:N).

--mode: `run` (the default; the Epilog) runs level 1 now and records its
verdict in the state folder; `detached` (HealthCheckProgram, NHC, npd)
answers at once from the recorded verdict and, when it is older than
--interval, missing, or not trusted, starts one level-1 run in the
background (its own session and budget, one at a time per node under a
lock in the state folder): the next call applies it; `recorded` (the
Prolog) answers from the recorded verdict and the device list
(tdc.fleet.device_list: the devices the node, or the job's GPUs, show now
against the expectation and what the verdict checked), never running a
check. A recorded verdict older
than --max-age, from a run that did not finish, or measured on another
configuration (tdc.fingerprint) is unknown (tdc.recorded). No verdict yet is
unknown too, which drains: the first check after boot drains the node with
`TDC: unknown: no verdict yet (a level-1 run started ...)` and a later one
resumes it once the run was healthy.

Prints one line, `<verdict>: <message>` (at most --width characters), and
the drain's one line on stderr. Exit 0 healthy, 1 unhealthy, 2 unknown.
--condition ACTION (node-problem-detector's rule for one recommended action,
tdc.fleet.npd_config): exit 1 when ACTION is the node's recommended action
(an unknown verdict's is rerun), else 0.
"""
import argparse
import fcntl
import hashlib
import json
import os
import socket
import subprocess
import sys
import time

from tdc import ROOT, cli, fingerprint, reaper, recorded, verbs
from tdc.fleet import actions, allocation, device_list, drain, run_tree
from tdc.fleet.slurm import SlurmError, gres_gpus, run

EXIT = {"healthy": 0, "unhealthy": 1, "unknown": 2}


def configured_gpus(node):
    """The GPU count Slurm configures on NODE (sinfo %G: gpu:8, gpu:a100:4(S:0-1)), or 0."""
    try:
        out = run(["sinfo", "-h", "-N", "-n", node, "-o", "%G"], timeout=20)
    except SlurmError:
        return 0
    return gres_gpus(out.splitlines()[0] if out.strip() else "")


def check_environment(env, node, job_gpus, build_dir=None):
    env = dict(env, CUDA_DEVICE_ORDER="PCI_BUS_ID")
    if not job_gpus and env.get("SLURM_JOB_GPUS") and env.get("CUDA_VISIBLE_DEVICES") == env["SLURM_JOB_GPUS"]:
        # The node's environment in a Prolog: Slurm may set the job's GPUs
        # visible; the node's recorded verdict is of all of them.
        del env["CUDA_VISIBLE_DEVICES"]
    if job_gpus:
        env["SLURM_JOB_GPUS"] = job_gpus
        env["CUDA_VISIBLE_DEVICES"] = job_gpus
    if not env.get("TDC_EXPECT"):
        # The job's GPUs, else the node's as Slurm configures them, else the
        # loopback's devices where it stands in for GPUs.
        count = len(allocation.gpu_list(job_gpus)) or (configured_gpus(node) if node else 0)
        backend = (env.get("TDC_BACKEND_LIBS") or "").split(":")[0]
        expect = f"cuda:{count}" if count else allocation.expectation(env, backend, build_dir)
        if expect:
            env["TDC_EXPECT"] = expect
    return env


def state_key(build_dir, node):
    """NODE's name for BUILD_DIR in the state folder (a state folder on shared
    storage stays per node)."""
    return node + "-" + hashlib.sha256(os.path.abspath(build_dir).encode()).hexdigest()[:12]


def verdict_path(build_dir, state_dir, node):
    """Where ci/health records NODE's last level-1 verdict of BUILD_DIR."""
    return os.path.join(state_dir, f"last-{state_key(build_dir, node)}.json")


def run_health(build_dir, budget, state_dir, env, node):
    """ci/health's verdict (a dict) from NODE's run tree of BUILD_DIR; it is
    also recorded at verdict_path()."""
    key = state_key(build_dir, node)
    try:
        tree = run_tree.prepare(build_dir, os.path.join(state_dir, f"run-{key}"))
    except (run_tree.RunTreeError, OSError) as error:
        return {"verdict": "unknown", "message": str(error)}
    out = os.path.join(state_dir, f"last-{key}")
    command = [os.path.join(ROOT, "ci", "health"), f"--build-dir={tree}", f"--budget={budget}",
               f"--out={out}", f"--verdict={out}.json"]
    # Its own group, killed whole at the limit (ctest's own group goes with it: tdc.reaper).
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=budget + 30)
    except subprocess.TimeoutExpired:
        reaper.stop_group(process)
        return {"verdict": "unknown", "message": f"ci/health did not finish within {budget + 30} s"}
    except BaseException:
        reaper.stop_group(process)
        raise
    done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    for line in reversed(done.stdout.splitlines()):
        try:
            verdict = json.loads(line)
        except ValueError:
            continue
        if isinstance(verdict, dict) and verdict.get("verdict") in EXIT:
            return verdict
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return {"verdict": "unknown", "message": f"ci/health printed no verdict (exit {done.returncode}"
                                             f"{': ' + lines[-1] if lines else ''})"}


def lock_path(build_dir, state_dir, node):
    return os.path.join(state_dir, f"health-{state_key(build_dir, node)}.lock")  # run-*.lock is run_tree's


def run_under_way(path):
    """Whether a background run holds the lock at PATH now."""
    try:
        with open(path, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
    except OSError:
        return False
    return False


def start_background(args, env, budget):
    """Starts one level-1 run detached from the caller (its own session, no
    inherited output: slurmd and NHC wait for the pipes they gave), unless
    one is under way; it takes the node's lock itself (one at a time).
    Returns what it did, for the message."""
    lock = lock_path(args.build_dir, args.state_dir, args.node)
    if run_under_way(lock):
        return "a level-1 run is under way"
    log = os.path.join(args.state_dir, f"background-{state_key(args.build_dir, args.node)}.log")
    command = [sys.executable, "-m", "tdc.fleet.node_check", "--mode=background",
               f"--build-dir={args.build_dir}", f"--budget={budget}", f"--node={args.node}",
               f"--state-dir={args.state_dir}"]
    with open(log, "w") as output:
        subprocess.Popen(command, env=verbs.tools_env(env), stdin=subprocess.DEVNULL, stdout=output, stderr=output,
                         start_new_session=True, close_fds=True)
    return "a level-1 run started in the background"


# How long the background run keeps trying for the node's lock. A probe
# (run_under_way, an adapter's next call, a self-test's wait) holds it for
# an instant, a run under way for the whole run: giving up at the first
# try let a probe that happened to hold it stop the run, and no verdict was
# ever recorded. Not a verdict on speed: a run under way still wins.
LOCK_PATIENCE_S = 10


def background(args, env, budget):
    """One level-1 run under the node's lock (none when one is under way)."""
    with open(lock_path(args.build_dir, args.state_dir, args.node), "a") as handle:
        deadline = time.monotonic() + LOCK_PATIENCE_S
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return {"verdict": "unknown", "message": "a level-1 run is under way"}
                time.sleep(0.05)
        return run_health(args.build_dir, budget, args.state_dir, env, args.node)


def message_of(verdict, env):
    """The verdict's message; checked job GPUs first, named by Slurm's index too
    (a drain reason is cut at 200 characters)."""
    message = str(verdict.get("message", ""))
    gpus = allocation.gpu_list(env.get("SLURM_JOB_GPUS"))
    if gpus and env.get("CUDA_VISIBLE_DEVICES") == env.get("SLURM_JOB_GPUS"):
        mapping = ",".join(f"cuda:{i}=GPU {g}" for i, g in enumerate(gpus))
        message = f"[job GPUs {mapping}] {message}"
    return message


MODES = ("run", "detached", "recorded", "background")


def answer(args, env, numbers, job_env):
    """The verdict the mode gives (see MODES and the module's doc). ENV is the
    node's environment, JOB_ENV the job's GPUs' (the same without --job-gpus)."""
    budget = numbers["budget"]
    if args.mode == "run":
        # One level-1 run at a time per node: the Epilog waits for a
        # background run under way (bounded by its budget) rather than
        # running beside it in the same run tree.
        with open(lock_path(args.build_dir, args.state_dir, args.node), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            return run_health(args.build_dir, budget, args.state_dir, job_env, args.node)
    if args.mode == "background":
        return background(args, env, budget)
    # detached and recorded: the last completed verdict, trusted only while
    # young and measured on the node's configuration now (tdc.recorded).
    now = fingerprint.of(env, args.build_dir)
    path = verdict_path(args.build_dir, args.state_dir, args.node)
    verdict, age = recorded.trusted(path, now, numbers["max_age"])
    verdict = dict(verdict)
    if args.mode == "detached" and (verdict["verdict"] == "unknown" and verdict.get("action") == "rerun"
                                    or age is None or age >= numbers["interval"]):
        started = start_background(args, env, budget)
        if verdict["verdict"] == "unknown":
            verdict["message"] = f"{verdict['message']} ({started}; the next check applies it)"
    elif args.mode == "recorded":
        if verdict["verdict"] == "unknown":
            verdict["message"] = f"{verdict['message']} (the Epilog or the health check records one)"
        # The devices now: one missing is unhealthy whatever was recorded;
        # one the healthy verdict did not cover makes it unknown.
        devices = device_list.check(args.build_dir, job_env, env, verdict, args.job_gpus)
        if devices and (devices["verdict"] == "unhealthy" or verdict["verdict"] == "healthy"):
            verdict = devices
    return verdict


def body(argv):
    parser = cli.Parser("node_check", __doc__)
    parser.add_argument("--build-dir", default=os.environ.get("TDC_BUILD_DIR", ""))
    # Checked below, not by argparse: a bad budget (TDC_HEALTH_BUDGET=abc from
    # the site's settings) must still reach the drain rule as unknown, never
    # exit 2 before it and leave the node in service unchecked.
    parser.add_argument("--budget", default=os.environ.get("TDC_HEALTH_BUDGET", "45"),
                        help="ci/health's budget, seconds, 10 to 86400 (TDC_HEALTH_BUDGET, default 45)")
    parser.add_argument("--mode", choices=MODES, default="run",
                        help="run: level 1 now; detached: the recorded verdict, a background run when it is "
                             "older than --interval; recorded: the recorded verdict and the device list (a Prolog)")
    parser.add_argument("--interval", default=os.environ.get("TDC_HEALTH_INTERVAL", "300"),
                        help="detached: start a new run when the verdict is older, seconds (TDC_HEALTH_INTERVAL, 300)")
    parser.add_argument("--max-age", default=os.environ.get("TDC_HEALTH_MAX_AGE", "1800"),
                        help="an older verdict is unknown, seconds (TDC_HEALTH_MAX_AGE, default 1800)")
    parser.add_argument("--drain", action="store_true")
    parser.add_argument("--node", default=os.environ.get("SLURMD_NODENAME") or socket.gethostname().split(".")[0])
    parser.add_argument("--job-gpus", default="")
    parser.add_argument("--state-dir", default=os.environ.get("TDC_HEALTH_STATE", "/var/tmp/tdc-health"))
    parser.add_argument("--width", type=int, default=200)
    parser.add_argument("--condition", choices=[a for a in actions.ACTIONS if a != "none"],
                        help="exit 1 when this is the node's recommended action, else 0 (npd: one condition per action)")
    args = parser.parse_args(argv)
    # A recorded verdict is the node's (all its devices): a Prolog compares
    # the node's configuration, not its job's, and lists the job's devices.
    job_gpus = args.job_gpus if args.mode in ("run", "recorded") else ""
    env = check_environment(os.environ, args.node, "", args.build_dir)
    job_env = check_environment(os.environ, args.node, job_gpus, args.build_dir) if job_gpus else env
    numbers, bad = {}, []
    for name, value, what in (("budget", args.budget, "--budget or TDC_HEALTH_BUDGET"),
                              ("interval", args.interval, "--interval or TDC_HEALTH_INTERVAL"),
                              ("max_age", args.max_age, "--max-age or TDC_HEALTH_MAX_AGE")):
        try:
            numbers[name] = cli.whole(10, 86400)(str(value))
        except argparse.ArgumentTypeError as error:
            bad.append(f"bad {name.replace('_', ' ')} ({what}, 10 to 86400 s): {error}")
    if bad:
        verdict = {"verdict": "unknown", "message": "cannot run the check: " + "; ".join(bad)}
    elif not args.build_dir:
        verdict = {"verdict": "unknown", "message": "no TDC build (--build-dir or TDC_BUILD_DIR)"}
    else:
        os.makedirs(args.state_dir, exist_ok=True)
        verdict = answer(args, env, numbers, job_env)
    outcome = verdict["verdict"]
    recommended = verdict.get("action") if verdict.get("action") in actions.ACTIONS else \
        actions.node_action(outcome, [])
    message = message_of(verdict, job_env)
    status = EXIT[outcome] if not args.condition else int(recommended == args.condition)
    if args.drain:
        try:
            print(drain.apply(args.node, outcome, message, recommended), file=sys.stderr)
        except SlurmError as error:
            print(f"node_check: cannot apply the drain rule: {error}", file=sys.stderr)
            status = 2  # the rule is not applied: fail closed
    print(f"{outcome}: {message}"[:args.width])
    return status


def main(argv=None):
    return cli.run_main("node_check", body, argv)


if __name__ == "__main__":
    sys.exit(main())
