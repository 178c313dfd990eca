"""The drain rule, written once for every TDC adapter (Slurm's
HealthCheckProgram, Prolog and Epilog, the NHC check). It follows LBNL NHC's
node-mark-offline / node-mark-online with `TDC:` for `NHC:`:

- not healthy (unhealthy, or unknown: a check that could not finish is not a
  pass): drain with a reason that starts with `TDC:`, unless the node already
  carries a reason TDC did not set (an administrator's, NHC's, Slurm's own):
  that reason is kept and the node is left as it is;
- healthy: resume the node only when it is drained with a `TDC:` reason;
  any other drain stays. A drained state is any of sinfo's: `drained`,
  `draining`, and the compound ones (`mixed+drain`, `idle+drain`).

A reason is TDC's when it begins with `TDC:`, whoever wrote it: an
administrator who writes `TDC: ...` hands the node to TDC's rule, which will
resume it once healthy (docs/fleet.md). The reason of an unhealthy node is
`TDC: <action>: <message>` with the recommended action (tdc.fleet.actions),
e.g. `TDC: reset_device: cuda:3 EventBlock... timed out`; of an unknown one
`TDC: unknown: <message>`.

  python3 -m tdc.fleet.drain --node NAME --verdict healthy|unhealthy|unknown --message TEXT [--action A]
Prints what it did, one line; exit 0, or 2 when Slurm cannot be asked or told.
"""
import sys

from tdc import cli
from tdc.errors import InputError
from tdc.fleet import actions
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
        if ours and drained(state):
            return "resume", None
        return "none", reason or None
    if reason and not ours:
        return "keep", reason
    return "drain", None


def drained(state):
    """Whether sinfo's %T state (drained*, mixed+drain, idle+drain~) is a drained one."""
    return any(part.strip().rstrip("*~#!%$@^-").startswith(DRAINED)
               for part in state.lower().split("+"))


def drain_reason(verdict, message, action=None):
    """`TDC: <action>: message` for an unhealthy node with its action, else
    `TDC: <verdict>: message`; one line, at most REASON_LIMIT characters."""
    label = action if verdict == "unhealthy" and action and action != "none" else verdict
    line = " ".join(f"{LEADER} {label}: {message}".split())
    return line[:REASON_LIMIT]


def node_state(node):
    """(state, reason) as Slurm shows them; one partition's line is enough."""
    out = run(["sinfo", "-h", "-N", "-n", node, "-o", "%T|%E"])
    lines = [line for line in out.splitlines() if line.strip()]
    if not lines:
        raise SlurmError(f"sinfo knows no node '{node}'")
    state, _, reason = lines[0].partition("|")
    return state.strip(), reason.strip()


def apply(node, verdict, message, recommended=None):
    """Applies the rule to NODE through Slurm; returns one line saying what it
    did. RECOMMENDED is the verdict's action (tdc.fleet.actions), for the reason."""
    state, reason = node_state(node)
    action, kept = decide(verdict, state, reason)
    if action == "drain":
        new_reason = drain_reason(verdict, message, recommended)
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
    parser.add_argument("--action", choices=actions.ACTIONS, help="the recommended action, for the reason")
    args = parser.parse_args(argv)
    try:
        print(apply(args.node, args.verdict, args.message, args.action))
    except SlurmError as error:
        raise InputError(str(error))
    return 0


def main(argv=None):
    return cli.run_main("drain", body, argv)


if __name__ == "__main__":
    sys.exit(main())
