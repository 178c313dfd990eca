"""Who may fill a fleet row, on small real packages (ci/package of a synthetic
results folder, signed with real ssh-keygen keys), merged by ci/merge's own
code: the signer must be allowed for the row's host, a run outside the
night's window or merged on an earlier night is set aside, the newest
verified run of a host wins and an unverified package blocks nobody; one
package with a hostile host name is one unverified row, never a lost night;
ci/verify says when provenance was not checked. (Issue 34, findings 1-7;
issue 35, "Nights".) The same on a real fleet: suites/selftest/test_fleet_merge.py."""
import contextlib
import datetime
import io
import json
import os
import shutil
import subprocess

import pytest
from conftest import ROOT

from fleetsim import rewrite, synthetic_run
from tdc import package as package_tool, verify
from tdc.fleet import matrix, merge

NOT_CHECKED = "provenance: not checked (no --allowed-signers): integrity only"

BUILD = "2.13.0"


def run_id(days_ago=0.0, suffix=None):
    when = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=days_ago)
    return f"{when:%Y%m%dT%H%M%SZ}-{suffix or os.urandom(4).hex()}"


def results_folder(folder, host, run, slurm=None):
    """A results folder no ctest made, of a cpu run of BUILD."""
    synthetic_run.results_folder(folder, host, run, slurm=slurm, command_line="unit",
                                 devices={"libtorch_version": BUILD,
                                          "devices": [{"device": "cpu", "name": "cpu", "driver": ""}]})


class Lab:
    """Keys for n1, n2 and n9, an allowed_signers file, and packages on demand."""

    def __init__(self, base):
        self.base, self.made = base, 0
        self.keys, lines = {}, []
        for host in ("n1", "n2", "n9"):
            key = os.path.join(base, f"key-{host}")
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", host, "-f", key], check=True)
            self.keys[host] = key
            lines.append(f"{host} {open(key + '.pub').read().strip()}")
        self.signers = os.path.join(base, "allowed_signers")
        with open(self.signers, "w") as f:
            f.write("\n".join(lines) + "\n")

    def package(self, host, run=None, signer=None, slurm=None, product="unit", fail=None, unsigned=False):
        """A package of a run on host (run id `run`, default now), signed by
        signer's key (default the host's own); fail=(check, device, message)
        makes one check fail."""
        self.made += 1
        folder = os.path.join(self.base, f"p{self.made}")
        results_folder(os.path.join(folder, "results"), host, run or run_id(), slurm)
        argv = [os.path.join(folder, "results"), f"--product={product}", "--submitter=unit",
                f"--out={folder}"]
        signer = None if unsigned else (signer or host)
        if signer and not fail:
            argv.append(f"--sign-key={self.keys[signer]}")
        with contextlib.redirect_stdout(io.StringIO()) as out:
            assert package_tool.run(argv) == 0
        path = out.getvalue().strip()
        if fail:
            copy = rewrite.Package.read(path)
            assert copy.fail(*fail) >= 1
            # This synthetic run's ctest entry is the check itself (no batch): it failed too.
            name = f"{fail[0]}/{fail[1]}"
            copy._edit_xml("ctest-junit.xml", lambda case: case.get("name") == name,
                           rewrite._make_failure(fail[2], ctest=True))
            os.unlink(path)
            path = copy.write(folder, sign_key=self.keys[signer] if signer else None)
        return path


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    return Lab(str(tmp_path_factory.mktemp("lab")))


def merged(tmp_path, *argv, tasks=None):
    """ci/merge's own code in this process: (exit, stdout, matrix document)."""
    out = tmp_path / f"merged-{len(list(tmp_path.iterdir()))}"
    args = [*argv, "--out", str(out), "--no-html", "--jobs", "1"]
    if tasks is not None:
        path = tmp_path / f"tasks-{len(list(tmp_path.iterdir()))}.json"
        path.write_text(json.dumps(tasks))
        args += ["--tasks", str(path)]
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        code = merge.main(args)
    merged.out = str(out)  # the last merge's folder
    document = None
    if os.path.exists(out / "matrix.json"):
        header, rows = matrix.read(str(out / "matrix.json"))
        document = {**header, "rows": list(rows)}
    return code, printed.getvalue(), document


def task(host, package, job="42", index=0):
    return {"host": host, "build": BUILD, "job_id": job, "array_task_id": index, "state": "COMPLETED",
            "exit_code": 0, "package": package, "reason": ""}


def rows_of(document, host):
    return [r for r in document["rows"] if r["host"] == host]


