"""The body every node adapter shares (ci/fleet/: Slurm's HealthCheckProgram,
Prolog and Epilog, the NHC check, node-problem-detector): level 1 of a
shared build, run from a node-private run tree within a time budget, the
expectation taken from what Slurm says the node or job has, and, with
--drain, the one drain rule (tdc.fleet.drain) applied to the node.

  python3 -m tdc.fleet.node_check [--build-dir DIR] [--budget SECONDS] [--drain]
      [--node NAME] [--job-gpus LIST] [--state-dir DIR] [--width N]
--build-dir defaults to TDC_BUILD_DIR; --node to SLURMD_NODENAME, else the
short host name; --job-gpus (a Prolog's SLURM_JOB_GPUS) checks exactly those
GPUs: CUDA_VISIBLE_DEVICES is set to them, so the job's own cuda:i is the
i-th of them, and the message names both. Without TDC_EXPECT the expectation
is the loopback's device count when the loopback is the backend, the job's
GPUs, or the GPUs Slurm configures on the node (gres gpu:N).

Prints one line, `<verdict>: <message>` (at most --width characters), and
the drain's one line on stderr. Exit 0 healthy, 1 unhealthy, 2 unknown.
"""
import argparse
import hashlib
import json
import os
import socket
import subprocess
import sys

from tdc import ROOT, cli
from tdc.fleet import actions, allocation, drain, run_tree
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


def run_health(build_dir, budget, state_dir, env, node):
    """ci/health's verdict (a dict) from NODE's run tree of BUILD_DIR (named
    by the node too: a state folder on shared storage stays per node)."""
    key = node + "-" + hashlib.sha256(os.path.abspath(build_dir).encode()).hexdigest()[:12]
    try:
        tree = run_tree.prepare(build_dir, os.path.join(state_dir, f"run-{key}"))
    except (run_tree.RunTreeError, OSError) as error:
        return {"verdict": "unknown", "message": str(error)}
    out = os.path.join(state_dir, f"last-{key}")
    command = [os.path.join(ROOT, "ci", "health"), f"--build-dir={tree}", f"--budget={budget}",
               f"--out={out}", f"--verdict={out}.json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=budget + 30)
    except subprocess.TimeoutExpired:
        return {"verdict": "unknown", "message": f"ci/health did not finish within {budget + 30} s"}
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


def message_of(verdict, env):
    """The verdict's message; checked job GPUs first, named by Slurm's index too
    (a drain reason is cut at 200 characters)."""
    message = str(verdict.get("message", ""))
    gpus = allocation.gpu_list(env.get("SLURM_JOB_GPUS"))
    if gpus and env.get("CUDA_VISIBLE_DEVICES") == env.get("SLURM_JOB_GPUS"):
        mapping = ",".join(f"cuda:{i}=GPU {g}" for i, g in enumerate(gpus))
        message = f"[job GPUs {mapping}] {message}"
    return message


def body(argv):
    parser = cli.Parser("node_check", __doc__)
    parser.add_argument("--build-dir", default=os.environ.get("TDC_BUILD_DIR", ""))
    # Checked below, not by argparse: a bad budget (TDC_HEALTH_BUDGET=abc from
    # the site's settings) must still reach the drain rule as unknown, never
    # exit 2 before it and leave the node in service unchecked.
    parser.add_argument("--budget", default=os.environ.get("TDC_HEALTH_BUDGET", "45"),
                        help="ci/health's budget, seconds, 10 to 86400 (TDC_HEALTH_BUDGET, default 45)")
    parser.add_argument("--drain", action="store_true")
    parser.add_argument("--node", default=os.environ.get("SLURMD_NODENAME") or socket.gethostname().split(".")[0])
    parser.add_argument("--job-gpus", default="")
    parser.add_argument("--state-dir", default=os.environ.get("TDC_HEALTH_STATE", "/var/tmp/tdc-health"))
    parser.add_argument("--width", type=int, default=200)
    args = parser.parse_args(argv)
    env = check_environment(os.environ, args.node, args.job_gpus, args.build_dir)
    try:
        budget = cli.whole(10, 86400)(str(args.budget))
    except argparse.ArgumentTypeError as error:
        budget = None
        bad_budget = f"cannot run the check: bad budget (--budget or TDC_HEALTH_BUDGET, 10 to 86400 s): {error}"
    if budget is None:
        verdict = {"verdict": "unknown", "message": bad_budget}
    elif not args.build_dir:
        verdict = {"verdict": "unknown", "message": "no TDC build (--build-dir or TDC_BUILD_DIR)"}
    else:
        os.makedirs(args.state_dir, exist_ok=True)
        verdict = run_health(args.build_dir, budget, args.state_dir, env, args.node)
    outcome = verdict["verdict"]
    recommended = verdict.get("action") if verdict.get("action") in actions.ACTIONS else \
        actions.node_action(outcome, [])
    message = message_of(verdict, env)
    status = EXIT[outcome]
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
