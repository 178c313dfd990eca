"""The Prolog's device list: the devices the node shows now against what the
job (or the node) should have and what the recorded verdict checked. Cheap:
bin/tdc_context loads LibTorch and the backends and lists their devices; no
check runs (the Prolog never runs level 1: docs/fleet.md, "Detached checks").

  check(build_dir, job_env, node_env, verdict, job_gpus) -> None, or a verdict dict

What must be there: with job GPUs (a Prolog's SLURM_JOB_GPUS), the job's
cuda:0..N-1 (CUDA_VISIBLE_DEVICES is set to them, so cuda:i is the i-th);
without, every device TDC_EXPECT names and every device the recorded verdict
checked. One of them missing now is `unhealthy` with the action of a missing
device (`reboot`). A device the recorded healthy verdict did not check (the
job's GPU 5 read as the node's cuda:5) is `unknown`: that verdict says
nothing about it. A device list that cannot be made (no tdc_context, a
backend that fails to load) is `unknown` too: fail closed.
"""
from tdc import context
from tdc.fleet import actions, allocation

TIMEOUT = 60  # seconds: a device list that takes longer is unknown


def _wanted(job_env, node_env, verdict, gpus, listing):
    """{device as the job sees it: device as the node-wide verdict names it}."""
    from tdc import verify  # here: only the Prolog needs it (import time)
    if gpus:  # the job's cuda:i is the node's GPU gpus[i] (PCI order: allocation)
        return {f"cuda:{i}": f"cuda:{g}" for i, g in enumerate(gpus)}
    expected = verify.expected_devices({"expect": node_env.get("TDC_EXPECT"), "devices": listing}, [])
    checked = [d for d in (verdict.get("devices") or {}) if ":" in d]
    return {d: d for d in [*expected, *checked]}


def check(build_dir, job_env, node_env, verdict, job_gpus):
    """None when every device that must be there is, else the verdict that says which not."""
    gpus = allocation.gpu_list(job_gpus)
    listing = context.devices(build_dir, [], env=job_env, timeout=TIMEOUT)
    if "error" in listing:
        return {"verdict": "unknown", "action": actions.action_of("undetermined"),
                "message": f"device list: cannot list the devices: {listing['error']}"}
    found = [d.get("device") for d in listing.get("devices") or [] if isinstance(d, dict)]
    wanted = _wanted(job_env, node_env, verdict, gpus, listing)
    missing = [d for d in wanted if d not in found]
    if missing:
        return {"verdict": "unhealthy", "action": actions.action_of("missing_device"),
                "message": f"device list: {', '.join(missing)} missing now (found: {', '.join(found) or 'none'})"}
    if verdict.get("verdict") == "healthy":
        unchecked = [node for node in wanted.values() if node not in (verdict.get("devices") or {})]
        if unchecked:
            return {"verdict": "unknown", "action": actions.action_of("undetermined"),
                    "message": f"device list: the recorded verdict did not check {', '.join(unchecked)}"}
    return None