# --- finding 1: the signer must be allowed for the row's host ---------------

def test_another_nodes_key_cannot_fill_a_row_through_a_claimed_slurm_node(lab, tmp_path):
    """n1's key signs a package that says host n1 but claims the Slurm record
    of n9's task: before the fix it filled n9's row "signed by a key allowed for n1"."""
    slurm = {"node": "n9", "array_job_id": "42", "array_task_id": 0}
    forged = lab.package("n1", signer="n1", slurm=slurm)
    code, _, document = merged(tmp_path, "--allowed-signers", lab.signers, tasks=[task("n9", forged)])
    (row,) = rows_of(document, "n9")
    assert code == 1 and row["trust"] == "unverified" and row["cells"] == {}
    assert any(p.startswith("signer does not match host: signed by a key allowed for n1") and "not for n9" in p
               for p in row["problems"]), row["problems"]


def test_the_nodes_own_key_fills_its_row_through_its_slurm_record(lab, tmp_path):
    """The negative: n9's own key, claiming its own node: verified (the host
    name and the node name differ, as NodeHostName allows)."""
    slurm = {"node": "n9", "array_job_id": "42", "array_task_id": 0}
    genuine = lab.package("n9", signer="n9", slurm=slurm)
    _, _, document = merged(tmp_path, "--allowed-signers", lab.signers, tasks=[task("n9", genuine)])
    (row,) = rows_of(document, "n9")
    assert row["trust"] == "verified", row["problems"]
    assert row["signature"] == "signed by a key allowed for n9"


def test_ci_verify_checks_the_claimed_slurm_node_too(lab, capsys):
    forged = lab.package("n1", signer="n1", slurm={"node": "n9", "array_job_id": "1", "array_task_id": 0})
    assert verify.run([forged, "--allowed-signers", lab.signers]) == 1
    out = capsys.readouterr().out
    assert "not for n9 the Slurm node the package claims" in out, out


# --- finding 2: replays --------------------------------------------------------

def test_an_old_validly_signed_package_is_outside_the_window(lab, tmp_path):
    old = lab.package("n1", run=run_id(days_ago=30))
    tonight = lab.package("n1", fail=("Placement.ModuleToMovesParametersAndBuffers", "cpu", "broken"))
    code, printed, document = merged(tmp_path, old, tonight, "--allowed-signers", lab.signers)
    rows = {r["package"]: r for r in rows_of(document, "n1")}
    assert rows[tonight]["trust"] == "verified", rows[tonight]["problems"]
    assert rows[tonight]["counts"]["failed"] == 1 and code == 1
    assert rows[old]["trust"] == "unverified" and rows[old]["cells"] == {}
    assert "outside the night's window" in rows[old]["problems"][0] and "30 day(s)" in rows[old]["problems"][0]
    # The window is an option: a stated number of days.
    _, _, document = merged(tmp_path, old, "--allowed-signers", lab.signers, "--max-age", "40")
    assert rows_of(document, "n1")[0]["trust"] == "verified"


def test_a_run_dated_in_the_future_is_outside_the_window(lab, tmp_path):
    future = lab.package("n1", run="20990101T000000Z-0123abcd")
    _, _, document = merged(tmp_path, future, "--allowed-signers", lab.signers)
    (row,) = rows_of(document, "n1")
    assert row["trust"] == "unverified" and "after the merge" in row["problems"][0]


def test_the_newest_verified_run_wins_and_the_other_is_listed(lab, tmp_path):
    older = lab.package("n2", run=run_id(days_ago=0.5, suffix="aaaaaaaa"))
    newer = lab.package("n2", run=run_id(days_ago=0.1, suffix="bbbbbbbb"),
                        fail=("Placement.ModuleToMovesParametersAndBuffers", "cpu", "broken"))
    for order in ((older, newer), (newer, older)):   # whichever is named first
        code, printed, document = merged(tmp_path, *order, "--allowed-signers", lab.signers)
        (row,) = rows_of(document, "n2")     # a retried node's two packages: one row, the newest run's
        assert row["package"] == newer and row["trust"] == "verified" and row["counts"]["failed"] == 1
        (contested,) = document["contested"]
        assert contested["kept"] == newer and [s["package"] for s in contested["set_aside"]] == [older]
        assert contested["set_aside"][0]["why"].startswith("older verified run ")
        assert f"merge: 2 packages for n2 (2.13.0): kept the newest verified run" in printed
    # A Slurm task's row stays a row (every task is one), unverified, naming the newer run.
    _, _, document = merged(tmp_path, newer, "--allowed-signers", lab.signers, tasks=[task("n2", older)])
    rows = {r["package"]: r for r in rows_of(document, "n2")}
    assert rows[newer]["trust"] == "verified" and rows[older]["trust"] == "unverified"
    assert rows[older]["state"] == "COMPLETED"
    assert rows[older]["problems"][0].startswith("another package for host 'n2' build '2.13.0' is a newer "
                                                 "verified run")


