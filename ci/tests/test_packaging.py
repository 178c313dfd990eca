"""tdc.packaging: the STATEMENT cannot be injected, and a package is read
safely or not at all."""
import gzip
import io
import os
import tarfile

import pytest

from tdc import packaging
from tdc.errors import InputError


def statement(**changes):
    fields = {"product": "X1", "submitter": "lab", "level": 1, "suite_version": "1+abc",
              "run_id": "20260101T000000Z-00000000", "compatibility": "", "date": "20260101"}
    fields.update(changes)
    return packaging.statement_text(fields)


@pytest.mark.parametrize("field, value, message", [
    ("submitter", "B\nproduct: Other", "newline or control character"),
    ("product", "X\r", "newline or control character"),
    ("compatibility", "1.0\nlevel: 3", "newline or control character"),
    ("product", "", "--product is empty"),
    ("product", "x" * 300, "longer than"),
])
def test_statement_refuses_injection(field, value, message):
    with pytest.raises(InputError, match=message):
        statement(**{field: value})


@pytest.mark.parametrize("text, problem", [
    ("product: A\nproduct: B\n", "gives product twice"),
    ("product: A\nflavour: mint\n", "with a known field"),
    ("no colon here\n", "with a known field"),
])
def test_statement_parser_names_every_problem(text, problem):
    problems = []
    packaging.parse_statement(statement() + text, problems)
    assert any(problem in p for p in problems)


def test_statement_round_trip():
    problems = []
    assert packaging.parse_statement(statement(), problems)["submitter"] == "lab" and not problems


