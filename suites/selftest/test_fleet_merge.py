"""ci/merge on a small real fleet (fleet_fixtures.py: real runs and real
packages, one node slowed, one faulty on the first night, forgeries):
the matrix against its JSON Schema (Debian's python3-jsonschema), the merged
JUnit read by a third-party reader (python3-junitparser), provenance, Slurm
task rows, history over three nights, the performance outliers.

  TDC_FLEET_FIXTURES=DIR /usr/bin/python3 -m pytest suites/selftest/test_fleet_merge.py"""
import json
import os
import subprocess

import pytest

from tdc import ROOT
from tdc.fleet import matrix

jsonschema = pytest.importorskip("jsonschema", reason="Debian's python3-jsonschema")
junitparser = pytest.importorskip("junitparser", reason="Debian's python3-junitparser")

FIXTURES = os.environ.get("TDC_FLEET_FIXTURES", "")
MERGE = os.path.join(ROOT, "ci", "merge")
VERIFY = os.path.join(ROOT, "ci", "verify")
SCHEMA = os.path.join(ROOT, "ci", "tdc", "schemas", "matrix.schema.json")


@pytest.fixture(scope="module")
def fleet():
    path = os.path.join(FIXTURES, "fleet.json")
    if not os.path.isfile(path):
        pytest.fail(f"no fleet fixtures at {FIXTURES!r}: run fleet_fixtures.py (ctest fixture "
                    "selftest.fleet.make_packages)")
    with open(path) as f:
        return json.load(f)


def merge(*args):
    run = subprocess.run([MERGE, *args], capture_output=True, text=True, timeout=600)
    return run.returncode, run.stdout, run.stderr


def tasks_file(fleet, night, extra, folder, nodes_of=None):
    """Night `night`'s tasks: the nodes of night nodes_of (default the same),
    each with its package for this night (a new run id each night: fleet_fixtures.py)."""
    rows = [{"host": fleet["nodes"][name]["host"], "build": fleet["libtorch"], "job_id": "4242", "array_task_id": i,
             "state": "FAILED" if name == "n4-faulty" else "COMPLETED", "exit_code": 1 if name == "n4-faulty" else 0,
             "package": fleet["nodes"][name]["packages"][str(night)], "reason": ""}
            for i, name in enumerate(fleet["nights"][str(nodes_of or night)])]
    rows += extra
    path = os.path.join(folder, f"tasks-{night}.json")
    with open(path, "w") as f:
        json.dump(rows, f)
    return path


@pytest.fixture(scope="module")
def nights(fleet, tmp_path_factory):
    """Three nights merged into history/<night>/, the second with the Slurm
    task list, the forgeries and two tasks that left no package."""
    base = tmp_path_factory.mktemp("nights")
    history = base / "history"
    signers = os.path.join(FIXTURES, "allowed_signers")
    made = {}
    for night, date in ((1, "2026-01-01"), (2, "2026-01-02"), (3, "2026-01-03")):
        extra = []
        if night >= 2:
            extra = [{"host": "n7", "build": fleet["libtorch"], "job_id": "4242", "array_task_id": 7, "state": "TIMEOUT",
                      "exit_code": None, "package": None, "reason": "Slurm: TIMEOUT after 00:30:00"},
                     {"host": "n8", "build": fleet["libtorch"], "job_id": "4242", "array_task_id": 8, "state": "NODE_FAIL",
                      "exit_code": None, "package": None, "reason": "Slurm: NODE_FAIL"}]
        tasks = tasks_file(fleet, night, extra, str(base), nodes_of=2 if night == 3 else night)
        forged = list(fleet["forged"].values()) if night == 2 else []
        out = base / f"merged-{night}"
        args = [*forged, "--out", str(out), "--tasks", tasks, "--allowed-signers", signers, "--night", date,
                "--stale-after", "1"]
        if night > 1:
            args += ["--history", str(history)]
        code, stdout, stderr = merge(*args)
        made[night] = {"code": code, "stdout": stdout, "stderr": stderr, "out": str(out)}
        assert code in (0, 1), f"night {night}: ci/merge exited {code}: {stderr}"
        os.makedirs(history / date)
        (history / date / "matrix.json").write_bytes((out / "matrix.json").read_bytes())
    return made


def document(night):
    header, rows = matrix.read(os.path.join(night["out"], "matrix.json"))
    return {**header, "rows": list(rows)}


def test_every_night_matches_the_schema_and_a_damaged_matrix_does_not(nights):
    with open(SCHEMA) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    for night in nights.values():
        with open(os.path.join(night["out"], "matrix.json")) as f:
            errors = list(validator.iter_errors(json.load(f)))
        assert errors == [], errors[0].message if errors else ""
    doc = document(nights[2])
    doc["rows"][0]["cells"]["loopback:0"] = {"Placement.X": {"status": "ok", "seconds": 0, "tests": 1}}
    assert not validator.is_valid(doc)


