"""ci/slurm/submit: qualifies a fleet with one Slurm job array.

  ci/slurm/submit --results=DIR (--build-root=DIR [--torch=LIST] | --use-build=DIR...)
      [--partition=P] [--nodes=LIST] [--level=1|2|3] [--bench=quick|full|off]
      [--gpus=auto|N] [--backend-lib=loopback|PATH] [--expect-from-allocation]
      [--time=LIMIT] [--budget=SECONDS] [--product=TEXT] [--submitter=TEXT]
      [--history=DIR] [--max-running=N] [--hold]

Three jobs, all results on shared storage under --results:
  build  builds each LibTorch of --torch (default 2.13.0) once into
         --build-root/<torch> with ci/lib.sh's tdc_build; --use-build names
         existing builds instead (checked, never rebuilt);
  array  one task per node (x build), after the build (afterok; a failed
         build cancels the tasks); each runs --level from the build
         (ci/slurm/task-job) and writes its package under tasks/<index>/;
  merge  after every task (afterany): the tasks file (tasks.json, Slurm's
         view of each task) and ci/merge over the packages (ci/slurm/merge-job).
Each task is pinned to its node and asks for the node's GPUs (sinfo's gres,
--gpus=auto; --gpus=0 for none) while the array is held, then the array is
released (--hold leaves that to you: scontrol release <array>). A node that
is drained, down or failing gets no task; submit names it.
Per-node settings: a file <results>/node-env/<node>.sh, sourced by the task.

Prints one JSON object (the jobs and the plan file); exit 0, or 2 with one
line on bad input or when Slurm refuses a step.
"""
import json
import os
import re
import shlex
import sys

from tdc import ROOT, cli, packaging
from tdc.errors import InputError
from tdc.fleet.slurm import SlurmError, gres_gpus, run

# Slurm's time limit syntax (sbatch(1) --time): minutes, minutes:seconds,
# hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds.
TIME_LIMIT = re.compile(r"^(\d+(:\d{1,2}){0,2}|\d+-\d{1,2}(:\d{1,2}){0,2}|UNLIMITED|unlimited|infinite)$")
MAX_GPUS = 1024
MAX_RUNNING = 100000
UNAVAILABLE = ("drain", "down", "fail", "maint", "unknown", "future", "inval", "reboot", "power")
DEFAULT_TIME = {1: "15", 2: "90", 3: "180"}


def arguments(argv):
    parser = cli.Parser("ci/slurm/submit", __doc__)
    parser.add_argument("--results", required=True, help="shared folder for plan, packages, tasks file")
    parser.add_argument("--build-root", help="shared folder the build job builds into")
    parser.add_argument("--torch", default="2.13.0", help="LibTorch builds, comma-separated")
    parser.add_argument("--use-build", action="append", default=[], help="an existing build (repeatable)")
    parser.add_argument("--partition")
    parser.add_argument("--nodes", help="comma-separated node names (default: the partition's)")
    parser.add_argument("--level", type=int, choices=(1, 2, 3), default=1)
    parser.add_argument("--bench", choices=("quick", "full", "off"))
    parser.add_argument("--gpus", default="auto", help="GPUs per task: auto (the node's gres) or a count")
    parser.add_argument("--backend-lib", help="'loopback' (each build's libtdc_loopback.so) or a path")
    parser.add_argument("--expect-from-allocation", action="store_true",
                        help="TDC_EXPECT=cuda:<allocated GPUs> in each task (on whenever a task has GPUs)")
    parser.add_argument("--time", help="each task's time limit, Slurm's syntax (default by level)")
    parser.add_argument("--budget", type=int, default=300, help="level 1: ci/health's budget in seconds")
    parser.add_argument("--product", default="fleet node")
    parser.add_argument("--submitter", default=os.environ.get("USER", "tdc"))
    parser.add_argument("--history", help="passed to ci/merge --history")
    parser.add_argument("--max-running", type=int, help="at most N tasks at once (Slurm's array %%N)")
    parser.add_argument("--hold", action="store_true", help="leave the array held")
    return parser.parse_args(argv)


