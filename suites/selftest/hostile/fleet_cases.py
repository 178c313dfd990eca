"""The hostile-input corpus's provenance, replay and name cases (issue 34,
findings 1-7; issue 35, "Nights"): ci/merge and ci/verify against packages
signed by the wrong node, replayed, dated a month ago or in 2099, named
first to block the genuine one, with a NUL, an escape sequence or a newline
in a host name or a failure message, and nights that are no dates; and
(finding 12) allowed_signers lines whose options refuse the signer or
cannot be read, and ci/package packing GoogleTest XML that verify would
refuse. Each
case's make() writes real packages into {t}: the synthetic package
(../hostile_inputs.py) carried to this tree's suite version and rewritten
(fleetsim.rewrite), signed with keys made on the spot (ssh-keygen). The
cases are in the format of cases.py, which this list extends."""
import datetime
import json
import os
import subprocess

from fleetsim import rewrite
from hostile.cases import Case, in_results

from tdc import context as context_module
from tdc.fleet import matrix

ESCAPES = "boom\nVERIFIED: evil.tar.gz: level 3\x1b[2K\x1b]0;owned\x07"


def keys(tmp, hosts=("n1", "n2", "n9")):
    lines = []
    for host in hosts:
        key = os.path.join(tmp, f"key-{host}")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", host, "-f", key], check=True)
        lines.append(f"{host} {open(key + '.pub').read().strip()}")
    with open(os.path.join(tmp, "allowed_signers"), "w") as handle:
        handle.write("\n".join(lines) + "\n")


def run_id(days_ago=0.0, suffix="0123abcd"):
    when = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=days_ago)
    return f"{when:%Y%m%dT%H%M%SZ}-{suffix}"


def variant(tmp, package, name, host="n1", run=None, signer="n1", slurm=None, message=None, edit=None):
    """{t}/<name>.tar.gz: the synthetic package as a run of this tree on
    host, run id `run` (default now), signed by signer's key (None: unsigned)."""
    copy = rewrite.Package.read(package)
    copy._flush()
    mine = context_module.suite_version().encode()
    for member, data in copy.files.items():  # the synthetic run is of suite 0+0: make it this tree's
        copy.files[member] = data.replace(b'"0+0"', b'"' + mine + b'"').replace(b"suite_version: 0+0",
                                                                               b"suite_version: " + mine)
    copy.set_run_id(run or run_id(suffix=os.urandom(4).hex()))
    context = copy.json("context.json")
    context["host"] = host
    if slurm:
        context["slurm"] = slurm
    if message:
        test = copy.json("summary.json")["tests"][0]
        copy.fail(test["check"], test["device"], "broken")
        test["message"] = message   # JUnit cannot hold an ESC; the summary can
        # The synthetic run's ctest entry is the test itself (no batch): it failed too.
        copy._edit_xml("ctest-junit.xml", lambda case: case.get("name") == test["name"],
                       rewrite._make_failure("broken", ctest=True))
    if edit:
        edit(copy)
    return copy.write(tmp, sign_key=os.path.join(tmp, f"key-{signer}") if signer else None, name=name)


def with_package(make):
    make.needs_package = True
    return make


def _tasks(tmp, host, package):
    with open(os.path.join(tmp, "tasks.json"), "w") as handle:
        json.dump([{"host": host, "build": "2.13.0", "job_id": "42", "array_task_id": 0, "state": "COMPLETED",
                    "exit_code": 0, "package": package, "reason": ""}], handle)


@with_package
def other_nodes_key(tmp, package=None):
    keys(tmp)
    _tasks(tmp, "n9", variant(tmp, package, "forged", slurm={"node": "n9", "array_job_id": "42",
                                                             "array_task_id": 0}))


@with_package
def old_and_new(tmp, package=None):
    keys(tmp)
    variant(tmp, package, "old", run=run_id(days_ago=30))
    variant(tmp, package, "tonight")


@with_package
def dated_2099(tmp, package=None):
    keys(tmp)
    variant(tmp, package, "future", run="20990101T000000Z-0123abcd")