def test_every_task_is_a_row_and_those_without_a_package_show_their_state(nights):
    doc = document(nights[2])
    states = {r["host"]: (r["state"], r["trust"], r["reason"]) for r in doc["rows"] if r["state"]}
    assert states["n7"] == ("TIMEOUT", "no package", "Slurm: TIMEOUT after 00:30:00")
    assert states["n8"][:2] == ("NODE_FAIL", "no package")
    assert {"n1", "n2", "n3", "n4", "n5"} <= set(states)
    assert doc["totals"]["no_package"] == 2
    signatures = {g["signature"]: g["count"] for g in doc["signatures"]}
    assert signatures["no package: TIMEOUT"] == 1 and signatures["no package: NODE_FAIL"] == 1


def test_genuine_signed_packages_verify_and_forgeries_do_not(nights, fleet):
    doc = document(nights[2])
    by_package = {os.path.basename(r["package"]): r for r in doc["rows"] if r["package"]}
    for name in ("n1", "n2", "n3", "n4", "n5"):
        row = by_package[os.path.basename(fleet["nodes"][name]["packages"]["2"])]
        assert row["trust"] == "verified", (name, row["problems"])
        assert row["signature"] == f"signed by a key allowed for {fleet['nodes'][name]['host']}"
    expected = {"forged-kept-signature": "bad signature:",
                "forged-resigned-by-n2": "signer does not match host: signed by a key allowed for n2",
                "forged-unsigned": "unsigned:",
                "forged-edited-unmanifested": "edited file: summary.json"}
    for name, why in expected.items():
        row = by_package[f"{name}.tar.gz"]
        assert row["trust"] == "unverified" and row["cells"] == {} and row["benchmarks"] == {}, name
        assert any(p.startswith(why) for p in row["problems"]), (name, row["problems"])


def test_ci_verify_checks_the_signer_too(fleet):
    signers = os.path.join(FIXTURES, "allowed_signers")
    genuine = subprocess.run([VERIFY, fleet["nodes"]["n1"]["package"], "--allowed-signers", signers],
                             capture_output=True, text=True, timeout=300)
    assert not any(l.startswith(("problem: unsigned", "problem: bad signature", "problem: signer"))
                   for l in genuine.stdout.splitlines()), genuine.stdout
    forged = subprocess.run([VERIFY, fleet["forged"]["resigned-by-n2"], "--allowed-signers", signers],
                            capture_output=True, text=True, timeout=300)
    assert forged.returncode == 1
    assert "problem: signer does not match host: signed by a key allowed for n2" in forged.stdout
    # Without --allowed-signers the forged host verifies as well as any: the case signing closes,
    # and the verdict says provenance was not checked (issue 34, finding 4).
    unsigned_check = subprocess.run([VERIFY, fleet["forged"]["resigned-by-n2"]], capture_output=True,
                                    text=True, timeout=300)
    assert "problem: signer" not in unsigned_check.stdout
    assert "provenance: not checked (no --allowed-signers): integrity only" in unsigned_check.stdout


def test_the_slowed_node_is_the_only_outlier(nights, fleet):
    doc = document(nights[2])
    flagged = {(o["host"], o["device"]) for o in doc["outliers"]["devices"]}
    assert {host for host, _ in flagged} == {fleet["delayed"]}, doc["outliers"]["devices"]
    assert doc["outliers"]["series_checked"] > 0
    for line in doc["outliers"]["devices"]:
        assert line["message"].startswith(f"{line['device']} on {fleet['delayed']}: ")
        assert line["ratio"] <= 0.8 and line["peers"] >= 3


def test_the_faulty_night_groups_by_signature_and_is_judged(nights, fleet):
    doc = document(nights[1])
    failed = [g for g in doc["signatures"] if g["outcome"] == "failed"]
    assert len(failed) == 1 and failed[0]["count"] == 1 and failed[0]["hosts"] == [f"n4 ({fleet['libtorch']})"]
    assert f"{fleet['device_type']}:0" in failed[0]["title"]
    kinds = {f["check"]: f["kind"] for f in doc["findings"]}
    assert kinds and set(kinds.values()) == {"node fault"}, doc["findings"]


