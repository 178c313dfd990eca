"""The one table of TDC's verbs. `tdc <verb>` (bin/tdc in a checkout,
<prefix>/bin/tdc in an install), `python3 -m tdc <verb>` and the few ci/
wrappers (one line each, KNOWN_COMMANDS) run a verb through VERBS, and
`tdc --help` is written from it: a verb added here is a command everywhere
at once.

A verb marked `build` runs a build's checks. From an installed TDC, when the
command line names no --build-dir, it gets the installed suites' ctest tree
(`tdc ctest-tree`, under --state-dir, TDC_STATE_DIR, else
$XDG_CACHE_HOME/tdc/state); a checkout names its build with --build-dir."""
import collections
import importlib
import os
import shutil
import sys
import textwrap

from tdc import ROOT
from tdc.errors import InputError
from tdc.terminal import printable

# module: the tdc module whose main(argv) the verb runs; or "script:NAME", a
# program in ci/; or "installed:WHAT", which only an installed TDC has.
Verb = collections.namedtuple("Verb", "module summary build", defaults=(False,))

VERBS = {
    # Running checks and reading what a run left.
    "run": Verb("tdc.pipeline", "Runs one level of a build's checks and writes summary.json, junit.xml and "
                "context.json; its last line is the verdict.", build=True),
    "health": Verb("script:health", "Runs level 1 of a build within a time budget and prints one JSON "
                   "readiness verdict: healthy, unhealthy or unknown.", build=True),
    "report": Verb("tdc.report.run", "Writes one run's self-contained report.html from its results folder."),
    "run-report": Verb("tdc.run_report", "Writes report.html as the last step of a run, saying where it is."),
    "context": Verb("tdc.context", "Writes context.json: the host, devices and LibTorch a run was made with.",
                    build=True),
    "summarize": Verb("tdc.summarize", "Turns ctest's JUnit and GoogleTest's XML into summary.json and a "
                      "per-device table."),
    "annotate": Verb("tdc.annotate", "Adds context.json and each failure's reason to ctest's JUnit file."),
    "verdict": Verb("tdc.verdict", "Prints one readiness verdict (healthy, unhealthy or unknown) from a run's "
                    "summary.json."),
    "last-line": Verb("tdc.last_line", "Prints the line a run ends with: its verdict and where its report is."),
    "source-state": Verb("tdc.source", "Says which commit these tools are from and whether the tree is dirty."),
    # Packages and fleets.
    "package": Verb("tdc.package", "Turns a results folder into a package that a reviewer checks with "
                    "tdc verify."),
    "verify": Verb("tdc.verify", "Checks a package against this TDC's mustpass lists: VERIFIED, or every "
                   "problem on its own line."),
    "merge": Verb("tdc.fleet.merge", "Verifies many hosts' packages and merges them into one fleet matrix, "
                  "JUnit file and report."),
    "fleet-plan": Verb("tdc.fleet.plan", "Turns the CI templates' host x build list into their matrix and "
                       "into the tasks file that tdc merge reads."),
    "slurm-submit": Verb("tdc.fleet.slurm_submit", "Qualifies a Slurm fleet with one job array: a build job, "
                         "one task per node and a merge job."),
    # The lists a run is held to.
    "mustpass": Verb("tdc.mustpass", "Writes the committed mustpass lists from a build's ctest labels, or "
                     "checks that they agree.", build=True),
    "check-waivers": Verb("tdc.waivers", "Fails when a known-failure waiver applies to no test of any suite "
                          "program."),
    "faults": Verb("tdc.faults", "Lists the loopback backend's planted faults with what each breaks, and "
                   "checks their registry."),
    "selection-report": Verb("tdc.selection_report", "Checks the seed program's device_select --verbose "
                             "output against this host."),
    "qualification-gate": Verb("tdc.qualification_gate", "Runs the level-3 benchmark gate and writes "
                               "bench/gate.json."),
    # Benchmarks.
    "run-benchmarks": Verb("tdc.bench.run_all", "Runs a build's benchmarks, gates them against their "
                           "thresholds and plots them.", build=True),
    "check-thresholds": Verb("tdc.bench.thresholds", "Checks benchmark results against the per-device "
                             "thresholds in bench/thresholds.json."),
    "compare": Verb("tdc.bench.compare", "Gates benchmark results against a baseline and names every "
                    "regression."),
    "compare-noise": Verb("tdc.bench.noise", "Counts how often tdc compare calls unchanged code regressed, "
                          "from benchmark runs back to back."),
    "plot-bandwidth": Verb("tdc.bench.plot", "Plots bandwidth against transfer size (needs matplotlib)."),
    "cold-start": Verb("tdc.bench.cold_start", "Runs tdc_cold_start several times and reports the median "
                       "times."),
    "side-by-side": Verb("tdc.bench.side_by_side", "Shows the C++ benchmarks beside their references."),
    "harness-overhead": Verb("tdc.bench.harness_overhead", "Measures what the harness costs: TDC's "
                             "device-to-device copies against a bare loop."),
    # Where the time goes.
    "level-times": Verb("tdc.level_times", "Times each level of a build against the floor its checks set.",
                        build=True),
    "build-profile": Verb("tdc.build_profile", "Shows where a build's time went, per source folder."),
    "ctest-profile": Verb("tdc.ctest_profile", "Lists the slowest entries of a ctest run."),
    "under-load": Verb("tdc.under_load", "Runs a command several times while busy loops hold every core, and "
                       "says how many runs failed."),
    # An installed TDC's own.
    "ctest-tree": Verb("tdc.installed", "Prepares the ctest tree an installed TDC runs in, under your state "
                       "folder, and prints its path."),
    "ctest": Verb("installed:ctest", "Runs ctest on an installed TDC's suites (an installed TDC only).",
                  build=True),
    "device-select": Verb("installed:device-select", "Runs the seed program, which names the devices a run "
                          "would test (an installed TDC only).", build=True),
}