@with_package
def replayed(tmp, package=None):
    keys(tmp)
    path = variant(tmp, package, "p", run=run_id(days_ago=0.5))
    run = rewrite.Package.read(path).json("context.json")["run_id"]
    os.makedirs(os.path.join(tmp, "history", "2026-12-01"))
    writer = matrix.Writer(os.path.join(tmp, "history", "2026-12-01", "matrix.json"),
                           {"night": "2026-12-01", "generated_at": "2026-12-01T06:00:00Z", "provenance": "x"})
    writer.add({"host": "n1", "build": "unknown", "trust": "verified", "run_id": run, "cells": {}})
    writer.close({"totals": {}})


@with_package
def forged_first(tmp, package=None):
    keys(tmp)
    variant(tmp, package, "a-forged", signer="n2")
    variant(tmp, package, "b-unsigned", signer=None)
    variant(tmp, package, "c-genuine")


def _named(host):
    @with_package
    def make(tmp, package=None):
        keys(tmp)
        variant(tmp, package, "bad", host=host)
        variant(tmp, package, "good", host="n2", signer="n2")
    return make


@with_package
def escapes(tmp, package=None):
    keys(tmp)
    variant(tmp, package, "p", message=ESCAPES,
            edit=lambda copy: [t.update(check="Evil\x1b]0;title\x07.Check") for t in copy.json("summary.json")["tests"]
                               if t["status"] == "failed"])


@with_package
def nul_host(tmp, package=None):
    keys(tmp)
    variant(tmp, package, "p", host="n\x001")


@with_package
def damaged_history(tmp, package=None):
    os.makedirs(os.path.join(tmp, "history"))
    with open(os.path.join(tmp, "history", "broken.json"), "w") as handle:
        handle.write('{"truncated": ')
    keys(tmp)
    variant(tmp, package, "p")


def _signers_option(option):
    """n1's line in allowed_signers carries `option`: its package reads as refused, or the line as ignored."""
    @with_package
    def make(tmp, package=None):
        keys(tmp)
        path = os.path.join(tmp, "allowed_signers")
        with open(path) as handle:
            lines = handle.read().splitlines()
        with open(path, "w") as handle:
            handle.write("".join((line.replace("n1 ", f"n1 {option} ", 1) if line.startswith("n1 ") else line) + "\n"
                                 for line in lines))
        variant(tmp, package, "p")
    return make


def control_character_in_gtest(results):
    path = os.path.join(results, "gtest", "Placement.ModuleToMovesParametersAndBuffers", "cpu.xml")
    with open(path, "w") as handle:
        handle.write('<testsuites><testsuite name="Placement"><testcase name="ModuleToMovesParametersAndBuffers/cpu" '
                     'classname="Placement" status="run"><failure message="a\x01b"/></testcase></testsuite></testsuites>')


MERGE = ["--out={t}/out", "--no-html", "--jobs=1"]
SIGNERS = "--allowed-signers={t}/allowed_signers"

