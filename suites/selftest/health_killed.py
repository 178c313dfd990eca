#!/usr/bin/env python3
"""A killed health check leaves nothing running and no stale "healthy"
(issue 34, finding 8), against this build's loopback with a hang
(TDC_LOOPBACK_FAULT=hang-copy: every copy blocks forever).

  health_killed.py --build-dir BUILD --signal TERM|KILL
TERM: SIGTERM to ci/health alone (its trap stops the run); KILL: SIGKILL to
ci/health's whole process group, what Slurm's and NHC's timeouts send (the
run's ctest is in a session of its own: tdc.reaper ends it). Each time the
verdict file first holds an old "healthy"; once ctest runs the hung check
the signal is sent, and then: every process of the run gone (polled up to
5 s: the requirement), the verdict file not healthy (it says the run was
interrupted), ci/health's scratch folder removed (TERM). Processes are found
by a marker in their environment, which every descendant inherits.
Exit 0 as expected, 1 not (naming what was left)."""
import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid

from tdc import ROOT

MARK = "TDC_KILL_SELFTEST_MARK"


def marked(mark):
    """[(pid, command)] of every process whose environment holds the marker."""
    found = []
    needle = f"{MARK}={mark}".encode()
    for environ in glob.glob("/proc/[0-9]*/environ"):
        pid = int(environ.split("/")[2])
        try:
            with open(environ, "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue  # a zombie has ended; its parent has not reaped it yet
        except OSError:
            continue
        found.append((pid, command))
    return found


def wait_for(condition, deadline):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    return condition()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--signal", choices=("TERM", "KILL"), required=True)
    args = parser.parse_args()
    build = os.path.abspath(args.build_dir)
    problems = []
    mark = uuid.uuid4().hex
    with tempfile.TemporaryDirectory() as tmp:
        verdict = os.path.join(tmp, "verdict.json")
        with open(verdict, "w") as f:
            json.dump({"verdict": "healthy", "message": "yesterday's"}, f)
        env = {k: v for k, v in os.environ.items() if not k.startswith("TDC_")}
        env.update({MARK: mark, "TMPDIR": tmp, "TDC_LOOPBACK_FAULT": "hang-copy",
                    "TDC_BACKEND_LIBS": os.path.join(build, "lib", "libtdc_loopback.so")})
        health = subprocess.Popen([os.path.join(ROOT, "ci", "health"), f"--build-dir={build}", "--budget=300",
                                   f"--verdict={verdict}"], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            # A state, not a duration: the level's ctest is running (not its listing).
            running = wait_for(lambda: any("--output-junit" in c for _, c in marked(mark)) and
                               "interrupted:" in open(verdict).read(), 240)
            if not running:
                problems.append("ctest never started under ci/health (or the verdict file was not marked "
                                f"interrupted at the start): {open(verdict).read()[:300]}")
            if args.signal == "TERM":
                os.kill(health.pid, signal.SIGTERM)
            else:
                os.killpg(health.pid, signal.SIGKILL)
            status = health.wait(timeout=120)
            if not wait_for(lambda: not marked(mark), 5):
                problems.append(f"processes left 5 s after SIG{args.signal}: {marked(mark)}")
            if args.signal == "TERM" and status != 143:
                problems.append(f"ci/health exited {status} on SIGTERM, expected 143")
            with open(verdict) as f:
                text = f.read()
            document = json.loads(text)
            if document.get("verdict") != "unknown" or "interrupted" not in document.get("message", ""):
                problems.append(f"the verdict file is not 'unknown (interrupted)': {text[:300]}")
            scratch = glob.glob(os.path.join(tmp, "tdc-health.*"))
            if args.signal == "TERM" and scratch:
                problems.append(f"the scratch folder is left: {scratch}")
        finally:
            for pid, _ in marked(mark):  # the test's own processes, by PID, also when it fails
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if health.poll() is None:
                health.kill()
                health.wait()
    print(f"ci/health killed by SIG{args.signal} while a check hung: "
          + ("nothing left, no stale healthy" if not problems else "FAILED"))
    for problem in problems:
        print("FAILED:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
