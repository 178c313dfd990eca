"""The self-tests' way through a detached node check (tdc.fleet.node_check
--mode=detached): call the adapter; when it started a background level-1
run (or found one under way), wait for that run to record its verdict and
release the node's lock, then call again, so the second call applies a
verdict of this configuration. Waits on states (the verdict file replaced,
the lock free), with a generous deadline, never a duration."""
import fcntl
import glob
import json
import os
import time

# (No tdc import: the README runs fleet_cluster.py without PYTHONPATH.) The
# state folder's names, as tdc.fleet.node_check makes them: <kind>-<node>-<build key>.


def _one(state_dir, pattern, node):
    found = sorted(glob.glob(os.path.join(state_dir, pattern.format(node=glob.escape(node)))))
    return found[0] if found else os.path.join(state_dir, pattern.format(node=node).replace("*", "_"))


def _busy(lock):
    if not os.path.exists(lock):
        return False
    try:
        with open(lock, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
    except OSError:
        return False
    return False


def _paths(state_dir, node):
    return (_one(state_dir, "last-{node}-*.json", node), _one(state_dir, "health-{node}-*.lock", node),
            _one(state_dir, "background-{node}-*.log", node))

def _stamp(path):
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_ino, status.st_mtime_ns


def _tail(path, size=2000):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-size:]
    except OSError as error:
        return f"unreadable: {error}"


def _recorded(path):
    try:
        with open(path) as f:
            return not str(json.load(f).get("message", "")).startswith("interrupted:")
    except (OSError, ValueError):
        return False


def wait_recorded(state_dir, node, before, deadline=900):
    """Until the verdict of NODE is replaced (not `before`), complete, and the lock free."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        path, lock, _ = _paths(state_dir, node)
        if _stamp(path) != before and _recorded(path) and not _busy(lock):
            return True
        time.sleep(0.5)
    return False


def settled(call, state_dir, node, rounds=3):
    """call() again after each background run it started or found (at most
    `rounds` times: a run under way may be of the previous configuration);
    returns the last result."""
    for _ in range(rounds):
        path, _, log = _paths(state_dir, node)
        before, before_log = _stamp(path), _stamp(log)
        done = call()
        path, lock, log = _paths(state_dir, node)
        ran = _stamp(log) != before_log or _busy(lock) or _stamp(path) != before
        if not ran:
            return done
        if not wait_recorded(state_dir, node, before):
            raise RuntimeError(f"no verdict recorded for {node} in {state_dir}; the background run's "
                               f"log ({log}): {_tail(log)!r}")
    return call()
