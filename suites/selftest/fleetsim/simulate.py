"""A synthetic fleet from real packages, and ci/merge measured on it.

  PYTHONPATH=ci:suites/selftest python3 -m fleetsim.simulate make --base PACKAGE... --hosts N --out DIR [--variant V] [--no-sign]
  PYTHONPATH=ci:suites/selftest python3 -m fleetsim.simulate measure --base PACKAGE... --hosts 10,100,1000 --out DIR [--jobs J] [--reuse]

`make` rewrites the base packages (real packages of real runs; an 8-device
loopback run is the intended base: TDC_LOOPBACK_DEVICES=8) into N hosts
gpu-0000..: every host gets its own name and signing key, a device model and
driver (H100 on two drivers, A100), a build (2.13.0 or 2.14.1) and noise on
its benchmark medians (3 %, log-normal, per device, after the base's devices
are made alike: their differences are the base host's noise); sprinkled in are node faults (12 hosts failing one
check on one device, a few more single ones, one with dependents), a
build-wide failure (every 2.14.1 host fails one check), a driver-wide
failure (the hosts on one driver fail another), slow devices, Slurm tasks that left no
package (TIMEOUT, NODE_FAIL) and forged packages (another host's name,
re-signed by the wrong node's key). DIR gets packages/, keys/,
allowed_signers, tasks.json and truth.json (what was sprinkled where).

`measure` makes fleets of each size and runs ci/merge on each (with
--tasks and --allowed-signers), reporting wall time and peak memory: the
resident set summed over ci/merge and its worker processes, sampled every
50 ms from /proc. It then checks the merge against truth.json (rows, the
node fault, the build- and driver-wide failures, exactly the slowed devices as outliers): a
figure for a merge that found the wrong thing is no figure (exit 1).
Figures go to stdout and DIR/measurements.json."""
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time

from tdc import ROOT, context, results
from tdc.cli import Parser, run_main, whole
from tdc.errors import InputError
from fleetsim import rewrite

H100, A100 = "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"
NODE_FAULT = ("EventBlock.ConsumerStreamWaitsForTheProducersEvent", 3,
              "consumer stream read 1048576 of 1048576 elements before the producer's event")
DEPENDENT_ROOT = ("Placement.ModuleToMovesParametersAndBuffers", 5, "Module::to left 2 parameters on cpu")
DEPENDENTS = ("Forward.SeedModelMatchesFloat64Reference", "Backward.OneStepMatchesFloat64CpuGradients")
REGRESSION = ("Serialization.TensorsLoadExactOntoTheSameDeviceAndTheCpu", "2.14.1",
              "torch::load put the tensor on cpu, expected the device")
DRIVER_REGRESSION = ("StreamSynchronize.QueryIsTrueAndWorkVisibleAfterSynchronize", "580.12",
                     "query() returned true before the work was visible")


def device_of(base, index):
    """The base package's device type ('loopback'), for device index `index`."""
    kinds = [d.split(":")[0] for d in base.bench_devices() if ":" in d and not d.startswith("cpu")]
    return f"{kinds[0] if kinds else 'cuda'}:{index}"


