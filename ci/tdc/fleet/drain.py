"""The drain rule, written once for every TDC adapter (Slurm's
HealthCheckProgram, Prolog and Epilog, the NHC check). It follows LBNL NHC's
node-mark-offline / node-mark-online with `TDC:` for `NHC:`:

- not healthy (unhealthy, or unknown: a check that could not finish is not a
  pass): drain with a reason that starts with `TDC:`, unless the node already
  carries a reason TDC did not set (an administrator's, NHC's, Slurm's own):
  that reason is kept and the node is left as it is;
- healthy: resume the node only when it is drained with a `TDC:` reason;
  any other drain stays.

  python3 -m tdc.fleet.drain --node NAME --verdict healthy|unhealthy|unknown --message TEXT
Prints what it did, one line; exit 0, or 2 when Slurm cannot be asked or told.
"""
import sys

from tdc import cli
from tdc.errors import InputError
from tdc.fleet.slurm import SlurmError, run

LEADER = "TDC:"
# Slurm's node states in which a reason is shown (sinfo %T, lower case).
DRAINED = ("drain", "drained", "draining", "fail", "failing", "maint", "down")
REASON_LIMIT = 200  # a reason is one short line in sinfo and scontrol


def decide(verdict, state, reason):
    """(action, reason) with action one of drain, resume, keep, none.
    `state` is sinfo's %T (e.g. idle, drained, draining*), `reason` its %E
    ('none' when the node has none)."""
    reason = "" if reason in (None, "none", "(null)") else reason.strip()
    ours = reason.startswith(LEADER)
    if verdict == "healthy":
        if ours and state.rstrip("*~#!%$@^-").startswith(DRAINED):
            return "resume", None
        return "none", reason or None
    if reason and not ours:
        return "keep", reason
    return "drain", None


def drain_reason(verdict, message):
    line = " ".join(f"{LEADER} {verdict}: {message}".split())
    return line[:REASON_LIMIT]


def node_state(node):
    """(state, reason) as Slurm shows them; one partition's line is enough."""
    out = run(["sinfo", "-h", "-N", "-n", node, "-o", "%T|%E"])
    lines = [line for line in out.splitlines() if line.strip()]
    if not lines:
        raise SlurmError(f"sinfo knows no node '{node}'")
    state, _, reason = lines[0].partition("|")
    return state.strip(), reason.strip()


def apply(node, verdict, message):
    """Applies the rule to NODE through Slurm; returns one line saying what it did."""
    state, reason = node_state(node)
    action, kept = decide(verdict, state, reason)
    if action == "drain":
        new_reason = drain_reason(verdict, message)
        run(["scontrol", "update", f"NodeName={node}", "State=DRAIN", f"Reason={new_reason}"])
        return f"drained {node}: {new_reason}"
    if action == "resume":
        run(["scontrol", "update", f"NodeName={node}", "State=RESUME"])
        return f"resumed {node} (was drained by TDC: {reason})"
    if action == "keep":
        return f"kept {node} as it is: its reason was not set by TDC ({kept})"
    return f"left {node} {state}" + (f" (reason not TDC's: {kept})" if kept else "")


def body(argv):
    parser = cli.Parser("drain", __doc__)
    parser.add_argument("--node", required=True)
    parser.add_argument("--verdict", required=True, choices=("healthy", "unhealthy", "unknown"))
    parser.add_argument("--message", default="")
    args = parser.parse_args(argv)
    try:
        print(apply(args.node, args.verdict, args.message))
    except SlurmError as error:
        raise InputError(str(error))
    return 0


def main(argv=None):
    return cli.run_main("drain", body, argv)


if __name__ == "__main__":
    sys.exit(main())