# The ci/ commands users already know, kept (issue 30): conformance and
# selftest make a build, health is a program the verb runs, and package,
# verify and merge are one-line wrappers. Every other verb is `tdc <verb>`
# only; ci/tests/test_verbs.py holds ci/ to this list.
KNOWN_COMMANDS = ("conformance", "selftest", "health", "package", "verify", "merge")

EPILOG = """\
exit status (every verb):
  0  passed: the checks ran and passed (or the tool did what was asked)
  1  failed: a check, gate or verification failed; the output names what
  2  bad input or could not check: an unknown verb or option, a damaged or
     missing file, a missing build or device list; one line on stderr"""


def usage():
    lines = ["usage: tdc [--state-dir=DIR] <verb> [arguments]   (tdc <verb> --help for each)",
             "", "verbs:"]
    for name, verb in VERBS.items():
        text = textwrap.wrap(verb.summary, 78 - 22, break_on_hyphens=False)
        lines.append(f"  {name:<19} {text[0]}")
        lines += [" " * 22 + more for more in text[1:]]
    return "\n".join(lines + ["", EPILOG])


def child(name, python=None, env=None):
    """How a tool runs verb NAME as a process of its own: (argv, env), this
    package on PYTHONPATH. `python` is another interpreter (one with
    matplotlib); `env` the environment to add it to (default os.environ)."""
    if name not in VERBS:
        raise KeyError(f"{name!r} is not a verb of tdc/verbs.py")
    return [python or sys.executable, "-m", "tdc", name], tools_env(env)


def tools_env(env=None, ci=None):
    """ENV (default os.environ), copied, with this package's folder (ci/)
    first on PYTHONPATH: how a process of its own imports tdc. `ci`: another
    TDC's tools folder instead (an older checkout's, an install's), whose
    tools the process runs. The Python side's one place for it, as ci/tools.sh
    is the shell's (bin/tdc) and cmake/tdc_tools_environment.cmake CMake's."""
    env = dict(os.environ if env is None else env)
    ci = os.path.abspath(ci) if ci else os.path.join(ROOT, "ci")
    env["PYTHONPATH"] = ci + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def installed_here():
    """Whether these tools are an installed TDC's (<prefix>/share/tdc/ci)."""
    return os.path.basename(os.path.dirname(os.path.realpath(ROOT))) == "share"


def names_build_dir(args):
    return any(a == "--build-dir" or a.startswith("--build-dir=") for a in args)


def split_state_dir(argv):
    """(--state-dir's value or None, the rest): the option only before the verb."""
    state = None
    while argv and argv[0].startswith("--state-dir"):
        if argv[0] == "--state-dir":
            if len(argv) < 2:
                raise InputError("--state-dir needs a folder")
            state, argv = argv[1], argv[2:]
        elif argv[0].startswith("--state-dir="):
            state, argv = argv[0].split("=", 1)[1], argv[1:]
        else:
            break
    return state, argv


def execute(program, args):
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(program, [program, *args])


def dispatch(name, verb, rest, state):
    asks_help = bool(rest) and rest[0] in ("-h", "--help")
    kind, _, what = verb.module.partition(":")
    tree = None
    # An installed-only verb always takes the tree; the others only when no --build-dir is named.
    if verb.build and not asks_help and (kind == "installed" or not names_build_dir(rest)):
        if installed_here():
            from tdc import installed  # the tree is made only when a verb needs it
            tree = installed.make_tree(state)
            if kind != "installed":
                rest = [f"--build-dir={tree}", *rest]
        elif kind == "installed":
            raise InputError(f"{name} runs an installed TDC's suites; in a source checkout use "
                             "ctest --test-dir BUILD")
    if name == "ctest-tree" and state is not None:
        rest = ["--state-dir", state, *rest]
    if kind == "script":
        execute(os.path.join(ROOT, "ci", what), rest)
    if kind == "installed":
        if asks_help:
            print(f"usage: tdc {name} [arguments]\n\n{verb.summary}")
            return 0
        if what == "ctest":
            ctest = shutil.which("ctest")
            if not ctest:
                raise InputError("ctest is not on PATH (CMake's ctest runs the installed suites)")
            execute(ctest, ["--test-dir", tree, *rest])
        execute(os.path.join(tree, "bin", "device_select"), rest)
    return importlib.import_module(verb.module).main(rest)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        state, argv = split_state_dir(argv)
        if not argv or argv[0] in ("-h", "--help"):
            print(usage())
            return 0 if argv else 2
        name, rest = argv[0], argv[1:]
        if name not in VERBS:
            raise InputError(f"unknown verb {name!r} (tdc --help lists them)")
        return dispatch(name, VERBS[name], rest, state)
    except (InputError, OSError) as error:
        print(printable(f"tdc: {error}"), file=sys.stderr)
        return 2
