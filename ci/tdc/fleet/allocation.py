"""What Slurm allocated to a job, as TDC needs it: the expectation a task or a
prolog derives from its GPUs, and the record context.json keeps of them.

Slurm names a job's GPUs by their node-wide (global) indices in
SLURM_JOB_GPUS (SLURM_STEP_GPUS inside a step), in ascending order, and sets
CUDA_VISIBLE_DEVICES in the same order. So the job's own cuda:i is the i-th
GPU listed there. Slurm's indices follow gres.conf, /dev/nvidia<minor>, which
is PCI bus order; CUDA's default order is fastest first, so every task sets
CUDA_DEVICE_ORDER=PCI_BUS_ID and the two orders agree.
"""
import os

from tdc import cmake_cache
from tdc.errors import InputError

# The first one set names the allocation (the brief's and Slurm's precedence).
GPU_VARIABLES = ("SLURM_JOB_GPUS", "SLURM_STEP_GPUS", "CUDA_VISIBLE_DEVICES")
SLURM_VARIABLES = ("SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID",
                   "SLURMD_NODENAME", "SLURM_JOB_NODELIST", "SLURM_JOB_PARTITION",
                   "SLURM_JOB_GPUS", "SLURM_STEP_GPUS", "CUDA_VISIBLE_DEVICES",
                   "CUDA_DEVICE_ORDER", "SLURM_GPUS_ON_NODE")


def gpu_list(text):
    return [item.strip() for item in (text or "").split(",") if item.strip()]


def allocated_gpus(env=None):
    """(variable, [ids]) of the first GPU variable set, or (None, [])."""
    env = os.environ if env is None else env
    for name in GPU_VARIABLES:
        ids = gpu_list(env.get(name))
        if ids:
            return name, ids
    return None, []


def is_loopback(backend_lib):
    return bool(backend_lib) and os.path.basename(backend_lib) == "libtdc_loopback.so"


def loopback_type(build_dir):
    """The device type the build's loopback shows as: `loopback`, or
    `privateuseone` where LibTorch (1.13) cannot name PrivateUse1
    (TDC_PRIVATEUSE1_NAME in the build's CMakeCache.txt; an install keeps it
    in share/tdc/build)."""
    for folder in ((build_dir, os.path.join(build_dir, "share", "tdc", "build")) if build_dir else ()):
        try:
            return cmake_cache.read(folder).get("TDC_PRIVATEUSE1_NAME") or "loopback"
        except InputError:
            continue
    return "loopback"


def expectation(env=None, backend_lib=None, build_dir=None):
    """TDC_EXPECT from the allocation: cuda:<allocated GPUs> when Slurm gave
    the job some; on a GPU-less node where the loopback stands in,
    <its type>:<TDC_LOOPBACK_DEVICES> (loopback_type of BUILD_DIR); else None
    (keep the user's)."""
    env = os.environ if env is None else env
    _, ids = allocated_gpus(env)
    if ids:
        return f"cuda:{len(ids)}"
    if is_loopback(backend_lib):
        return f"{loopback_type(build_dir)}:{env.get('TDC_LOOPBACK_DEVICES') or 2}"
    return None


def slurm_context(env=None, devices=None):
    """context.json's "slurm" field: the job, the node, the GPU variables and,
    per job-local index, the global index and the identity the device exposes
    (`devices` is bin/tdc_context's JSON). None outside Slurm."""
    env = os.environ if env is None else env
    if not env.get("SLURM_JOB_ID"):
        return None
    by_name = {d.get("device"): d for d in (devices or {}).get("devices", []) if isinstance(d, dict)}
    job_gpus = gpu_list(env.get("SLURM_STEP_GPUS") or env.get("SLURM_JOB_GPUS"))
    visible = gpu_list(env.get("CUDA_VISIBLE_DEVICES"))
    gpus = []
    for index in range(max(len(job_gpus), len(visible))):
        device = by_name.get(f"cuda:{index}")
        gpus.append({"job_index": index, "device": f"cuda:{index}",
                     "global_index": job_gpus[index] if index < len(job_gpus) else None,
                     "visible_as": visible[index] if index < len(visible) else None,
                     "initialised": device is not None,
                     "uuid": (device or {}).get("uuid") or None,
                     "pci_bus_id": (device or {}).get("pci_bus_id") or None})
    return {"job_id": env.get("SLURM_JOB_ID"), "array_job_id": env.get("SLURM_ARRAY_JOB_ID"),
            "array_task_id": env.get("SLURM_ARRAY_TASK_ID"), "node": env.get("SLURMD_NODENAME"),
            "variables": {k: env[k] for k in SLURM_VARIABLES if k in env}, "gpus": gpus}