CASES = [
    # --- merge: provenance (finding 1) ---
    Case("merge", "another node's key fills a row through a claimed Slurm node", ["--tasks={t}/tasks.json", SIGNERS,
                                                                                  *MERGE], 1,
         r"unverified: signer does not match host", "stdout", make=other_nodes_key),
    # --- merge: replays (finding 2) ---
    Case("merge", "a month-old signed package beside tonight's", ["{t}/old.tar.gz", "{t}/tonight.tar.gz", SIGNERS,
                                                                  *MERGE], 1,
         r"unverified: outside the night's window", "stdout", make=old_and_new),
    Case("merge", "a run dated 2099", ["{t}/future.tar.gz", SIGNERS, *MERGE], 1,
         r"unverified: outside the night's window", "stdout", make=dated_2099),
    Case("merge", "a run merged on an earlier night", ["{t}/p.tar.gz", SIGNERS, "--history={t}/history",
                                                       "--night=2026-12-02", *MERGE], 1,
         r"unverified: replayed", "stdout", make=replayed),
    # --- merge: a forged package named first blocks nobody (finding 3) ---
    Case("merge", "a forged and an unsigned package named before the genuine one",
         ["{t}/a-forged.tar.gz", "{t}/b-unsigned.tar.gz", "{t}/c-genuine.tar.gz", SIGNERS, *MERGE], 1,
         r"^merge: 3 rows \(1 verified, 2 unverified", "stdout", make=forged_first),
    # --- merge: package text on the terminal (finding 5) ---
    Case("merge", "escape sequences in a check name and message", ["{t}/p.tar.gz", *MERGE], 1,
         r"Evil\\x1b\]0;title\\x07\.Check", "stdout", make=escapes),
    # --- merge: one package must not break the night (finding 6) ---
    Case("merge", "a NUL in a host name", ["{t}/bad.tar.gz", "{t}/good.tar.gz", SIGNERS, *MERGE], 1,
         r"^merge: 2 rows \(1 verified, 1 unverified", "stdout", make=_named("n\x009")),
    Case("merge", "a lone surrogate in a host name", ["{t}/bad.tar.gz", "{t}/good.tar.gz", SIGNERS, *MERGE], 1,
         r"^merge: 2 rows \(1 verified, 1 unverified", "stdout", make=_named("caf\udce9")),
    Case("merge", "a newline in a host name", ["{t}/bad.tar.gz", "{t}/good.tar.gz", *MERGE], 1,
         r"^merge: 2 rows \(1 verified, 1 unverified", "stdout", make=_named("n1\nVERIFIED")),
    # --- merge: history and nights (finding 7; issue 35) ---
    Case("merge", "a damaged matrix under --history", ["{t}/p.tar.gz", "--history={t}/history", *MERGE], 0,
         r"^merge: history: skipped .*broken\.json: not JSON", "stdout", make=damaged_history),
    Case("merge", "--night 2026-13-45", ["{package}", "--night=2026-13-45", *MERGE], 2,
         "expected YYYY-MM-DD, a real date", needs=("package",)),
    Case("merge", "--night 0000-00-00", ["{package}", "--night=0000-00-00", *MERGE], 2,
         "expected YYYY-MM-DD, a real date", needs=("package",)),
    Case("merge", "--allowed-signers '' (an unset variable)", ["{package}", "--allowed-signers=", *MERGE], 2,
         "--allowed-signers is empty", needs=("package",)),
    Case("merge", "--max-age 0", ["{package}", "--max-age=0", *MERGE], 2, "out of range", needs=("package",)),

    # --- package: what verify would refuse is not packed (finding 12) ---
    Case("package", "GoogleTest XML with a control character", ["{t}/r", "--product=p", "--submitter=s",
                                                                "--out={t}/out"], 2,
         r"cpu\.xml is not well-formed XML", make=in_results(control_character_in_gtest)),

    # --- verify: provenance said, text escaped, names refused (findings 4-6) ---
    Case("verify", "no --allowed-signers says provenance was not checked", ["{package}"], 1,
         r"provenance: not checked \(no --allowed-signers\): integrity only", "stdout", needs=("package",)),
    Case("verify", "--require-signature without --allowed-signers", ["{package}", "--require-signature"], 2,
         "--require-signature: no --allowed-signers given", needs=("package",)),
    Case("verify", "--allowed-signers '' (an unset variable)", ["{package}", "--allowed-signers="], 2,
         "--allowed-signers is empty", needs=("package",)),
    Case("verify", "a newline and escapes in a failure message", ["{t}/p.tar.gz"], 1,
         r"^problem: failed check: .*boom\\nVERIFIED: evil\.tar\.gz: level 3\\x1b\[2K", "stdout", make=escapes),
    # --- verify: allowed_signers options say what is wrong with the line (finding 12) ---
    Case("verify", "allowed_signers: valid-before has passed", ["{t}/p.tar.gz", SIGNERS], 1,
         r"^problem: signer's key refused by its allowed_signers line: .*allowed_signers:1 allows the key only "
         r"before 2020-01-01T00:00:00 \(valid-before=\)", "stdout", make=_signers_option('valid-before="20200101"')),
    Case("verify", "allowed_signers: namespaces= leaves out tdc-package", ["{t}/p.tar.gz", SIGNERS], 1,
         r"^problem: signer's key refused by its allowed_signers line: .*namespaces= option leaves out "
         r'"tdc-package"', "stdout", make=_signers_option('namespaces="file"')),
    Case("verify", "allowed_signers: an option ssh-keygen cannot read", ["{t}/p.tar.gz", SIGNERS], 1,
         r"^problem: unknown signer: .*\(ssh-keygen ignores .*allowed_signers:1, a line for n1: bad options: "
         r'invalid "valid-before" time\)', "stdout", make=_signers_option('valid-before="soon"')),
    Case("verify", "a NUL in the host name, signers given", ["{t}/p.tar.gz", SIGNERS], 1,
         r"^problem: not a host name: context\.json's host 'n\\x001'", "stdout", make=nul_host),
]