def plan(hosts, variant):
    """Who gets what: deterministic for a variant (a number: one fleet each)."""
    rng = random.Random(variant)
    names = [f"gpu-{i:04d}" for i in range(hosts)]
    truth = {"node_fault": [], "single_faults": [], "dependents": [], "regression_build": REGRESSION[1],
             "driver_regression": [], "slow": [], "timeout": [], "node_fail": [], "forged": []}
    shuffled = names[:]
    rng.shuffle(shuffled)
    take = iter(shuffled)

    def pick(count):
        return [next(take) for _ in range(min(count, len(names)))]
    truth["node_fault"] = pick(12 if hosts >= 100 else 1)
    truth["single_faults"] = pick(max(1, hosts // 250))
    truth["dependents"] = pick(1)
    truth["slow"] = pick(max(1, hosts // 200))
    truth["timeout"] = pick(max(1, hosts // 100))
    truth["node_fail"] = pick(max(1, hosts // 300))
    truth["forged"] = pick(max(1, hosts // 500))
    hosts_info = {}
    for index, name in enumerate(names):
        build = "2.14.1" if rng.random() < 0.3 else "2.13.0"
        model, driver = (H100, "575.51") if rng.random() < 0.6 else (A100, "550.54")
        if model == H100 and rng.random() < 0.2:
            driver = DRIVER_REGRESSION[1]
        hosts_info[name] = {"build": build, "model": model, "driver": driver, "index": index}
        if driver == DRIVER_REGRESSION[1]:
            truth["driver_regression"].append(name)
    return names, hosts_info, truth, rng


def twins_on(count):
    """keep(test) for drop_tests: a GPU host's loopback reference twins run on
    the loopback's two devices, whatever TDC_LOOPBACK_DEVICES made the base."""
    def keep(test):
        device = test["device"]
        return not (test["twin"] and ":" in device and device.split(":")[1].isdigit()
                    and int(device.split(":")[1]) >= count)
    return keep


def make(bases, hosts, out, variant=1, sign=True, twin_devices=2, jobs=1, reuse=False):
    out = os.path.abspath(out)  # tasks.json names packages by absolute path
    base_packages = [rewrite.Package.read(path) for path in bases]
    for base in base_packages:
        base.set_suite_version(context.suite_version())
        base.drop_tests(twins_on(twin_devices))
        base.equalise_devices()
    names, info, truth, _ = plan(hosts, variant)
    for folder in ("packages", "keys"):
        os.makedirs(os.path.join(out, folder), exist_ok=True)
    keys, allowed = {}, []
    if sign:
        for name in names:
            key = os.path.join(out, "keys", name)
            if not os.path.exists(key):
                subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key], check=True)
            keys[name] = key
            allowed.append(f"{name} {open(key + '.pub').read().strip()}")
        with open(os.path.join(out, "allowed_signers"), "w") as f:
            f.write("\n".join(allowed) + "\n")
    # Each host is made from its own random stream (variant and name), so the
    # hosts can be written by `jobs` processes and the fleet is the same.
    global _MAKING
    _MAKING = (base_packages, names, info, truth, keys, out, variant, reuse)
    try:
        if jobs > 1 and len(names) > 1:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                made = pool.map(_make_host, names, chunksize=4)
        else:
            made = [_make_host(name) for name in names]
    finally:
        _MAKING = None
    tasks = [task for task, _, _ in made]
    forged_paths = [forged for _, forged, _ in made if forged]
    slow_devices = {name: slow for name, (_, _, slow) in zip(names, made) if slow}
    truth["slow_devices"] = slow_devices
    truth["forged_packages"] = forged_paths
    with open(os.path.join(out, "tasks.json"), "w") as f:
        json.dump(tasks, f, indent=1)
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    return truth


_MAKING = None  # what make() hands its worker processes (forked: shared, not pickled)


def _make_host(name):
    """One host's task, and its package: (task, forged package path or None,
    slowed device or None)."""
    base_packages, names, info, truth, keys, out, variant, reuse = _MAKING
    rng = random.Random(f"{variant}:{name}")
    host = info[name]
    task = {"host": name, "build": host["build"], "job_id": "90210", "array_task_id": host["index"],
            "state": "COMPLETED", "exit_code": 0, "package": None, "reason": ""}
    if name in truth["timeout"] or name in truth["node_fail"]:
        task.update(state="TIMEOUT" if name in truth["timeout"] else "NODE_FAIL", exit_code=None,
                    reason="Slurm: TIMEOUT after 01:00:00" if name in truth["timeout"] else "Slurm: NODE_FAIL")
        return task, None, None
    base = base_packages[host["index"] % len(base_packages)]
    package = base.copy()
    package.set_host(name)
    package.set_libtorch(host["build"])
    package.set_devices(host["model"], host["driver"], types={device_of(base, 0).split(":")[0]})
    for device in package.bench_devices():
        package.scale_benchmarks(rng.lognormvariate(0, 0.03), device)
    failing, slow = False, None
    if name in truth["node_fault"]:
        failing |= inject(package, NODE_FAULT[0], device_of(base, NODE_FAULT[1]), NODE_FAULT[2])
    if name in truth["single_faults"]:
        kind = device_of(base, 0).split(":")[0]
        check, device = rng.choice(sorted({(t["check"], t["device"]) for t in package.json("summary.json")["tests"]
                                           if t["device"].startswith(kind + ":") and not t["twin"]
                                           and t["status"] == results.PASSED}))
        failing |= inject(package, check, device, f"{check}: wrong values")
    if name in truth["dependents"]:
        root_device = device_of(base, DEPENDENT_ROOT[1])
        inject(package, DEPENDENT_ROOT[0], root_device, DEPENDENT_ROOT[2])
        for check in DEPENDENTS:
            inject(package, check, root_device, f"prerequisite failed: Module::to (checked by {DEPENDENT_ROOT[0]})",
                   prerequisite=DEPENDENT_ROOT[0])
        failing = True
    if host["build"] == REGRESSION[1]:
        for index in range(8):
            failing |= inject(package, REGRESSION[0], device_of(base, index), REGRESSION[2])
    if host["driver"] == DRIVER_REGRESSION[1]:
        for index in range(8):
            failing |= inject(package, DRIVER_REGRESSION[0], device_of(base, index), DRIVER_REGRESSION[2])
    if name in truth["slow"]:
        slow = device_of(base, rng.randrange(8))
        package.scale_benchmarks(0.6, slow)
    if name in truth["forged"]:
        # A package that claims this host, made by another: its key signs it.
        other = names[(host["index"] + 1) % len(names)]
        path = _write(package, out, reuse, sign_key=keys.get(other), name=f"forged-{name}")
        task.update(state="FAILED", exit_code=1, reason="the task's package was lost")
        return task, path, slow
    path = _write(package, out, reuse, sign_key=keys.get(name))
    task.update(package=path, state="FAILED" if failing else "COMPLETED", exit_code=1 if failing else 0)
    return task, None, slow


def _write(package, out, reuse, sign_key, name=None):
    """package.write, or with reuse the package an earlier make of the same
    variant and base left there (a host's package depends on nothing else)."""
    path = os.path.join(out, "packages", (name or package.top) + ".tar.gz")
    if reuse and os.path.isfile(path):
        return path
    return package.write(os.path.join(out, "packages"), sign_key=sign_key, name=name)


def inject(package, check, device, message, prerequisite=None):
    """package.fail, refusing a fault the base cannot carry (the truth would lie)."""
    if not package.fail(check, device, message, prerequisite):
        raise InputError(f"the base package has no passing {check} on {device} to fail")
    return True


def tree_rss(pid):
    """Resident bytes of pid and every process under it (/proc)."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as f:
                    stack += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            continue
    return total


MAX_AGE_DAYS = 36500


def measure_merge(out, truth, jobs, html=True):
    command = [os.path.join(ROOT, "ci", "merge"), *truth["forged_packages"],
               "--tasks", os.path.join(out, "tasks.json"), "--out", os.path.join(out, "merged"),
               "--night", "2026-12-01", "--jobs", str(jobs),
               # Every synthetic host keeps its base package's run time (rewrite
               # changes names, not when the base ran): the window is not measured.
               "--max-age", str(MAX_AGE_DAYS)]
    if os.path.exists(os.path.join(out, "allowed_signers")):
        command += ["--allowed-signers", os.path.join(out, "allowed_signers")]
    if not html:
        command.append("--no-html")
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    while True:
        # wait4 reaps it with its resource use: CPU seconds of ci/merge and of
        # the workers it waited for (a load-independent figure beside wall time).
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, tree_rss(process.pid))
        time.sleep(0.05)
    wall = time.monotonic() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    stdout, stderr = process.stdout.read(), process.stderr.read()
    return {"exit": process.returncode, "seconds": round(wall, 2),
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2), "peak_rss_mib": round(peak / (1 << 20), 1),
            "load_average": os.getloadavg()[0], "stdout": stdout[-2000:], "stderr": stderr[-2000:]}


def check_truth(folder, hosts, truth):
    """What the merge must have found, from what make() sprinkled: [problems]."""
    from tdc.fleet import matrix
    document, _ = matrix.read(os.path.join(folder, "merged", "matrix.json"))
    totals, problems = document["totals"], []
    gone = set(truth["timeout"]) | set(truth["node_fail"]) | set(truth["forged"])
    expected = {"rows": hosts + len(truth["forged"]), "verified": hosts - len(gone),
                "unverified": len(truth["forged"]), "no_package": len(gone)}
    for key, value in expected.items():
        if totals[key] != value:
            problems.append(f"totals.{key} is {totals[key]}, expected {value}")
    found = {}
    for finding in document["findings"]:  # one finding per build: the union over builds
        found.setdefault((finding["check"], finding["kind"]), set()).update(finding["failing_hosts"])
    node_fault = set(truth["node_fault"]) - gone
    if node_fault and not node_fault <= found.get((NODE_FAULT[0], "node fault"), set()):
        problems.append(f"{NODE_FAULT[0]} is not a node fault of {sorted(node_fault)[:3]}...")
    if not any(check == REGRESSION[0] and kind == "build-wide failure" for check, kind in found):
        problems.append(f"{REGRESSION[0]} is not judged a build-wide failure")
    driver_hosts = set(truth["driver_regression"]) - gone
    if len(driver_hosts) >= 4 and not any(check == DRIVER_REGRESSION[0] and kind == "driver-wide failure"
                                for check, kind in found):
        problems.append(f"{DRIVER_REGRESSION[0]} is not judged a driver-wide failure")
    flagged = {(o["host"], o["device"]) for o in document["outliers"]["devices"]}
    slow = {(host, device) for host, device in truth["slow_devices"].items() if host not in gone}
    if flagged != slow:
        problems.append(f"outliers {sorted(flagged)[:4]} are not the slowed devices {sorted(slow)[:4]}")
    return problems


def main(argv=None):
    def body(args):
        parser = Parser("simulate", __doc__)
        parser.add_argument("what", choices=("make", "measure"), help="make a fleet, or make and measure")
        parser.add_argument("--base", nargs="+", required=True, help="real packages to rewrite")
        parser.add_argument("--hosts", required=True, help="a number (make) or numbers, comma-separated (measure)")
        parser.add_argument("--out", required=True, help="folder for the fleet(s) and measurements.json")
        parser.add_argument("--variant", type=whole(0, 1 << 30), default=1, help="which fleet: what goes where (default 1)")
        parser.add_argument("--jobs", type=whole(1, 64), default=min(4, os.cpu_count() or 1),
                            help="processes that write the hosts' packages, and ci/merge --jobs "
                                 "(default: the cores, at most 4)")
        parser.add_argument("--reuse", action="store_true",
                            help="measure: keep a fleet an earlier run made in OUT/fleet-N; make: keep "
                                 "the packages an earlier make of the same variant and base wrote")
        parser.add_argument("--no-sign", action="store_true", help="no keys, no signatures, no --allowed-signers")
        parser.add_argument("--twin-devices", type=whole(1, 64), default=2,
                            help="loopback devices the reference twins keep (default 2, as on a GPU host)")
        options = parser.parse_args(args)
        sizes = [int(n) for n in options.hosts.split(",") if n.strip().isdigit()]
        if not sizes or len(sizes) != len(options.hosts.split(",")):
            raise InputError(f"--hosts {options.hosts!r}: expected whole numbers, comma-separated")
        if options.what == "make":
            make(options.base, sizes[0], options.out, options.variant, not options.no_sign, options.twin_devices,
                 options.jobs, options.reuse)
            print(f"simulate: {sizes[0]} hosts in {options.out}")
            return 0
        figures = []
        for hosts in sizes:
            folder = os.path.join(options.out, f"fleet-{hosts}")
            started = time.monotonic()
            if options.reuse and os.path.isfile(os.path.join(folder, "truth.json")):
                with open(os.path.join(folder, "truth.json")) as f:
                    truth = json.load(f)
            else:
                truth = make(options.base, hosts, folder, options.variant, not options.no_sign, options.twin_devices,
                             options.jobs)
            made = time.monotonic() - started
            result = measure_merge(folder, truth, options.jobs)
            result.update(hosts=hosts, make_seconds=round(made, 1),
                          wrong=check_truth(folder, hosts, truth) if result["exit"] in (0, 1) else ["no matrix"])
            figures.append(result)
            print(f"simulate: {hosts:5d} hosts: ci/merge exit {result['exit']}, {result['seconds']:7.2f} s wall, "
                  f"{result['cpu_seconds']:7.2f} s CPU, peak {result['peak_rss_mib']:7.1f} MiB, load "
                  f"{result['load_average']:.1f} (fleet made in {made:.0f} s)", flush=True)
            for problem in result["wrong"]:
                print(f"simulate:   WRONG: {problem}", flush=True)
            if result["exit"] not in (0, 1):
                print(result["stderr"], file=sys.stderr)
        with open(os.path.join(options.out, "measurements.json"), "w") as f:
            json.dump(figures, f, indent=1)
        return 0 if all(f["exit"] in (0, 1) and not f["wrong"] for f in figures) else 1
    return run_main("simulate", body, argv)


if __name__ == "__main__":
    sys.exit(main())
