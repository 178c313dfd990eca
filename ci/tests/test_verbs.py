"""One program (issue 30): tdc/verbs.py's table is the only list of verbs.
`tdc --help` (bin/tdc, and `python3 -m tdc`) lists every verb in it, every
verb answers `--help` with exit 0, ci/ holds only the commands users already
know (verbs.KNOWN_COMMANDS) and the programs that make a build, and every
ci/ command that is not a program of its own is a one-line wrapper that runs
a verb of the table."""
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from tdc import verbs

TDC = os.path.join(ROOT, "bin", "tdc")
# ci/ commands that are programs of their own, not wrappers: the bash jobs
# that make a build (or a bundle), and ci/health (the verb health runs it).
PROGRAMS = {"conformance", "selftest", "sanitize", "offline-run", "offline-bundle", "health"}
# ci/ programs that are no verb (the known ones are in verbs.KNOWN_COMMANDS).
NOT_VERBS = {"sanitize", "offline-run", "offline-bundle"}
# The Python wrapper's line, and the bash one (ci/slurm/submit, outside ci/,
# takes the Python path from ci/tools.sh, the shell's one place for it).
PY_LINE = re.compile(r'import sys; from tdc import verbs; sys\.exit\(verbs\.main\(\["([a-z-]+)", \*sys\.argv\[1:\]\]\)\)')
SH_LINE = re.compile(r'source "\$\(dirname "\$\(readlink -f "\$0"\)"\)/\.\./tools\.sh" && '
                     r'tdc_python exec python3 -m tdc ([a-z-]+) "\$@"')


def commands():
    """Every executable file directly in ci/."""
    return sorted(n for n in os.listdir(os.path.join(ROOT, "ci"))
                  if os.path.isfile(os.path.join(ROOT, "ci", n)) and os.access(os.path.join(ROOT, "ci", n), os.X_OK))


def wrappers():
    """Every executable file directly in ci/ but the programs, and ci/slurm/submit."""
    return [os.path.join("ci", n) for n in commands() if n not in PROGRAMS] + [os.path.join("ci", "slurm", "submit")]


def commands_problem(names):
    """What is wrong with the commands in ci/ (None when they are the known ones and the programs)."""
    wanted = set(verbs.KNOWN_COMMANDS) | NOT_VERBS
    extra, missing = sorted(set(names) - wanted), sorted(wanted - set(names))
    if extra:
        return f"ci/ has {', '.join(extra)}: a verb is `tdc <verb>`, no ci/ wrapper (verbs.KNOWN_COMMANDS)"
    if missing:
        return f"ci/ lacks {', '.join(missing)}, which users know"
    return None


def wrapper_problem(text):
    """What is wrong with a wrapper's text (None when it is one line naming a verb)."""
    lines = text.splitlines()
    if len(lines) != 2 or not lines[0].startswith("#!"):
        return f"{len(lines)} lines, not a #! line and one line"
    line = PY_LINE.fullmatch(lines[1]) or SH_LINE.fullmatch(lines[1])
    if not line:
        return f"its line does not run a verb through tdc.verbs: {lines[1][:80]!r}"
    if line.group(1) not in verbs.VERBS:
        return f"it runs {line.group(1)!r}, which is not in tdc/verbs.py's table"
    return None


def tdc(*args, cwd=None):
    return subprocess.run([TDC, *args], capture_output=True, text=True, timeout=120, cwd=cwd,
                          env=dict(os.environ, PATH=os.path.dirname(sys.executable) + ":" + os.environ["PATH"]))


def test_wrapper_rule_catches_a_fat_wrapper_and_an_unknown_verb():
    """The negatives: an old five-line wrapper, a verb the table lacks."""
    good = '#!/usr/bin/env python3\nimport sys; from tdc import verbs; sys.exit(verbs.main(["merge", *sys.argv[1:]]))\n'
    assert wrapper_problem(good) is None
    assert "lines" in wrapper_problem("#!/usr/bin/env python3\nimport sys\n\nfrom tdc.verify import main\n"
                                      "sys.exit(main())\n")
    assert "not in" in wrapper_problem(good.replace('"merge"', '"merge-all"'))
    assert "does not run a verb" in wrapper_problem("#!/bin/sh\nexec python3 -m tdc.fleet.merge \"$@\"\n")


