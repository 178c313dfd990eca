"""under-load: runs a command several times back to back while busy loops
hold the host's cores, and says how many runs failed: the proof that no
verdict depends on how fast the host is (docs/measurements.md, "Under load").
The loops are `yes >/dev/null` processes, started here and stopped by PID
when the runs end, also when a run fails or this tool is interrupted.

  tdc under-load [--runs 5] [--loops 2] [--log-dir DIR] -- COMMAND [ARG...]

Each run's output goes to DIR/run-<n>.log (default: a folder under /tmp).
Exit status: 0 every run passed, 1 a run failed, 2 bad input."""
import os
import signal
import subprocess
import sys
import tempfile
import time

from tdc import cli
from tdc.errors import InputError


def start_loops(count):
    """`count` busy loops, each its own process (its own PID to stop)."""
    return [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True) for _ in range(count)]


def stop(loops):
    for loop in loops:
        if loop.poll() is None:
            os.kill(loop.pid, signal.SIGKILL)
        loop.wait()


def body(argv):
    parser = cli.Parser("under-load", __doc__)
    parser.add_argument("--runs", type=cli.whole(1, 100), default=5, help="runs, back to back (default 5)")
    parser.add_argument("--loops", type=cli.whole(0, 256), default=2, help="busy loops beside them (default 2)")
    parser.add_argument("--log-dir", help="where each run's output goes (default: a new folder under /tmp)")
    parser.add_argument("command", nargs="+", help="the command to run, after --")
    args = parser.parse_args(argv)
    log_dir = args.log_dir or tempfile.mkdtemp(prefix="tdc-under-load-")
    os.makedirs(log_dir, exist_ok=True)
    failed = 0
    # A TERM (a scheduler's kill, a timeout) ends the runs the way Ctrl-C
    # does: through the finally below, which stops the loops.
    signal.signal(signal.SIGTERM, lambda signum, frame: (_ for _ in ()).throw(KeyboardInterrupt()))
    loops = start_loops(args.loops)
    try:
        for number in range(1, args.runs + 1):
            log = os.path.join(log_dir, f"run-{number}.log")
            started = time.monotonic()
            with open(log, "w", encoding="utf-8") as out:
                try:
                    code = subprocess.run(args.command, stdout=out, stderr=subprocess.STDOUT).returncode
                except OSError as error:
                    raise InputError(f"{args.command[0]}: {error.strerror}") from None
            seconds = time.monotonic() - started
            load = " ".join(f"{value:.2f}" for value in os.getloadavg())
            failed += code != 0
            print(f"run {number}: exit {code}, {seconds:.0f} s, load average {load} ({log})", flush=True)
    finally:
        stop(loops)
    print(f"under {args.loops} busy loops: {args.runs - failed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv=None):
    return cli.run_main("under-load", body, argv)


if __name__ == "__main__":
    sys.exit(main())
