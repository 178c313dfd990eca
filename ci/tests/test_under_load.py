"""tdc.under_load: runs beside busy loops, counts failures, stops the loops by PID."""
import os

from tdc import under_load, verbs


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_counts_failed_runs_and_stops_its_loops(tmp_path, capsys, monkeypatch):
    started = []
    real = under_load.start_loops
    monkeypatch.setattr(under_load, "start_loops", lambda n: started.extend(real(n)) or started)
    flag = tmp_path / "ran-once"
    # Fails on its first run, passes on the second: one of two failed.
    command = ["sh", "-c", f"test -e {flag} || {{ touch {flag}; exit 3; }}"]
    assert under_load.main(["--runs", "2", "--loops", "1", "--log-dir", str(tmp_path / "logs"), "--", *command]) == 1
    out = capsys.readouterr().out
    assert "run 1: exit 3" in out and "run 2: exit 0" in out and "1 passed, 1 failed" in out
    assert len(started) == 1 and not alive(started[0].pid)
    assert sorted(os.listdir(tmp_path / "logs")) == ["run-1.log", "run-2.log"]


def test_a_missing_command_is_one_line_and_stops_the_loops(tmp_path, capsys, monkeypatch):
    started = []
    real = under_load.start_loops
    monkeypatch.setattr(under_load, "start_loops", lambda n: started.extend(real(n)) or started)
    assert under_load.main(["--loops", "1", "--log-dir", str(tmp_path), "--", "/nonexistent/tool"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not alive(started[0].pid)


def test_term_stops_the_loops(tmp_path):
    import subprocess
    import time
    command, env = verbs.child("under-load")
    tool = subprocess.Popen([*command, "--loops", "1", "--log-dir", str(tmp_path),
                             "--", "sleep", "30"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    loops = []
    while time.monotonic() < deadline and not loops:
        found = subprocess.run(["pgrep", "-P", str(tool.pid), "-x", "yes"], capture_output=True, text=True)
        loops = [int(pid) for pid in found.stdout.split()]
        time.sleep(0.1)
    assert loops, "no busy loop started"
    tool.terminate()
    assert tool.wait(timeout=20) == 2
    assert not any(alive(pid) for pid in loops)
