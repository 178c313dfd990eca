"""One task of ci/slurm/submit's array (ci/slurm/task-job runs it on its node).

  python3 -m tdc.fleet.slurm_task PLAN

Runs the plan's level from the task's build, never building: level 1 is
ci/health, levels 2 and 3 the run pipeline ci/conformance runs after its
build (python3 -m tdc run), each followed by the benchmarks when the plan
asks for them (python3 -m tdc run-benchmarks; level 3 also its gate). It works in
<results>/tasks/<index>/: a run tree of the shared build (tdc.fleet.run_tree:
concurrent tasks never share ctest's state), results/, the package
(ci/package) under package/, and state.json, which says how far the task got
and is rewritten at every stage, so a task that dies still says where.

The environment: CUDA_DEVICE_ORDER=PCI_BUS_ID; TDC_BACKEND_LIBS from the
plan's backend library ('loopback': the build's own libtdc_loopback.so);
TDC_EXPECT from the allocation (tdc.fleet.allocation) when the plan says so,
the task has GPUs, or the loopback stands in for them.
Exit status: the level's (0 passed, 1 a check failed, 2 could not run).
"""
import datetime
import glob
import json
import os
import subprocess
import sys

from tdc import ROOT
from tdc.fleet import allocation, run_tree


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class Task:
    def __init__(self, plan, index):
        self.plan = plan
        self.task = plan["tasks"][index]
        self.dir = os.path.join(plan["results"], "tasks", str(index))
        self.results = os.path.join(self.dir, "results")
        self.state = {"index": index, "node": os.environ.get("SLURMD_NODENAME"),
                      "planned_node": self.task["node"], "build": self.task["build"],
                      "job_id": os.environ.get("SLURM_JOB_ID"), "started": now(),
                      "stage": "started", "exit": None, "verdict": None, "message": None,
                      "bench_exit": None, "package": None, "package_error": None}

    def stage(self, name, **fields):
        self.state.update(fields, stage=name, updated=now())
        path = os.path.join(self.dir, "state.json")
        with open(path + ".tmp", "w") as f:
            json.dump(self.state, f, indent=2)
        os.replace(path + ".tmp", path)

    def step(self, command, env, log):
        """Runs one step, its output in LOG; its exit status."""
        with open(os.path.join(self.dir, log), "w") as f:
            return subprocess.run(command, env=env, stdout=f, stderr=subprocess.STDOUT).returncode

    def environment(self):
        """The level's environment; the loopback stands in only where Slurm gave no GPUs."""
        env = dict(os.environ, CUDA_DEVICE_ORDER="PCI_BUS_ID")
        _, gpus = allocation.allocated_gpus(env)
        backend = self.plan.get("backend_lib")
        if backend == "loopback":
            backend = None if gpus else os.path.join(self.task["build_dir"], "lib", "libtdc_loopback.so")
        if backend:
            env["TDC_BACKEND_LIBS"] = backend
        expect = allocation.expectation(env, backend, self.task["build_dir"])
        if expect and (gpus or allocation.is_loopback(backend) or self.plan.get("expect_from_allocation")):
            env["TDC_EXPECT"] = expect
        return env

    def tdc(self, verb, args, env, log):
        """One verb of the tdc package (python3 -m tdc VERB), output in LOG."""
        return self.step([sys.executable, "-m", "tdc", verb, *args], env, log)

    def benchmarks(self, tree, env):
        if self.plan["bench"] == "off":
            return 0
        quick = ["--quick"] if self.plan["bench"] == "quick" else []
        bench = os.path.join(self.results, "bench")
        status = self.tdc("run-benchmarks", ["--build-dir", tree, "--out", bench, *quick, "--with-loopback"],
                          env, "bench.log")
        if self.plan["level"] == 3:
            status = max(status, self.tdc("qualification-gate", ["--bench-dir", bench], env, "gate.log"))
        self.state["bench_exit"] = status
        return status

    def level(self, tree, env):
        """The plan's level from the run tree: ci/health for level 1 (its
        budget), the run pipeline (tdc.pipeline, what ci/conformance runs
        after its build) for levels 2 and 3; then the benchmarks if asked."""
        level, verdict_file = self.plan["level"], os.path.join(self.dir, "verdict.json")
        if level == 1:
            status = self.step([os.path.join(ROOT, "ci", "health"), f"--build-dir={tree}",
                                f"--out={self.results}", f"--budget={self.plan['budget']}",
                                f"--verdict={verdict_file}"], env, "health.log")
        else:
            if level == 3:  # as ci/conformance --level=3 sets it: waivers need trackers
                env = dict(env, TDC_REQUIRE_WAIVER_TRACKERS="1")
            status = self.tdc("run", ["--build-dir", tree, "--results", self.results, "--level", str(level),
                                      "--jobs", os.environ.get("SLURM_CPUS_ON_NODE") or str(os.cpu_count() or 1), "--verdict", verdict_file,
                                      "--command-line", f"ci/slurm/submit --level={level}"], env, "run.log")
        self.record_verdict(verdict_file)
        return max(status, self.benchmarks(tree, env))

    def record_verdict(self, path):
        try:
            with open(path) as f:
                verdict = json.load(f)
            self.state.update(verdict=verdict.get("verdict"), message=verdict.get("message"))
        except (OSError, ValueError):
            self.state.update(verdict="unknown", message="the level wrote no verdict")

    def package(self):
        out = os.path.join(self.dir, "package")
        done = subprocess.run([os.path.join(ROOT, "ci", "package"), self.results,
                               f"--product={self.plan['product']} ({self.task['node']}, {self.task['build']})",
                               f"--submitter={self.plan['submitter']}", f"--out={out}"],
                              capture_output=True, text=True)
        paths = sorted(glob.glob(os.path.join(out, "*.tar.gz")))
        if done.returncode == 0 and paths:
            return paths[-1], None
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        return None, lines[-1] if lines else f"ci/package exited {done.returncode}"

    def run(self):
        os.makedirs(self.results, exist_ok=True)
        self.stage("started")
        if self.state["node"] != self.task["node"]:
            self.stage("failed", exit=2, verdict="unknown",
                       message=f"ran on {self.state['node']}, planned for {self.task['node']}")
            return 2
        env = self.environment()
        self.stage("run tree", expect=env.get("TDC_EXPECT"), backend_libs=env.get("TDC_BACKEND_LIBS"))
        try:
            tree = run_tree.prepare(self.task["build_dir"], os.path.join(self.dir, "build"))
        except (run_tree.RunTreeError, OSError) as error:
            self.stage("failed", exit=2, verdict="unknown", message=str(error))
            return 2
        self.stage(f"level {self.plan['level']}")
        status = self.level(tree, env)
        self.stage("package", exit=status)
        package, error = self.package()
        self.stage("done", package=package, package_error=error)
        return status if package else max(status, 2)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        with open(argv[0]) as f:
            plan = json.load(f)
        index = int(os.environ["SLURM_ARRAY_TASK_ID"])
        plan["tasks"][index]
    except (IndexError, KeyError, OSError, ValueError) as error:
        print(f"slurm_task: no task to run ({type(error).__name__}: {error}); "
              "usage: python3 -m tdc.fleet.slurm_task PLAN inside an array task", file=sys.stderr)
        return 2
    return Task(plan, index).run()


if __name__ == "__main__":
    sys.exit(main())
