"""A full disk, for real: a 64 KiB tmpfs filled to the last page. Every tool
that writes an output there says in one line which file it could not
write, exits 2 and leaves no partial file (issue 34, finding 12: "No space
left on device" without naming the file). Mounting needs root (or
CAP_SYS_ADMIN): elsewhere these are skipped, saying so."""
import os
import subprocess
import tempfile

import pytest

from fleetsim import synthetic_run
from tdc import package as package_tool, summarize
from tdc.errors import InputError
from tdc.fleet import merge, signing


class Tmpfs:
    def __init__(self, path):
        self.path = str(path)

    def fill(self):
        """Takes every free byte: the next write anywhere on it fails."""
        with open(os.path.join(self.path, "filler"), "wb", buffering=0) as handle:
            while True:
                try:
                    handle.write(b"\0" * 4096)
                except OSError:
                    break

    def left(self):
        """What is on it besides the filler and what the test put there first."""
        return sorted(n for n in os.listdir(self.path) if n not in ("filler", "before"))


@pytest.fixture
def disk(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    run = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tdc-full-disk", str(mount)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {run.stderr.strip()}")
    try:
        yield Tmpfs(mount)
    finally:
        if subprocess.run(["umount", str(mount)]).returncode != 0:
            subprocess.run(["umount", "--lazy", str(mount)], check=True)


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    return synthetic_run.results_folder(str(tmp_path_factory.mktemp("run") / "results"), host="n1")


def one_line(capsys):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_summarize(disk, run_folder, capsys):
    disk.fill()
    out = os.path.join(disk.path, "summary.json")
    assert summarize.main(["--junit", f"{run_folder}/junit.xml", "--context", f"{run_folder}/context.json",
                           "--out", out, "--quiet"]) == 2
    assert one_line(capsys) == f"summarize: cannot write summary file {out}: No space left on device"
    assert disk.left() == []


def test_package_leaves_no_partial_package(disk, run_folder, capsys):
    disk.fill()
    assert package_tool.main([run_folder, "--product=p", "--submitter=s", f"--out={disk.path}"]) == 2
    line = one_line(capsys)
    assert line.startswith(f"package: cannot write the package {disk.path}/tdc-n1-") and \
        line.endswith(".tar.gz: No space left on device"), line
    assert disk.left() == []   # a partial package would read as damaged, and refuse the next try


def test_package_staging_on_a_full_disk_names_the_file_it_writes(disk, run_folder, capsys, monkeypatch):
    """The package is staged in the temporary folder first: a full one is named, not the file read."""
    monkeypatch.setattr(tempfile, "tempdir", disk.path)
    disk.fill()
    out = os.path.join(os.path.dirname(run_folder), "packages")
    assert package_tool.main([run_folder, "--product=p", "--submitter=s", f"--out={out}"]) == 2
    line = one_line(capsys)
    assert line.startswith(f"package: cannot write file {disk.path}/") and \
        line.endswith(": No space left on device") and run_folder not in line, line
    assert disk.left() == [] and os.listdir(out) == []


def test_signing_names_the_signature_it_could_not_write(disk, tmp_path):
    key = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "n1", "-f", str(key)], check=True)
    manifest = os.path.join(disk.path, "before")
    with open(manifest, "w") as handle:
        handle.write("0" * 64 + "  context.json\n")
    disk.fill()
    with pytest.raises(InputError, match=f"cannot write signature {disk.path}/MANIFEST.sig: "
                                                   "No space left on device"):
        signing.sign(manifest, str(key))
    assert disk.left() == []


@pytest.fixture(scope="module")
def package(run_folder, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("package"))
    assert package_tool.run([run_folder, "--product=p", "--submitter=s", f"--out={out}"]) == 0
    [name] = os.listdir(out)
    return os.path.join(out, name)


def test_merge(disk, package, capsys):
    out = os.path.join(disk.path, "night")
    disk.fill()
    assert merge.main([package, "--out", out, "--jobs", "1", "--no-html"]) == 2
    assert one_line(capsys) == f"merge: cannot write {out}/matrix.json.tmp: No space left on device"
    assert os.listdir(out) == []


def test_merge_names_the_page_it_could_not_write(package, capsys, tmp_path):
    """The matrix and junit.xml fit, the page does not: /dev/full takes its
    temporary file's writes (no mount needed)."""
    pytest.importorskip("jinja2", reason="Debian's python3-jinja2 (fleet.html)")
    out = tmp_path / "night"
    out.mkdir()
    os.symlink("/dev/full", out / "fleet.html.tmp")
    assert merge.main([package, "--out", str(out), "--jobs", "1"]) == 2
    assert one_line(capsys) == f"merge: cannot write {out}/fleet.html: No space left on device"
    assert sorted(os.listdir(out)) == ["junit.xml", "matrix.json"]


def test_run_report_names_the_page_it_could_not_write(run_folder, capsys, tmp_path):
    """tdc report on a full disk: /dev/full takes the page's temporary file."""
    pytest.importorskip("jinja2", reason="Debian's python3-jinja2 (report.html)")
    from tdc.report import run as run_report
    out = tmp_path / "page"
    out.mkdir()
    os.symlink("/dev/full", out / "report.html.tmp")
    assert run_report.main([run_folder, "--out", str(out)]) == 2
    assert one_line(capsys) == f"report: cannot write {out}/report.html: No space left on device"
    assert os.listdir(out) == []
