"""ci/slurm/submit refuses, before it asks Slurm anything, each value that
would otherwise fail the whole night hours later (issue 34, finding 10):
one line on stderr, exit 2. (The Slurm cluster itself: fleet_cluster.py.)"""
import pytest

from tdc.fleet import slurm_submit


@pytest.mark.parametrize("argv, message", [
    (["--product=A\nlevel: 3"], "--product: 'A\\nlevel: 3' holds a newline or control character"),
    (["--submitter=B\x1b[2J"], "--submitter: 'B\\x1b[2J' holds a newline or control character"),
    (["--product="], "--product is empty"),
    (["--history=/nonexistent"], "--history=/nonexistent: not a folder"),
    (["--backend-lib=/nonexistent.so"], "--backend-lib=/nonexistent.so: no such file"),
    (["--time=abc"], "--time='abc': not a Slurm time limit"),
    (["--time=1:2:3:4"], "not a Slurm time limit"),
    (["--gpus=x"], "--gpus='x': expected auto or a count"),
    (["--gpus=\u00b2"], "expected auto or a count"),          # str.isdigit() says yes; int() says no
    (["--gpus=99999"], "expected auto or a count (0..1024)"),
    (["--max-running=0"], "--max-running=0: expected 1..100000"),
    (["--max-running=1000000000"], "expected 1..100000"),
])
def test_a_bad_value_is_one_line_before_slurm_is_asked(tmp_path, capsys, monkeypatch, argv, message):
    asked = []
    monkeypatch.setattr(slurm_submit, "run", lambda args: asked.append(args) or "")
    code = slurm_submit.main([f"--results={tmp_path}/r", f"--build-root={tmp_path}/b", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert asked == []


@pytest.mark.parametrize("limit", ["30", "30:00", "2:30:00", "1-0", "1-12:00", "1-12:00:00", "UNLIMITED"])
def test_slurm_time_limits_are_accepted(limit):
    assert slurm_submit.TIME_LIMIT.match(limit)


def test_good_values_pass_the_checks(tmp_path):
    """The negative: nothing refused that Slurm and the tasks accept."""
    (tmp_path / "h").mkdir()
    lib = tmp_path / "lib.so"
    lib.write_bytes(b"")
    args = slurm_submit.arguments([f"--results={tmp_path}", "--build-root=/b", f"--history={tmp_path}/h",
                                   f"--backend-lib={lib}", "--time=1:00:00", "--gpus=8", "--max-running=50",
                                   "--product=H100 node, driver 575", "--submitter=lab"])
    slurm_submit.check_inputs(args)