def test_matrix_keeps_run_ids_and_history_flags_a_replayed_run(lab, tmp_path):
    package = lab.package("n1")
    history = tmp_path / "history"
    _, _, first = merged(tmp_path, package, "--allowed-signers", lab.signers, "--night", "2026-12-01")
    assert first["rows"][0]["run_id"] and first["rows"][0]["trust"] == "verified"
    os.makedirs(history / "2026-12-01")
    shutil.copy(os.path.join(merged.out, "matrix.json"), history / "2026-12-01" / "matrix.json")
    code, printed, second = merged(tmp_path, package, "--allowed-signers", lab.signers, "--night", "2026-12-02",
                                   "--history", str(history))
    (row,) = second["rows"]
    assert code == 1 and row["trust"] == "unverified"
    assert row["problems"][0].startswith(f"replayed: run {first['rows'][0]['run_id']} was already merged on "
                                         "night 2026-12-01")


# --- finding 3: only verified rows claim a host -----------------------------

def test_a_forged_package_named_first_does_not_block_the_genuine_one(lab, tmp_path):
    forged = lab.package("n1", signer="n2")          # n2's key, claiming n1
    unsigned = lab.package("n1", unsigned=True)
    genuine = lab.package("n1")
    code, _, document = merged(tmp_path, forged, unsigned, genuine, "--allowed-signers", lab.signers)
    rows = {r["package"]: r for r in rows_of(document, "n1")}
    assert rows[genuine]["trust"] == "verified", rows[genuine]["problems"]
    assert rows[forged]["trust"] == rows[unsigned]["trust"] == "unverified"
    assert not any("came first" in p or "newer verified run" in p for p in rows[genuine]["problems"])


# --- finding 4: ci/verify says what it did not check -----------------------

def test_ci_verify_without_signers_says_provenance_was_not_checked(lab, capsys):
    for package in (lab.package("n1"), lab.package("n1", unsigned=True)):
        verify.run([package])
        out = capsys.readouterr().out
        assert NOT_CHECKED in out, out
    signed = lab.package("n1")
    verify.run([signed, "--allowed-signers", lab.signers])
    out = capsys.readouterr().out
    assert NOT_CHECKED not in out and "provenance: signed by a key" in out and "allows for n1" in out


def test_require_signature_and_an_empty_signers_file_fail(lab, capsys):
    package = lab.package("n1")
    assert verify.main([package, "--require-signature"]) == 2
    assert "--require-signature: no --allowed-signers given" in capsys.readouterr().err
    assert verify.main([package, "--allowed-signers", ""]) == 2
    err = capsys.readouterr().err
    assert "--allowed-signers is empty" in err and len(err.strip().splitlines()) == 1
    assert verify.main([package, "--allowed-signers", lab.signers, "--require-signature"]) in (0, 1)


def test_merge_refuses_an_empty_allowed_signers(lab, tmp_path, capsys):
    """Issue 35: `--allowed-signers "$TDC_ALLOWED_SIGNERS"` with the variable unset."""
    code, _, document = merged(tmp_path, lab.package("n1"), "--allowed-signers", "")
    assert code == 2 and document is None
    assert "--allowed-signers is empty" in capsys.readouterr().err


# --- finding 5: package text reaches the terminal escaped -------------------

HOSTILE_TEXT = "boom\nVERIFIED: evil.tar.gz: level 3\x1b[2K\x1b]0;owned\x07\x1b[1A"


def with_hostile_message(lab, folder, package, check=None):
    """The package's failed test's message in summary.json (JUnit cannot hold
    an escape character; the summary can, and verify reads messages there)."""
    copy = rewrite.Package.read(package)
    for test in copy.json("summary.json")["tests"]:
        if test["status"] == "failed":
            test["message"] = HOSTILE_TEXT
            if check:
                test["check"] = check
    return copy.write(folder, sign_key=lab.keys["n1"], name=f"hostile-{lab.made}")


