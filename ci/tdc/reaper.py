"""Runs a command so that it cannot outlive the run that started it.

  python3 -m tdc.reaper COMMAND...   (stdin: a pipe the caller holds open)

tdc run starts ctest in a session of its own (its budget kill ends ctest and
the suites as one process group, never tdc run itself). A session of its own
is also out of reach of the caller's group: Slurm's and NHC's timeouts kill
the health check's process group with SIGKILL, which nobody can trap, and
ctest would run on for half a minute and write a verdict nobody asked for.
So the session's leader is this small process: it starts COMMAND in its own
group and watches its stdin; when the caller dies (by any signal, SIGKILL
included) the pipe reaches end of file and it kills the whole group at once.
It exits with COMMAND's status (128+N for a signal).
"""
import os
import signal
import subprocess
import sys
import threading


def stop_group(process):
    """Kills the process group PROCESS leads and waits for its leader
    (communicate: its pipes, if any, are drained, so it cannot block)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.communicate()


def main(argv=None):
    command = sys.argv[1:] if argv is None else argv
    if not command:
        print("reaper: no command", file=sys.stderr)
        return 2
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL)

    def watch():
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        # The caller is gone (or closed the pipe): nothing of this group may run on.
        os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()
    status = child.wait()
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main())
