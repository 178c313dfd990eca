"""tdc fleet-plan: the CI templates' host x build list, as the matrix that fans
the nightly out and as the tasks file its merge job passes to ci/merge.

  tdc fleet-plan HOSTS --github-matrix
  tdc fleet-plan HOSTS --gitlab-matrix
  tdc fleet-plan HOSTS --tasks=FILE --packages=DIR [--run-id=ID]

HOSTS (ci/templates/fleet-hosts.json, which the lab edits) is the one list
both the matrix and the merge read, so a job that died is a row, "no
package", never a host missing from the night:

  [{"host": "gpu-node-01", "kind": "gpu", "builds": ["2.13.0", "2.14.1"]},
   {"host": "cpu-node-01", "kind": "cpu", "builds": ["system"]}]

host   the machine's host name (what its package records; ci/merge refuses
       a package that claims another host) and its runner's label (GitHub)
       or tag (GitLab): each job is pinned to its host;
kind   "gpu" or "cpu": `system` (Debian's 1.13.1, CPU only) runs on cpu
       hosts only, never under a GPU expectation;
builds each a LibTorch of ci/conformance --torch: a pip version (2.13.0)
       or system.

--github-matrix prints the matrix as JSON on one line ({"include": [{"host",
"torch"}, ...]}, for the plan job's output and fromJSON). --gitlab-matrix
prints one YAML line, the hidden job `.tdc-fleet-matrix` (parallel:matrix of
HOST and TORCH) that the child pipeline's conformance job extends. --tasks
writes the tasks file (tdc.fleet.tasks, the format Slurm's merge uses): one
task per host and build, in the list's order, whose package is the one the
job left in DIR/<host>/<build>/ (its artefact); a job that left none is a
task without a package, state UNKNOWN (the platform's job state is not
read). A package in DIR that no task of the list made is refused: the merge
would not see it.

Exit 0, or 2 with one line: a damaged list, an unknown key, a bad host or
build name, a host or build twice, `system` on a gpu host, an empty list,
more jobs than the platform's matrix allows."""
import glob
import json
import os
import re
import sys

from tdc import cli, safeio
from tdc.errors import InputError
from tdc.fleet import tasks

KINDS = ("gpu", "cpu")
SYSTEM = "system"
KEYS = {"host": str, "kind": str, "builds": list}
# A host name (RFC 1123 label characters and dots): also a runner label and
# a folder name under --packages, so never a path or an option.
HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$")
# ci/conformance --torch's names that a CI job can build: a pip version or
# Debian's (ci/lib.sh tdc_torch_prefix); a prefix path is one machine's.
BUILD = re.compile(r"^([0-9]+\.[0-9]+\.[0-9]+|system)$")
# The platforms' limits: GitHub runs at most 256 jobs of a matrix, GitLab's
# parallel:matrix at most 200. More is refused, never cut short.
MATRIX_LIMIT = {"github": 256, "gitlab": 200}


def read(path):
    """[(host, kind, [builds])] of the list at path; InputError, one line, on anything else."""
    hosts = safeio.load_json(path, "host list", kind=list)
    if not hosts:
        raise InputError(f"host list {path} is empty: the nightly would test nothing")
    found, seen = [], set()
    for index, entry in enumerate(hosts):
        where = f"host list {path}: entry {index}"
        safeio.check_object(entry, where, KEYS)
        for key, kind in KEYS.items():
            if not isinstance(entry[key], kind):
                raise InputError(f"{where}: {key!r} is a JSON {safeio.json_type(entry[key])}")
        host, kind, builds = entry["host"], entry["kind"], entry["builds"]
        if not HOST.match(host):
            raise InputError(f"{where}: host {host!r} is not a host name (letters, digits, '.', '-')")
        if host in seen:
            raise InputError(f"{where}: host {host!r} is listed twice")
        seen.add(host)
        if kind not in KINDS:
            raise InputError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
        if not builds:
            raise InputError(f"{where}: host {host!r} has no build")
        for build in builds:
            if not isinstance(build, str) or not BUILD.match(build):
                raise InputError(f"{where}: build {build!r} is not a LibTorch ci/conformance builds "
                                 "here (a pip version such as 2.13.0, or system)")
        twice = sorted({b for b in builds if builds.count(b) > 1})
        if twice:
            raise InputError(f"{where}: host {host!r} lists build {twice[0]!r} twice")
        if SYSTEM in builds and kind != "cpu":
            raise InputError(f"{where}: host {host!r} is a {kind} host: system (Debian's 1.13.1) is CPU "
                             "only and would be red every night under a GPU expectation; list it on a cpu host")
        found.append((host, kind, list(builds)))
    return found


