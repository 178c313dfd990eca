"""The discovery fingerprint a verdict is measured against: what decides which
devices and checks a run sees. A verdict whose fingerprint differs from the
node's now was measured on another configuration and is not trusted
(tdc.recorded). Cheap to compute (no LibTorch, no device call: file reads and
stats), so that an adapter can compare it on every call.

Parts: the TDC version (VERSION and the mustpass lists), the build's LibTorch
(CMakeCache Torch_DIR), each backend library (path, size, mtime), the
settings that change which tests exist (cmake/discovery-environment.txt:
TDC_EXPECT, TDC_LOOPBACK_*, *_VISIBLE_DEVICES, ...; the per-run ones marked
"!" there are not the device's), and the NVIDIA devices' UUIDs where the
driver exposes them (/proc/driver/nvidia/gpus/*/information).
"""
import glob
import hashlib
import json
import os

from tdc import cmake_cache, context, discovery_env
from tdc.errors import InputError

NVIDIA_PROC = "/proc/driver/nvidia/gpus"


def _device_settings(environment):
    per_run = {p for p, _ in _per_run_entries()}
    return {k: v for k, v in discovery_env.of(environment).items() if k not in per_run}


def _per_run_entries():
    try:
        with open(discovery_env.LIST, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise InputError(f"cannot read {discovery_env.LIST}: {error}")
    return [(line.split("#")[0].strip()[1:], "") for line in lines if line.strip().startswith("!")]


def _library(path):
    try:
        info = os.stat(path)
    except OSError:
        return {"path": path, "present": False}
    return {"path": path, "size": info.st_size, "mtime": int(info.st_mtime)}


def nvidia_uuids(root=NVIDIA_PROC):
    """The GPU UUIDs the NVIDIA driver lists, by bus id; {} without the driver."""
    found = {}
    for info in sorted(glob.glob(os.path.join(root, "*", "information"))):
        try:
            with open(info, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    key, _, value = line.partition(":")
                    if key.strip() == "GPU UUID":
                        found[os.path.basename(os.path.dirname(info))] = value.strip()
        except OSError:
            continue
    return found


def of(environment, build_dir):
    """{"digest": hex, "parts": {...}} for this environment and build."""
    try:  # no build: nothing to name (the run says so itself)
        cache = cmake_cache.read(build_dir) if build_dir else {}
    except InputError:
        cache = {}
    libraries = [p for p in (environment.get("TDC_BACKEND_LIBS") or "").split(":") if p]
    parts = {"tdc_version": context.suite_version(),
             "torch_dir": cache.get("Torch_DIR"),
             "backend_libs": [_library(p) for p in libraries],
             "settings": _device_settings(environment),
             "devices": nvidia_uuids()}
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()
    return {"digest": digest, "parts": parts}


def differences(recorded, now):
    """The names of the parts that differ (recorded and now: of()'s dicts)."""
    old, new = (recorded or {}).get("parts") or {}, now.get("parts") or {}
    names = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    settings = sorted(k for k in set(old.get("settings") or {}) | set(new.get("settings") or {})
                      if (old.get("settings") or {}).get(k) != (new.get("settings") or {}).get(k))
    return [n for n in names if n != "settings"] + settings