def tar_bytes(members):
    """members: (TarInfo, bytes or None)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in members:
            info.size = len(data) if data is not None else 0
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


def member(name, data=b"x", kind=tarfile.REGTYPE, link=""):
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info, data if kind == tarfile.REGTYPE else None


def write_package(tmp_path, data, name="p.tar.gz"):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


GOOD = [member("pkg/", kind=tarfile.DIRTYPE), member("pkg/STATEMENT", b"product: x\n")]


def test_extracts_a_good_package(tmp_path):
    stage = packaging.extract(write_package(tmp_path, gzip.compress(tar_bytes(GOOD))), str(tmp_path / "x"))
    assert open(os.path.join(stage, "STATEMENT")).read() == "product: x\n"


@pytest.mark.parametrize("members, message", [
    (GOOD + [member("pkg/../escape")], "escapes the package"),
    (GOOD + [member("/etc/passwd")], "escapes the package"),
    (GOOD + [member("pkg/gtest/passwd.xml", kind=tarfile.SYMTYPE, link="/etc/passwd")], "a link"),
    (GOOD + [member("pkg/hard", kind=tarfile.LNKTYPE, link="pkg/STATEMENT")], "a link"),
    (GOOD + [member("pkg/fifo", kind=tarfile.FIFOTYPE)], "a link, device or FIFO"),
    (GOOD + [member("pkg/STATEMENT", b"product: other\n")], "twice"),
    (GOOD + [member("other/file")], "one top folder"),
])
def test_refuses_hostile_members(tmp_path, members, message):
    package = write_package(tmp_path, gzip.compress(tar_bytes(members)))
    with pytest.raises(InputError, match=message):
        packaging.extract(package, str(tmp_path / "x"))
    extracted = sorted(os.path.relpath(os.path.join(d, f), tmp_path / "x")
                       for d, _, files in os.walk(tmp_path / "x") for f in files)
    assert extracted == ["stage/pkg/STATEMENT"]  # the refused member was never written


def test_refuses_a_name_that_is_not_utf8(tmp_path):
    info = tarfile.TarInfo("pkg/caf\udce9.xml")  # surrogate-escaped byte 0xe9
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w", format=tarfile.GNU_FORMAT, encoding="utf-8",
                      errors="surrogateescape") as tar:
        tar.addfile(tarfile.TarInfo("pkg/"), None)
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(InputError, match="not UTF-8"):
        packaging.extract(write_package(tmp_path, gzip.compress(data.getvalue())), str(tmp_path / "x"))


@pytest.mark.parametrize("damage, message", [
    (lambda b: b[: len(b) // 2], "truncated"),
    (lambda b: b[:-8] + bytes([b[-8] ^ 1]) + b[-7:], "not a valid gzip stream"),   # CRC32
    (lambda b: b + b"trailing garbage", "data after the end"),
    (lambda b: b"not gzip at all", "not a valid gzip stream"),
])
def test_reads_gzip_strictly(tmp_path, damage, message):
    package = write_package(tmp_path, damage(gzip.compress(tar_bytes(GOOD))))
    with pytest.raises(InputError, match=message):
        packaging.extract(package, str(tmp_path / "x"))


def test_caps_the_expanded_size_before_extracting(tmp_path, monkeypatch):
    monkeypatch.setattr(packaging, "EXPANDED_LIMIT", 1 << 20)
    bomb = gzip.compress(tar_bytes(GOOD + [member("pkg/zeros", bytes(4 << 20))]))
    assert len(bomb) < 64 << 10
    with pytest.raises(InputError, match="members' sizes.*refused unextracted"):
        packaging.extract(write_package(tmp_path, bomb), str(tmp_path / "x"))
    assert not os.path.exists(tmp_path / "x" / "stage" / "pkg" / "zeros")


def test_caps_the_stream_too(tmp_path, monkeypatch):
    # A stream longer than its members say (e.g. padding): the inflater's cap.
    monkeypatch.setattr(packaging, "EXPANDED_LIMIT", 1 << 20)
    bomb = gzip.compress(tar_bytes(GOOD) + bytes(4 << 20))
    with pytest.raises(InputError, match="expands to more than"):
        packaging.extract(write_package(tmp_path, bomb), str(tmp_path / "x"))


def test_manifest_refuses_links(tmp_path):
    (tmp_path / "junit.xml").write_text("x")
    os.symlink("/etc/passwd", tmp_path / "passwd.xml")
    with pytest.raises(InputError, match="symbolic link"):
        packaging.package_files(str(tmp_path))


def test_gtest_is_a_tree():
    assert packaging.allowed("gtest/Placement.X/cpu.xml") and packaging.allowed("gtest/a.xml")
    assert not packaging.allowed("gtest/a.txt") and not packaging.allowed("notes.txt")


def test_extraction_digests_are_of_what_lies_on_disk(tmp_path):
    """The sums extract() takes as members stream by stand in for reading
    the files back (check_manifest): a path written twice ('pkg/junit.xml'
    then 'pkg/./junit.xml', the second copy the one on disk) has the sum of
    the copy on disk, so a MANIFEST made for the first copy still fails."""
    from tdc import verify
    first, second = b"<testsuite/>", b"<testsuite tests='9'/>"
    manifest = f"{packaging.hashlib.sha256(first).hexdigest()}  junit.xml\n".encode()
    members = GOOD[:1] + [member("pkg/MANIFEST", manifest), member("pkg/junit.xml", first),
                          member("pkg/./junit.xml", second)]
    digests = {}
    stage = packaging.extract(write_package(tmp_path, gzip.compress(tar_bytes(members))), str(tmp_path / "x"),
                              digests)
    assert open(os.path.join(stage, "junit.xml"), "rb").read() == second
    assert digests["junit.xml"] == packaging.sha256(os.path.join(stage, "junit.xml"))
    problems = []
    verify.check_manifest(stage, problems, digests)
    assert problems == ["edited file: junit.xml does not match its sha256 in MANIFEST"]
    clean = members[:3]
    digests = {}
    stage = packaging.extract(write_package(tmp_path, gzip.compress(tar_bytes(clean)), "q.tar.gz"),
                              str(tmp_path / "y"), digests)
    problems = []
    verify.check_manifest(stage, problems, digests)
    assert problems == [] and set(digests) == {"MANIFEST", "junit.xml"}


def test_a_file_left_unwritten_is_still_checked_against_the_manifest(tmp_path):
    """extract(keep=...) as the merge calls it: bench output other than its
    digest is summed as it streams by and never written; the MANIFEST check
    still sees it, and an edited copy of it still fails."""
    from tdc import verify
    from tdc.fleet import packages
    series, medians = b'{"benchmarks": []}', b'{"copy/h2d/loopback:0": {"seconds": 1}}'
    sums = {name: packaging.hashlib.sha256(data).hexdigest()
            for name, data in (("bench/forward.json", series), ("bench/medians.json", medians))}
    manifest = "".join(f"{digest}  {name}\n" for name, digest in sorted(sums.items())).encode()

    def staged(bench_data, name):
        members = GOOD[:1] + [member("pkg/MANIFEST", manifest), member("pkg/bench/", kind=tarfile.DIRTYPE),
                              member("pkg/bench/forward.json", bench_data), member("pkg/bench/medians.json", medians)]
        digests = {}
        stage = packaging.extract(write_package(tmp_path, gzip.compress(tar_bytes(members)), name),
                                  str(tmp_path / name[:-7]), digests, keep=packages._read_later)
        problems = []
        verify.check_manifest(stage, problems, digests)
        return stage, digests, problems

    stage, digests, problems = staged(series, "good.tar.gz")
    assert problems == [] and not os.path.exists(os.path.join(stage, "bench", "forward.json"))
    assert packages._benchmarks(stage, digests) == {"copy/h2d/loopback:0": {"seconds": 1}}
    _, _, problems = staged(b'{"benchmarks": [1]}', "edited.tar.gz")
    assert problems == ["edited file: bench/forward.json does not match its sha256 in MANIFEST"]
    os.unlink(os.path.join(stage, "bench", "medians.json"))   # no digest: the series come from the files
    assert packages._benchmarks(stage, digests) is None
    assert packages._benchmarks(stage, {"junit.xml": "0" * 64}) == {}