def jobs(hosts):
    """[(host, build)]: runner x build, in the list's order."""
    return [(host, build) for host, _, builds in hosts for build in builds]


def _limit(hosts, platform):
    count = len(jobs(hosts))
    if count > MATRIX_LIMIT[platform]:
        raise InputError(f"{count} jobs: {platform}'s matrix runs at most {MATRIX_LIMIT[platform]}; "
                         "split the list into two workflows")


def github_matrix(hosts):
    _limit(hosts, "github")
    return {"include": [{"host": host, "torch": build} for host, build in jobs(hosts)]}


def gitlab_matrix(hosts):
    _limit(hosts, "gitlab")
    return {"parallel": {"matrix": [{"HOST": [host], "TORCH": list(builds)} for host, _, builds in hosts]}}


def task_rows(hosts, packages, run_id):
    """The tasks file's rows: every job of the list, with its package or none."""
    rows, claimed = [], set()
    for index, (host, build) in enumerate(jobs(hosts)):
        found = sorted(glob.glob(os.path.join(glob.escape(os.path.join(packages, host, build)), "*.tar.gz")))
        claimed.update(os.path.realpath(p) for p in found)
        reason = ""
        if not found:
            reason = (f"no package: the CI job for host {host!r} build {build!r} left none in "
                      f"{os.path.join(packages, host, build)} (it died, timed out, was cancelled, "
                      "or no runner took it)")
        elif len(found) > 1:  # a retried job's artefacts: the newest run (a name ends with its run time)
            reason = (f"{len(found)} packages from this job; merged the newest, not "
                      f"{', '.join(os.path.basename(p) for p in found[:-1])}")
        rows.append({"host": host, "build": build, "job_id": run_id, "array_task_id": index,
                     "state": "UNKNOWN", "exit_code": None,
                     "package": os.path.abspath(found[-1]) if found else None, "reason": reason})
    stray = sorted(p for p in glob.glob(os.path.join(glob.escape(packages), "**", "*.tar.gz"), recursive=True)
                   if os.path.realpath(p) not in claimed)
    if stray:
        raise InputError(f"--packages {packages}: {stray[0]} is no job's of the host list "
                         f"(expected {packages}/<host>/<build>/): it would not be merged")
    return rows


def parser():
    p = cli.Parser("fleet-plan", __doc__)
    p.add_argument("hosts", help="the host x build list (ci/templates/fleet-hosts.json)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--github-matrix", action="store_true", help="print the GitHub Actions matrix (JSON)")
    what.add_argument("--gitlab-matrix", action="store_true",
                      help="print the GitLab child pipeline's hidden job .tdc-fleet-matrix (one YAML line)")
    what.add_argument("--tasks", help="write the tasks file for ci/merge --tasks here")
    p.add_argument("--packages", help="with --tasks: the folder of the jobs' artefacts, <host>/<build>/*.tar.gz")
    p.add_argument("--run-id", default="", help="with --tasks: the CI run's id, each task's job_id")
    return p


def body(argv):
    args = parser().parse_args(argv)
    if args.tasks is not None and args.packages is None:
        raise InputError("--tasks needs --packages (the folder of the jobs' artefacts)")
    if args.tasks is None and (args.packages is not None or args.run_id):
        raise InputError("--packages and --run-id go with --tasks")
    if args.run_id and not args.run_id.isprintable():
        raise InputError(f"--run-id {args.run_id!r} holds a control character")
    hosts = read(args.hosts)
    if args.github_matrix:
        print(json.dumps(github_matrix(hosts), separators=(",", ":")))
    elif args.gitlab_matrix:
        print(".tdc-fleet-matrix: " + json.dumps(gitlab_matrix(hosts), separators=(",", ":")))
    else:
        # A missing folder is no artefact at all: every task says "no package".
        tasks.write(args.tasks, task_rows(hosts, args.packages, args.run_id))
    return 0


def main(argv=None):
    return cli.run_main("fleet-plan", body, argv)


if __name__ == "__main__":
    sys.exit(main())