def test_a_hostile_failure_message_prints_on_one_line(lab, tmp_path, capsys):
    # ci/package refuses C0 controls in a STATEMENT; a C1 CSI and a bidi override get through.
    package = with_hostile_message(lab, str(tmp_path), lab.package(
        "n1", product="FORGED\x9b2J\u202e", fail=("Placement.ModuleToMovesParametersAndBuffers", "cpu", "x")))
    assert verify.run([package]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out and "\u202e" not in out
    assert not any(line.startswith("VERIFIED") for line in out.splitlines()), out
    assert "boom\\nVERIFIED: evil.tar.gz" in out and "\\x1b[2K" in out


def test_merge_prints_package_text_escaped(lab, tmp_path):
    package = with_hostile_message(lab, str(tmp_path), lab.package(
        "n1", fail=("Placement.ModuleToMovesParametersAndBuffers", "cpu", "x")), check="Evil\x1b]0;title\x07.Check")
    _, printed, document = merged(tmp_path, package)
    assert document["rows"][0]["trust"] == "verified"
    assert "\x1b" not in printed and "\x07" not in printed and "Evil\\x1b]0;title\\x07.Check" in printed


# --- finding 6: one package must not break the night ------------------------

@pytest.mark.parametrize("host", ["n\x009", "caf\udce9", "n1\nVERIFIED", "n1,n2", "\x1b]0;x\x07"])
def test_a_hostile_host_name_is_one_unverified_row_and_the_rest_merge(lab, tmp_path, host):
    good = lab.package("n2")
    base = rewrite.Package.read(lab.package("n1"))
    base.json("context.json")["host"] = host
    raw = base.copy()
    raw._flush()
    # json.dumps escapes the NUL and the surrogate as \u0000 and \udce9, as an attacker would write them.
    bad = raw.write(str(tmp_path), sign_key=lab.keys["n1"], name="hostile-host")
    for extra in ([], ["--allowed-signers", lab.signers]):
        out = tmp_path / f"o{len(extra)}"
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            code = merge.main([bad, good, "--out", str(out), "--jobs", "1", *extra])
        assert code == 1, printed.getvalue()
        header, rows = matrix.read(str(out / "matrix.json"))
        rows = {r["package"]: r for r in rows}
        assert rows[good]["trust"] == "verified", rows[good]["problems"]
        assert rows[bad]["trust"] == "unverified" and rows[bad]["cells"] == {}
        assert any(p.startswith(("not a host name:", "summary.json is missing", "context.json is missing"))
                   for p in rows[bad]["problems"]), rows[bad]["problems"]
        assert sorted(os.listdir(out)) == (["junit.xml", "matrix.json"] if "--no-html" in extra
                                           else sorted(os.listdir(out)))
        assert not [n for n in os.listdir(out) if n.endswith((".tmp", ".body"))]
        assert "\x00" not in printed.getvalue() and "\x1b" not in printed.getvalue()


def test_ci_verify_with_signers_refuses_a_nul_host_with_a_verdict(lab, capsys):
    base = rewrite.Package.read(lab.package("n1"))
    base.json("context.json")["host"] = "n\x001"
    folder = os.path.dirname(lab.package("n2"))
    bad = base.write(folder, sign_key=lab.keys["n1"], name="nul-host")
    assert verify.main([bad, "--allowed-signers", lab.signers]) == 1
    out = capsys.readouterr()
    assert "not a host name: context.json's host 'n\\x001'" in out.out and "internal error" not in out.err


# --- finding 7 and issue 35: nights -----------------------------------------

@pytest.mark.parametrize("night", ["2026-13-45", "0000-00-00", "2026-02-30", "yesterday"])
def test_a_night_that_is_no_date_is_one_line_and_exit_2(lab, tmp_path, capsys, night):
    code, _, document = merged(tmp_path, lab.package("n1"), "--night", night)
    err = capsys.readouterr().err
    assert code == 2 and document is None and len(err.strip().splitlines()) == 1 and "real date" in err


def test_merge_says_what_changed_against_which_night_and_what_it_skipped(lab, tmp_path):
    history = tmp_path / "history"
    os.makedirs(history / "2026-12-01")
    _, _, first = merged(tmp_path, lab.package("n1"), "--night", "2026-12-01")
    shutil.copy(os.path.join(merged.out, "matrix.json"), history / "2026-12-01" / "matrix.json")
    (history / "broken.json").write_text('{"truncated": ')
    failing = lab.package("n1", fail=("Placement.ModuleToMovesParametersAndBuffers", "cpu", "broken"))
    code, printed, document = merged(tmp_path, failing, "--night", "2026-12-02", "--history", str(history))
    assert code == 1 and document["history"]["compared_with"] == "2026-12-01"
    assert "merge: vs 2026-12-01: 1 newly failing, 0 fixed" in printed, printed
    assert f"merge: history: skipped {history / 'broken.json'}: " in printed
    assert [s["path"] for s in document["history"]["skipped"]] == [str(history / "broken.json")]


def test_nothing_reads_newly_failing_when_no_night_was_compared(lab, tmp_path):
    failing = lab.package("n1", fail=("Placement.ModuleToMovesParametersAndBuffers", "cpu", "broken"))
    _, printed, document = merged(tmp_path, failing)
    assert "no earlier night compared (no --history)" in printed and "newly failing," not in printed
    empty = tmp_path / "empty-history"
    os.makedirs(empty)
    _, printed, document = merged(tmp_path, failing, "--history", str(empty))
    assert document["history"]["compared_with"] is None and document["history"]["newly_failing"] == []
    assert "no earlier night compared" in printed and "newly failing," not in printed


def test_the_window_rule_is_stated_and_run_times_parse():
    from tdc.fleet import window
    assert window.run_time("20261201T221500Z-0123abcd").isoformat() == "2026-12-01T22:15:00+00:00"
    assert window.run_time("20261399T000000Z-0123abcd") is None and window.run_time("") is None
    rule = window.Window(3).rule()
    assert "3 day(s)" in rule


def test_the_page_is_written_whole_or_not_at_all(tmp_path):
    """A character no UTF-8 holds is written escaped, and a failed write leaves no fleet.html.tmp."""
    from tdc.report import render
    path = render.write(str(tmp_path / "fleet.html"), "<p>caf\udce9</p>")
    assert open(path, encoding="utf-8").read() == "<p>caf\\udce9</p>"
    with pytest.raises(TypeError):
        render.write(str(tmp_path / "other.html"), None)
    assert sorted(os.listdir(tmp_path)) == ["fleet.html"]


def test_the_new_fields_match_the_schema(lab, tmp_path):
    jsonschema = pytest.importorskip("jsonschema", reason="Debian's python3-jsonschema")
    history = tmp_path / "history"
    os.makedirs(history)
    (history / "broken.json").write_text("{")
    _, _, document = merged(tmp_path, lab.package("n1", run=run_id(days_ago=0.2)), lab.package("n1"),
                            lab.package("n2", run=run_id(days_ago=9)), "--history", str(history))
    with open(os.path.join(ROOT, "ci", "tdc", "schemas", "matrix.schema.json")) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    assert [e.message for e in validator.iter_errors(document)] == []
    assert document["contested"] and document["history"]["skipped"] and document["window"]
    document["rows"][0]["run_id"] = 7
    assert not validator.is_valid(document)


@pytest.mark.parametrize("name", ["matrix.json.tmp", "junit.xml.body", "junit.xml.tmp"])
def test_a_full_disk_names_the_file_and_leaves_no_temporary_file(lab, tmp_path, capsys, name):
    """Issue 34, finding 12: "No space left on device", and which file."""
    out = tmp_path / "out"
    os.makedirs(out)
    os.symlink("/dev/full", out / name)   # every write there fails as on a full disk
    code = merge.main([lab.package("n1"), "--out", str(out), "--no-html", "--jobs", "1"])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot write {out / name}: No space left on device" in err, err
    assert len(err.strip().splitlines()) == 1
    assert [n for n in os.listdir(out) if n != "matrix.json"] == []   # a matrix written whole may stay


def test_merge_says_how_many_older_nights_it_did_not_read(lab, tmp_path):
    history = tmp_path / "history"
    for day in range(1, 5):
        night = f"2026-11-0{day}"
        os.makedirs(history / night)
        writer = matrix.Writer(str(history / night / "matrix.json"),
                               {"night": night, "generated_at": f"{night}T06:00:00Z", "provenance": "x"})
        writer.close({"totals": {}})
    _, printed, document = merged(tmp_path, lab.package("n1"), "--history", str(history), "--flaky-window", "2",
                                  "--stale-after", "1", "--night", "2026-11-05")
    assert document["history"]["nights"] == ["2026-11-03", "2026-11-04"] and document["history"]["older_nights"] == 2
    assert "merge: history: 2 older night(s) not read (the last 2 are)" in printed
    assert "merge: vs 2026-11-04: 0 newly failing, 0 fixed" in printed
