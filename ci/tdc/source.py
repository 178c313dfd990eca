"""source-state: the git state of the tree these tools belong to, asked
when a run runs (context.json's "git"; ci/verify refuses a dirty one), and
the warning a run prints at its start when the tree is dirty, naming the
files, so that a run whose package would be refused says so before it
spends its time, not after.

An installed TDC has no tree: it says what its install recorded
(share/tdc/source.json, written by `cmake --install` / cpack from the tree
as it was then: cmake/TdcInstall.cmake).

  python3 -m tdc source-state [--warn]
Prints the state as JSON, or with --warn only the warning (nothing when the
tree is clean). Exit status 0, or 2 with one line (a damaged source.json)."""
import os
import subprocess
import sys

from tdc import ROOT, cli, safeio

RECORDED = "source.json"     # an installed TDC's record, in share/tdc beside VERSION
FILES_KEPT = 50              # context.json keeps this many of the dirty files
FILES_NAMED = 5              # the warning names this many


def is_checkout(root=ROOT):
    """A git tree (a worktree's .git is a file), not an installed prefix."""
    return os.path.exists(os.path.join(root, ".git"))


def _git(args, root):
    try:
        run = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return run.stdout.strip() if run.returncode == 0 else None


def state(root=ROOT):
    """{"commit", "dirty", "dirty_files"}: asked of git now, in a checkout;
    the install's record otherwise. dirty is None when git cannot say
    (ci/verify refuses that as "state unknown")."""
    recorded = os.path.join(root, RECORDED)
    if not is_checkout(root) and os.path.isfile(recorded):
        kept = safeio.load_json(recorded, "source.json", kind=dict)
        return {"commit": kept.get("commit"), "dirty": kept.get("dirty"),
                "dirty_files": list(kept.get("dirty_files") or [])[:FILES_KEPT]}
    commit = _git(["rev-parse", "HEAD"], root)
    status = _git(["status", "--porcelain", "--untracked-files=normal"], root)
    return {"commit": commit, "dirty": bool(status) if status is not None else None,
            "dirty_files": status.splitlines()[:FILES_KEPT] if status else []}


def warning(found, root=ROOT):
    """One line when `found` (state()) is dirty or unknown, else ""."""
    if found["dirty"] is False:
        return ""
    if found["dirty"] is None:
        return (f"tdc: warning: cannot tell whether {root} has uncommitted changes (no git?): "
                "ci/verify will refuse this run's package (state unknown)")
    files = found["dirty_files"]
    named = ", ".join(line.strip() for line in files[:FILES_NAMED])
    more = f" and {len(files) - FILES_NAMED} more" if len(files) > FILES_NAMED else ""
    return (f"tdc: warning: the tree {root} has uncommitted changes ({named}{more}): "
            "ci/verify will refuse this run's package (dirty tree); commit or remove them first")


def parser():
    p = cli.Parser("source-state", __doc__)
    p.add_argument("--warn", action="store_true", help="print only the warning, on stderr")
    return p


def source_state(argv):
    args = parser().parse_args(argv)
    found = state()
    if args.warn:
        line = warning(found)
        if line:
            print(line, file=sys.stderr)
        return 0
    print(safeio.dumps(found, indent=None).strip())
    return 0


def main(argv=None):
    return cli.run_main("source-state", source_state, argv)
