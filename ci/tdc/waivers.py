"""check-waivers: fails when a known-failure waiver applies to no test of any
suite binary: a typo'd glob ("Froward.*"), a device type no binary knows
("cdua"). Each binary answers for its own tests (--tdc-waiver-matches); a
waiver is alive when one binary matched it, or when it is for another
LibTorch version.

  tdc check-waivers --run=BINARY[,KEY=VALUE...] ... [--default-waivers=FILE]
                      [--library=FILE ...] [--memo=FILE]
Exit status: 0 every waiver applies somewhere, 1 one does not, 2 bad input.

Asking costs a LibTorch start-up per binary (about 8 s for 34 binaries on a
2-core host), in every `ctest -L conformance`. With --memo, a passing verdict
is kept with a key made of what the answers depend on, the same things a
suite's cached test list depends on (cmake/tdc_discovery_fingerprint.cmake):
the host, this process's discovery environment (the one list,
cmake/discovery-environment.txt), the libraries loaded at run time (LibTorch's,
--library, and the backends, TDC_BACKEND_LIBS and the runs' own), the binaries
and the waiver file's text. The key is computed from this process's own
environment, so ctest runs at once with other settings never share a
verdict. While the key is unchanged the verdict is reused and says so;
anything else asks again, and a failing verdict is never kept."""
import hashlib
import os
import socket
import subprocess

from tdc import cli, discovery_env, safeio
from tdc.errors import InputError

ALIVE = ("matched", "other-version")
WHY = {
    "unknown-device-type": "its device type is known to no suite binary (typo, or a backend that is not loaded)",
    "no-test": "its test glob matches no test of any suite",
}
MEMO_LIMIT = 1 << 16


def ask(binary, assignments):
    env = dict(os.environ)
    for assignment in assignments:
        key, _, value = assignment.partition("=")
        env[key] = value
    try:
        run = subprocess.run([binary, "--tdc-waiver-matches"], env=env, capture_output=True,
                             text=True, errors="replace", timeout=120)
    except OSError as error:
        raise InputError(f"cannot run {binary}: {error.strerror}")
    except subprocess.TimeoutExpired:
        return None, f"{binary} did not answer within 120 s"
    if run.returncode != 0:
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        return None, lines[-1] if lines else f"{binary} exited {run.returncode}"
    states = {}
    for line in run.stdout.splitlines():
        origin, _, state = line.rpartition("\t")
        if origin:
            states[origin] = state
    return states, None


def file_identity(path, by_content=False):
    try:
        status = os.stat(path)
    except OSError:
        return f"{path}=missing"
    identity = f"{path}={status.st_size},{status.st_mtime_ns}"
    if by_content:
        try:
            with open(path, "rb") as handle:
                identity += "," + hashlib.md5(handle.read()).hexdigest()
        except OSError:
            identity += ",unreadable"  # the binaries say why, in one line
    return identity


def memo_key(args):
    parts = [socket.gethostname()]
    parts += [f"{k}={v}" for k, v in discovery_env.of(os.environ).items()]
    backends = [p for p in os.environ.get("TDC_BACKEND_LIBS", "").split(":") if p]
    for run in args.run:
        backends += [a.split("=", 1)[1] for a in run.split(",")[1:] if a.startswith("TDC_BACKEND_LIBS=")]
    # Backend libraries are small and rebuilt in place: known by content too.
    parts += [file_identity(path, by_content=True) for path in sorted(set(backends))]
    parts += [file_identity(path) for path in args.library]
    parts += [run + ";" + file_identity(run.split(",")[0]) for run in args.run]
    # The waiver files the binaries read: TDC_KNOWN_FAILURES when set, else
    # each run's own (TDC_SUITE_KNOWN_FAILURES, a suite's; --default-waivers).
    if "TDC_KNOWN_FAILURES" in os.environ:
        files = [os.environ["TDC_KNOWN_FAILURES"]]
    else:
        files = [args.default_waivers] + [a.split("=", 1)[1] for run in args.run for a in run.split(",")[1:]
                                          if a.startswith("TDC_SUITE_KNOWN_FAILURES=")]
    for waivers in sorted(set(files)):
        parts.append(file_identity(waivers, by_content=True) if waivers else "waivers=none")
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def kept_verdict(memo, key):
    """The kept verdict line, if the memo holds one for this key."""
    try:
        text = safeio.read_text(memo, "waiver memo", MEMO_LIMIT)
    except InputError:
        return None  # no memo, or a damaged one: ask again
    kept = text.split("\n", 1)
    return kept[1].rstrip("\n") if len(kept) == 2 and kept[0] == key else None


def parser():
    p = cli.Parser("check_waivers", __doc__)
    p.add_argument("--run", action="append", default=[], required=True,
                   help="BINARY[,KEY=VALUE...]: a suite binary and its settings")
    p.add_argument("--default-waivers", default="", help="the waiver file when TDC_KNOWN_FAILURES is unset")
    p.add_argument("--library", action="append", default=[],
                   help="a library the binaries load (LibTorch's) that the kept verdict depends on (repeatable)")
    p.add_argument("--memo", help="keep a passing verdict here while its inputs are unchanged")
    return p


def run(argv):
    args = parser().parse_args(argv)
    key = memo_key(args) if args.memo else None
    if key:
        kept = kept_verdict(args.memo, key)
        if kept is not None:
            print(kept + " (kept: binaries, libraries, waiver file and settings unchanged since it was checked)")
            return 0
    states_by_origin = {}
    for spec in args.run:
        binary, *assignments = spec.split(",")
        states, error = ask(binary, assignments)
        if error:
            print(f"check_waivers: {error}")
            return 1
        for origin, state in states.items():
            states_by_origin.setdefault(origin, set()).add(state)
    dead = {origin: states for origin, states in states_by_origin.items() if not states & set(ALIVE)}
    for origin, states in dead.items():
        # A binary that knows the device type has the more telling answer.
        state = "no-test" if "no-test" in states else sorted(states)[0]
        print(f"waiver matched no test: {origin}: {WHY.get(state, state)}")
    verdict = (f"{len(states_by_origin)} waiver(s) checked against {len(args.run)} suite binaries, "
               f"{len(dead)} matched no test")
    print(verdict)
    if key and not dead:
        safeio.ensure_writable_folder(os.path.dirname(os.path.abspath(args.memo)), "memo folder")
        safeio.write_text(args.memo, f"{key}\n{verdict}\n", "waiver memo")
    elif key and os.path.exists(args.memo):
        os.remove(args.memo)
    return 1 if dead else 0


def main(argv=None):
    return cli.run_main("check_waivers", run, argv)
