"""A recorded verdict as an adapter trusts it (tdc.recorded, tdc.fingerprint):
healthy only while young and measured on the node's configuration now; each
case that must not be trusted is shown read as unknown."""
import json

from tdc import fingerprint, recorded, verdict

ENV = {"TDC_LOOPBACK_DEVICES": "2", "TDC_BACKEND_LIBS": "/nonexistent/libtdc_loopback.so", "HOME": "/root"}


def healthy(tmp_path, env=ENV, finished=None, message="12 checks passed"):
    path = tmp_path / "last.json"
    document = {"schema_version": "1.0", "verdict": "healthy", "action": "none", "message": message,
                "level": 1, "host": "n1", "run_id": None, "seconds": 1.0, "failing": [], "devices": {},
                "counted": {"own_passed": 1, "own_skipped": 0, "failed": 0, "twin_passed": 0,
                            "missing_checks": []},
                "started": finished or verdict.now_iso(), "finished": finished or verdict.now_iso(),
                "tdc_version": "0", "fingerprint": fingerprint.of(env, "")}
    path.write_text(json.dumps(document))
    return str(path)


def test_a_young_verdict_on_the_same_configuration_is_trusted(tmp_path):
    document, age = recorded.trusted(healthy(tmp_path), fingerprint.of(ENV, ""), 600)
    assert document["verdict"] == "healthy" and 0 <= age < 60


def test_another_device_setting_makes_the_old_verdict_unknown(tmp_path):
    now = fingerprint.of(dict(ENV, TDC_LOOPBACK_DEVICES="8"), "")
    document, _ = recorded.trusted(healthy(tmp_path), now, 600)
    assert document["verdict"] == "unknown" and "TDC_LOOPBACK_DEVICES" in document["message"]
    # A per-run setting (TDC_TEST_TIMEOUT, "!" in the list) is not the device's.
    same = fingerprint.of(dict(ENV, TDC_TEST_TIMEOUT="9"), "")
    assert recorded.trusted(healthy(tmp_path), same, 600)[0]["verdict"] == "healthy"


def test_an_old_verdict_is_unknown(tmp_path):
    path = healthy(tmp_path, finished="2026-01-01T00:00:00+00:00")
    document, age = recorded.trusted(path, fingerprint.of(ENV, ""), 600)
    assert document["verdict"] == "unknown" and "old" in document["message"] and age > 600


def test_an_interrupted_run_a_missing_or_damaged_verdict_is_unknown(tmp_path):
    now = fingerprint.of(ENV, "")
    path = healthy(tmp_path, message="interrupted: the run started at X did not finish")
    assert recorded.trusted(path, now, 600)[0]["verdict"] == "unknown"
    document, age = recorded.trusted(str(tmp_path / "none.json"), now, 600)
    assert document["message"] == "no verdict yet" and age is None
    (tmp_path / "bad.json").write_text('{"verdict": "healthy"')
    assert recorded.trusted(str(tmp_path / "bad.json"), now, 600)[0]["verdict"] == "unknown"
    undated = json.loads(open(healthy(tmp_path)).read())
    del undated["finished"]
    (tmp_path / "undated.json").write_text(json.dumps(undated))
    assert recorded.trusted(str(tmp_path / "undated.json"), now, 600)[0]["verdict"] == "unknown"


def test_nvidia_uuids_are_read_where_the_driver_lists_them(tmp_path):
    gpu = tmp_path / "0000:3b:00.0"
    gpu.mkdir()
    (gpu / "information").write_text("Model: H100\nGPU UUID: GPU-1234\n")
    assert fingerprint.nvidia_uuids(str(tmp_path)) == {"0000:3b:00.0": "GPU-1234"}
