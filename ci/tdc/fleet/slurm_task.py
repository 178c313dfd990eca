"""One task of ci/slurm/submit's array (ci/slurm/task-job runs it on its node).

  python3 -m tdc.fleet.slurm_task PLAN

Runs the plan's level from the task's build, never building: level 1 is
ci/health (plus bench/run_all.py when the plan asks for benchmarks), levels 2
and 3 the run steps of ci/conformance (level_run below). It works in
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
import time

from tdc.fleet import allocation, run_tree

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LABELS = {2: "conformance", 3: "conformance|level3"}


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
        expect = allocation.expectation(env, backend)
        if expect and (gpus or allocation.is_loopback(backend) or self.plan.get("expect_from_allocation")):
            env["TDC_EXPECT"] = expect
        return env

    def benchmarks(self, tree, env):
        if self.plan["bench"] == "off":
            return 0
        quick = ["--quick"] if self.plan["bench"] == "quick" else []
        return self.step([sys.executable, os.path.join(ROOT, "bench", "run_all.py"), "--build-dir", tree,
                          "--out", os.path.join(self.results, "bench"), *quick, "--with-loopback"],
                         env, "bench.log")

    def level_one(self, tree, env):
        verdict_file = os.path.join(self.dir, "verdict.json")
        status = self.step([os.path.join(ROOT, "ci", "health"), f"--build-dir={tree}",
                            f"--out={self.results}", f"--budget={self.plan['budget']}",
                            f"--verdict={verdict_file}"], env, "health.log")
        self.record_verdict(verdict_file)
        bench = self.benchmarks(tree, env)
        self.state["bench_exit"] = bench
        return max(status, bench)

    def level_run(self, tree, env):
        """Levels 2 and 3 from an existing build: ci/conformance's steps after
        its build (that script always builds first, which a task must not do
        on a shared build). To be replaced by the package's one pipeline
        once it can run an existing build."""
        level, ci = self.plan["level"], os.path.join(ROOT, "ci")
        if level == 3:
            env = dict(env, TDC_REQUIRE_WAIVER_TRACKERS="1")
        junit, summary = os.path.join(self.results, "junit.xml"), os.path.join(self.results, "summary.json")
        context = os.path.join(self.results, "context.json")
        if self.step([sys.executable, os.path.join(ci, "context.py"), "--build-dir", tree, "--out", context,
                      "--level", str(level), "--command-line", f"ci/slurm task level {level}"],
                     env, "context.log"):
            return 2
        resources = os.path.join(self.results, "resources.json")
        with open(resources, "w") as f:
            if subprocess.run([sys.executable, os.path.join(ci, "resource_spec.py"), "--build-dir", tree],
                              env=env, stdout=f).returncode:
                return 2
        started = time.time()
        status = 1 if self.step(["ctest", "--test-dir", tree, "-L", LABELS[level], "-j", str(os.cpu_count()),
                                 "--output-on-failure", "--output-junit", junit,
                                 "--resource-spec-file", resources], env, "ctest.log") else 0
        seconds = round(time.time() - started, 2)
        status = max(status, 1 if self.step([sys.executable, os.path.join(ci, "annotate_junit.py"), "--junit",
                                             junit, "--context", context, "--name", f"tdc-level{level}"],
                                            env, "annotate.log") else 0)
        status = max(status, self.step([sys.executable, os.path.join(ci, "summarize.py"), "--junit", junit,
                                        "--gtest-dir", os.path.join(tree, "results", "gtest"),
                                        "--context", context, "--seconds", str(seconds), "--out", summary],
                                       env, "summary.log"))
        bench = self.benchmarks(tree, env)
        self.state["bench_exit"] = bench
        status = max(status, bench)
        if level == 3:
            status = max(status, self.step([sys.executable, os.path.join(ci, "qualification_gate.py"),
                                            "--bench-dir", os.path.join(self.results, "bench")],
                                           env, "gate.log"))
        verdict_file = os.path.join(self.dir, "verdict.json")
        self.step([sys.executable, os.path.join(ci, "verdict.py"), "--summary", summary, "--level", str(level),
                   "--out", verdict_file], env, "verdict.log")
        self.record_verdict(verdict_file)
        return status

    def record_verdict(self, path):
        try:
            with open(path) as f:
                verdict = json.load(f)
            self.state.update(verdict=verdict.get("verdict"), message=verdict.get("message"))
        except (OSError, ValueError):
            self.state.update(verdict="unknown", message="the level wrote no verdict")

    def package(self, tree):
        out = os.path.join(self.dir, "package")
        done = subprocess.run([os.path.join(ROOT, "ci", "package"), self.results,
                               f"--product={self.plan['product']} ({self.task['node']}, {self.task['build']})",
                               f"--submitter={self.plan['submitter']}", f"--out={out}",
                               f"--gtest-dir={os.path.join(tree, 'results', 'gtest')}"],
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
            self.stage("failed", exit=2, message=f"ran on {self.state['node']}, planned for {self.task['node']}")
            return 2
        env = self.environment()
        self.stage("run tree", expect=env.get("TDC_EXPECT"), backend_libs=env.get("TDC_BACKEND_LIBS"))
        try:
            tree = run_tree.prepare(self.task["build_dir"], os.path.join(self.dir, "build"))
        except (run_tree.RunTreeError, OSError) as error:
            self.stage("failed", exit=2, verdict="unknown", message=str(error))
            return 2
        self.stage(f"level {self.plan['level']}")
        status = self.level_one(tree, env) if self.plan["level"] == 1 else self.level_run(tree, env)
        self.stage("package", exit=status)
        package, error = self.package(tree)
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