def fleet_nodes(partition, wanted):
    """[(node, gpus)] to test and [(node, state, reason)] left out."""
    args = ["sinfo", "-h", "-N", "-o", "%N|%T|%G|%E"] + (["-p", partition] if partition else [])
    seen, nodes, left_out = set(), [], []
    for line in run(args).splitlines():
        parts = line.split("|", 3)
        if len(parts) < 4 or parts[0] in seen:
            continue
        node, state, gres, reason = (p.strip() for p in parts)
        seen.add(node)
        if wanted and node not in wanted:
            continue
        if state.lower().rstrip("*~#!%$@^-").startswith(UNAVAILABLE) or state.endswith("*"):
            left_out.append({"node": node, "state": state, "reason": reason})
        else:
            nodes.append((node, gres_gpus(gres)))
    missing = sorted(set(wanted or ()) - seen)
    if missing:
        raise InputError(f"--nodes: not in {'partition ' + partition if partition else 'the cluster'}: "
                         f"{', '.join(missing)}")
    return nodes, left_out


def plan_builds(args):
    builds = []
    if args.use_build:
        for path in args.use_build:
            path = os.path.abspath(path)
            if not os.path.isfile(os.path.join(path, "CTestTestfile.cmake")):
                raise InputError(f"--use-build={path}: not a TDC build (no CTestTestfile.cmake)")
            builds.append({"name": os.path.basename(path.rstrip("/")), "torch": None, "dir": path})
    else:
        if not args.build_root:
            raise InputError("give --build-root=DIR (the build job builds there) or --use-build=DIR")
        for torch in [t.strip() for t in args.torch.split(",") if t.strip()]:
            if not re.match(r"^([0-9][0-9.]*|system|/.+)$", torch):
                raise InputError(f"--torch: '{torch}': expected a version, 'system' or a LibTorch prefix")
            name = os.path.basename(torch.rstrip("/")) if torch.startswith("/") else torch
            builds.append({"name": name, "torch": torch,
                           "dir": os.path.join(os.path.abspath(args.build_root), name)})
    names = [b["name"] for b in builds]
    if not builds or len(set(names)) != len(names):
        raise InputError(f"builds must be named once each: {names}")
    return builds


def check_inputs(args):
    """What would fail the night hours later, refused now with one line each
    (issue 34, finding 10): a STATEMENT field a package cannot hold (every
    package would be refused), a history or backend library that does not
    exist, a time limit, GPU count or throttle Slurm would refuse or misread."""
    for key in ("product", "submitter"):
        value = getattr(args, key)
        if not str(value).strip():
            raise InputError(f"--{key} is empty: every package needs one")
        packaging.statement_value(key, value)   # a newline or control character: one line, refused
    if args.history is not None and not os.path.isdir(args.history):
        raise InputError(f"--history={args.history}: not a folder (ci/merge --history reads earlier "
                         "nights' matrices from it): create it, or leave the option out")
    if args.backend_lib not in (None, "loopback") and not os.path.isfile(args.backend_lib):
        raise InputError(f"--backend-lib={args.backend_lib}: no such file (give 'loopback' or a "
                         "shared library every node can read)")
    if args.time is not None and not TIME_LIMIT.match(args.time):
        raise InputError(f"--time={args.time!r}: not a Slurm time limit (minutes, [days-]hours:minutes:seconds, "
                         "days-hours[:minutes])")
    if not (args.gpus == "auto" or (re.fullmatch(r"[0-9]+", args.gpus) and int(args.gpus) <= MAX_GPUS)):
        raise InputError(f"--gpus={args.gpus!r}: expected auto or a count (0..{MAX_GPUS})")
    if args.max_running is not None and not 1 <= args.max_running <= MAX_RUNNING:
        raise InputError(f"--max-running={args.max_running}: expected 1..{MAX_RUNNING} tasks at once")