@pytest.mark.parametrize("path", wrappers())
def test_every_ci_wrapper_is_one_line_naming_a_verb(path):
    problem = wrapper_problem(open(os.path.join(ROOT, path), encoding="utf-8").read())
    assert problem is None, f"{path}: {problem}"


def test_ci_holds_the_commands_users_know_and_no_other_wrapper():
    assert commands_problem(commands()) is None, commands_problem(commands())
    assert {os.path.relpath(p, "ci") for p in wrappers()} == {"package", "verify", "merge", "slurm/submit"}
    # The negatives: a wrapper that came back (issue 30 removed compare's), a known one gone.
    assert "ci/ has compare" in commands_problem([*commands(), "compare"])
    assert "ci/ lacks verify" in commands_problem([n for n in commands() if n != "verify"])


def test_every_known_command_is_a_verb_or_makes_a_build():
    for name in verbs.KNOWN_COMMANDS:
        assert name in verbs.VERBS or name in ("conformance", "selftest"), name


def test_tdc_help_lists_every_verb_and_the_exit_codes():
    for run in (tdc("--help"), subprocess.run([sys.executable, "-m", "tdc", "--help"], capture_output=True,
                                              text=True, env=verbs.tools_env())):
        assert run.returncode == 0, run.stderr
        listed = re.findall(r"^  ([a-z][a-z-]*) +\S", run.stdout, re.M)
        assert listed == list(verbs.VERBS), listed
        assert "exit status" in run.stdout and "  2  bad input" in run.stdout
    for wanted in ("merge", "report", "faults", "slurm-submit", "check-waivers", "annotate", "run"):
        assert wanted in verbs.VERBS


def test_each_summary_is_a_whole_sentence_for_the_user():
    for name, verb in verbs.VERBS.items():
        assert verb.summary[:1].isupper() and verb.summary.endswith((".", ")")), name
        assert "tdc/" not in verb.summary and "ci/" not in verb.summary, f"{name} speaks of the code"


def test_no_verb_and_an_unknown_verb_are_bad_input():
    assert tdc().returncode == 2
    run = tdc("no-such-verb")
    assert run.returncode == 2 and run.stderr.strip() == "tdc: unknown verb 'no-such-verb' (tdc --help lists them)"


@pytest.mark.parametrize("verb", list(verbs.VERBS))
def test_every_verb_answers_help(verb):
    run = tdc(verb, "--help")
    assert run.returncode == 0, f"tdc {verb} --help: exit {run.returncode}: {run.stderr.strip()[-300:]}"
    assert run.stdout.strip(), f"tdc {verb} --help printed nothing"


def test_a_tool_runs_another_verb_as_its_own_process():
    """verbs.child: how run-benchmarks and qualification-gate run a verb
    whose ci/ wrapper issue 30 removed; it works without PYTHONPATH set."""
    argv, env = verbs.child("compare", env={"PATH": os.environ["PATH"]})
    assert argv == [sys.executable, "-m", "tdc", "compare"]
    assert env["PYTHONPATH"] == os.path.join(ROOT, "ci")
    run = subprocess.run([*argv, "--help"], capture_output=True, text=True, timeout=60, env=env, cwd="/")
    assert run.returncode == 0 and "OLD" in run.stdout, run.stderr
    elsewhere = verbs.tools_env({}, ci="/elsewhere")   # another TDC's tools, as hostile_inputs runs them
    assert list(elsewhere) == ["PYTHONPATH"] and elsewhere["PYTHONPATH"] == "/elsewhere"
    _, env = verbs.child("compare", env=elsewhere)   # a path already set is kept, after the tools
    assert env["PYTHONPATH"] == os.path.join(ROOT, "ci") + os.pathsep + "/elsewhere"
    with pytest.raises(KeyError):   # the negative: no verb, no command line
        verbs.child("no-such-verb")
