"""The background level-1 run (tdc.fleet.node_check --mode=background) and
the node's lock: a probe that holds the lock for an instant (an adapter's
next call, a self-test's wait, run_under_way) must not stop the run, or no
verdict is ever recorded; a run under way, which holds the lock for the
whole run, still does. run_health is replaced by a recorder: what is under
test is who gets the lock, not the level-1 run."""
import argparse
import fcntl
import threading

from tdc.fleet import node_check


def args_for(tmp_path):
    return argparse.Namespace(build_dir=str(tmp_path / "build"), state_dir=str(tmp_path), node="vm")


def hold_lock(path, release, held):
    """Holds the lock at PATH from when HELD is set until RELEASE is: a probe
    when RELEASE is a timer, a run under way when the test sets it."""
    def hold():
        with open(path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            held.set()
            release.wait()
    thread = threading.Thread(target=hold)
    thread.start()
    held.wait()
    return thread


def test_a_probe_holding_the_lock_does_not_stop_the_run(tmp_path, monkeypatch):
    ran = []
    monkeypatch.setattr(node_check, "run_health", lambda *a: ran.append(a) or {"verdict": "healthy"})
    args = args_for(tmp_path)
    held, release = threading.Event(), threading.Event()
    probe = hold_lock(node_check.lock_path(args.build_dir, args.state_dir, args.node), release, held)
    threading.Timer(0.1, release.set).start()  # an instant: 100x inside the patience (10 s)
    verdict = node_check.background(args, {}, 45)
    probe.join()
    assert verdict == {"verdict": "healthy"} and len(ran) == 1


def test_a_run_under_way_still_wins(tmp_path, monkeypatch):
    """The negative: a lock held past the patience is a run under way."""
    ran = []
    monkeypatch.setattr(node_check, "run_health", lambda *a: ran.append(a) or {"verdict": "healthy"})
    monkeypatch.setattr(node_check, "LOCK_PATIENCE_S", 0.2)
    args = args_for(tmp_path)
    held, release = threading.Event(), threading.Event()
    run = hold_lock(node_check.lock_path(args.build_dir, args.state_dir, args.node), release, held)
    verdict = node_check.background(args, {}, 45)  # the lock is held until after it returns
    release.set()
    run.join()
    assert verdict == {"verdict": "unknown", "message": "a level-1 run is under way"} and ran == []