def test_history_sees_the_fix_the_staleness_and_skips_another_major(nights, fleet, tmp_path):
    second = document(nights[2])["history"]
    fixed_hosts = {h for item in second["fixed"] for h in item["hosts"]}
    assert fixed_hosts == {f"n4 ({fleet['libtorch']})"}, second["fixed"]
    assert second["nights"] == ["2026-01-01"]
    third = document(nights[3])["history"]
    assert [(s["host"], s["last_seen"]) for s in third["stale_hosts"]] == [("n6", "2026-01-01")]
    broken = tmp_path / "history" / "2026-01-02"
    os.makedirs(broken)
    text = open(os.path.join(nights[2]["out"], "matrix.json")).read()
    (broken / "matrix.json").write_text(text.replace('"schema_version":"1.0"', '"schema_version":"2.0"', 1))
    assert "merge: vs 2026-01-01: " in nights[2]["stdout"], nights[2]["stdout"]
    # A matrix of another major version is one warning naming it, not a lost night (issue 34, finding 7).
    code, stdout, stderr = merge(os.path.join(FIXTURES, "forged", "forged-unsigned.tar.gz"), "--out",
                                 str(tmp_path / "out"), "--history", str(tmp_path / "history"), "--night",
                                 "2026-01-03", "--no-html")
    assert code in (0, 1) and stderr == "" and os.path.isfile(tmp_path / "out" / "matrix.json")  # unsigned: fine without signers
    assert f"merge: history: skipped {broken / 'matrix.json'}: " in stdout
    assert "schema_version '2.0'; this TDC reads 1.x: refused" in stdout


def test_the_merged_junit_reads_in_junitparser_with_a_suite_per_row(nights, fleet):
    doc = document(nights[2])
    xml = junitparser.JUnitXml.fromfile(os.path.join(nights[2]["out"], "junit.xml"))
    suites = {suite.name: suite for suite in xml}
    assert len(suites) == doc["totals"]["rows"]
    for row in doc["rows"]:
        assert f"tdc/{row['host']}/{row['build']}" in suites
    build = fleet["libtorch"]
    assert f"tdc/n9/{build} [forged-unsigned.tar.gz]" in suites or f"tdc/n9/{build} [forged-kept-signature.tar.gz]" in suites
    cases = [case for suite in xml for case in suite]
    failed = [c for c in cases if c.result and isinstance(c.result[0], junitparser.Failure)]
    errors = [c for c in cases if c.result and isinstance(c.result[0], junitparser.Error)]
    skipped = [c for c in cases if c.result and isinstance(c.result[0], junitparser.Skipped)]
    totals = doc["totals"]
    assert len(failed) == totals["failed"]
    assert len(errors) == totals["unverified"] + totals["no_package"]
    assert len(skipped) == totals["skipped"] + totals["known_failure"]
    timeout = suites[f"tdc/n7/{build}"]
    assert [c.result[0].message for c in timeout][0].startswith("no package: TIMEOUT")


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    for args, message in (([], "nothing to merge"),
                          (["/nonexistent.tar.gz"], "no such package"),
                          (["--tasks", "/nonexistent.json"], "cannot read"),
                          (["--allowed-signers", "/dev/null", "--tasks", "/nonexistent.json"], "lists no signer"),
                          (["--night", "yesterday", "--tasks", "/x"], "expected YYYY-MM-DD")):
        code, _, stderr = merge(*args, "--out", str(tmp_path / "o"))
        assert code == 2 and len(stderr.strip().splitlines()) == 1 and message in stderr, (args, stderr)


def test_a_rewritten_package_stays_trusted_and_shows_what_was_injected(fleet, tmp_path):
    """What the scale simulation relies on (fleetsim.rewrite): a real package
    renamed, re-modelled, given a failure and re-signed verifies as the new host,
    its only problem the injected failure."""
    from fleetsim import rewrite
    from tdc.fleet import packages
    package = rewrite.Package.read(fleet["nodes"]["n1"]["package"])
    package.set_host("n9")
    kind = fleet["device_type"]
    package.set_devices("NVIDIA H100 80GB HBM3", "575.51", types={kind})
    assert package.fail("Placement.RoundTrip16MiBIsExact", f"{kind}:1", "3 of 4194304 elements differ") >= 1
    path = package.write(str(tmp_path), sign_key=os.path.join(FIXTURES, "keys", "n9"))
    opened = packages.open_package(path, os.path.join(FIXTURES, "allowed_signers"))
    assert opened.trust_problems == [] and opened.host == "n9"
    problems = [p for p in opened.qualification_problems if not p.startswith("dirty tree")]
    assert f"failed check: Placement.RoundTrip16MiBIsExact/{kind}_1: 3 of 4194304 elements differ" in problems
    assert all("Placement.RoundTrip16MiBIsExact" in p and "3 of 4194304 elements differ" in p
               for p in problems), problems
    row = matrix.row("n9", fleet["libtorch"], None, opened)
    assert row["run_id"] == opened.run_id
    assert row["cells"][f"{kind}:1"]["Placement.RoundTrip16MiBIsExact"]["status"] == "failed"
    assert row["devices"][f"{kind}:1"]["name"] == "NVIDIA H100 80GB HBM3"