def make_plan(args):
    check_inputs(args)
    if args.level == 3 and args.bench == "off":
        raise InputError("--level=3 needs the benchmarks: drop --bench=off")
    if not 10 <= args.budget <= 86400:
        raise InputError(f"--budget={args.budget}: expected 10..86400 seconds (ci/health's range)")
    results = os.path.abspath(args.results)
    builds = plan_builds(args)
    wanted = [n.strip() for n in args.nodes.split(",")] if args.nodes else None
    nodes, left_out = fleet_nodes(args.partition, wanted)
    if not nodes:
        raise InputError("no node to test (every node is drained, down or not in the partition)")
    tasks = []
    for node, node_gpus in nodes:
        gpus = node_gpus if args.gpus == "auto" else int(args.gpus)
        for build in builds:
            tasks.append({"index": len(tasks), "node": node, "build": build["name"],
                          "build_dir": build["dir"], "gpus": gpus})
    return {"version": 1, "root": ROOT, "results": results, "level": args.level,
            "bench": args.bench or ("off" if args.level == 1 else "quick"), "budget": args.budget,
            "backend_lib": args.backend_lib, "expect_from_allocation": args.expect_from_allocation,
            "product": args.product, "submitter": args.submitter,
            "history": os.path.abspath(args.history) if args.history else None,
            "builds": builds, "tasks": tasks, "left_out": left_out}


def sbatch(options, script, *script_args):
    """Submits ci/slurm/SCRIPT (run in place: --wrap, not a spooled copy); its job id."""
    wrap = " ".join(shlex.quote(a) for a in ["exec", os.path.join(ROOT, "ci", "slurm", script), *script_args])
    out = run(["sbatch", "--parsable", *options, f"--wrap={wrap}"])
    return out.strip().split(";")[0]


def submit(plan, args):
    """Submits build, array and merge; a refused step cancels what was submitted."""
    plan_file = os.path.join(plan["results"], "plan.json")
    logs = os.path.join(plan["results"], "logs")
    partition = [f"--partition={args.partition}"] if args.partition else []
    submitted = []
    try:
        submitted.append(sbatch([*partition, "--job-name=tdc-build", "--nodes=1", "--exclusive",
                                 f"--output={logs}/build-%j.out"], "build-job", plan_file))
        time_limit = args.time or DEFAULT_TIME[plan["level"]]
        throttle = f"%{args.max_running}" if args.max_running else ""
        submitted.append(sbatch([*partition, "--job-name=tdc-task", f"--array=0-{len(plan['tasks']) - 1}{throttle}",
                                 "--hold", f"--dependency=afterok:{submitted[0]}", "--kill-on-invalid-dep=yes",
                                 "--nodes=1", "--ntasks=1", f"--time={time_limit}",
                                 f"--output={logs}/task-%a.out"], "task-job", plan_file))
        array_job = submitted[1]
        # Pinned while held: each task its node and that node's GPUs.
        for task in plan["tasks"]:
            update = ["scontrol", "update", f"JobId={array_job}_{task['index']}", f"ReqNodeList={task['node']}"]
            if task["gpus"]:
                update.append(f"Gres=gpu:{task['gpus']}")
            run(update)
        submitted.append(sbatch([*partition, "--job-name=tdc-merge", "--nodes=1", "--ntasks=1",
                                 f"--dependency=afterany:{array_job}", f"--output={logs}/merge-%j.out"],
                                "merge-job", plan_file, array_job))
        if not args.hold:
            run(["scontrol", "release", array_job])
    except SlurmError:
        if submitted:
            try:
                run(["scancel", *submitted])
            except SlurmError:
                pass
        raise
    return dict(zip(("build_job", "array_job", "merge_job"), submitted))


def body(argv):
    args = arguments(argv)
    try:
        plan = make_plan(args)
        for folder in ("logs", "tasks", "node-env"):
            os.makedirs(os.path.join(plan["results"], folder), exist_ok=True)
        with open(os.path.join(plan["results"], "plan.json"), "w") as f:
            json.dump(plan, f, indent=2)
        jobs = submit(plan, args)
        with open(os.path.join(plan["results"], "jobs.json"), "w") as f:
            json.dump(jobs, f, indent=2)
    except SlurmError as error:
        raise InputError(str(error))
    for node in plan["left_out"]:
        print(f"submit: no task for {node['node']}: {node['state']} ({node['reason']})", file=sys.stderr)
    print(json.dumps({**jobs, "tasks": len(plan["tasks"]), "left_out": plan["left_out"],
                      "plan": os.path.join(plan["results"], "plan.json"),
                      "tasks_file": os.path.join(plan["results"], "tasks.json")}))
    return 0


def main(argv=None):
    return cli.run_main("submit", body, argv)


if __name__ == "__main__":
    sys.exit(main())
