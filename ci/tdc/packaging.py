"""The package format ci/package writes and ci/verify reads: file names and
which files a package may hold, the STATEMENT's fields, the MANIFEST of
sha256 sums, the known-failure message format
(fixtures/src/known_failure_scope.cpp), and reading a .tar.gz safely.

Reading refuses, with one line, before anything is extracted: a file that is
not one gzip stream (truncated, a CRC error, trailing data), one that expands
beyond EXPANDED_LIMIT, members that are links, devices or FIFOs, absolute or
escaping (`..`) names, names that are not UTF-8, a name twice (the first copy
could say one thing, the second another), more than one top folder."""
import fnmatch
import hashlib
import os
import re
import tarfile
import zlib

from tdc.errors import InputError

MANIFEST = "MANIFEST"
SIGNATURE = "MANIFEST.sig"   # ci/package --sign-key: a signature over MANIFEST (tdc.fleet.signing)
STATEMENT = "STATEMENT"
# What a package holds; nothing else verifies.
ALLOWED = (STATEMENT, "junit.xml", "ctest-junit.xml", "summary.json", "context.json", "waivers.json",
           "gtest/*.xml", "bench/*.json", "bench/*.txt", "bench/*.log", "bench/*.svg")
# STATEMENT's fields, each exactly once, in this order.
STATEMENT_KEYS = ("product", "submitter", "level", "suite_version", "run_id", "compatibility", "date")
REQUIRED_VALUES = ("product", "submitter", "level", "suite_version", "run_id", "date")
FIELD_LIMIT = 200
# "known failure (file:line; category, tracker T): reason" (tracker optional)
KNOWN_FAILURE = re.compile(r"^known failure \((?P<origin>[^;)]+)"
                           r"(?:; (?P<category>[^,]+), tracker (?P<tracker>[^)]+))?\)")

MiB = 1 << 20
PACKAGE_LIMIT = 64 * MiB        # the .tar.gz itself
EXPANDED_LIMIT = 512 * MiB      # the tar stream, and the sum of its members' sizes
MEMBER_LIMIT = 100_000


def allowed(path):
    """Is `path` (relative, '/'-separated) a file a package may hold?
    gtest/ is a tree (GoogleTest XML per test, in folders named after checks)."""
    if path.startswith("gtest/") and path.endswith(".xml"):
        return True
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in ALLOWED if not pattern.startswith("gtest/"))


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def package_files(stage):
    """Every file under stage, relative, '/'-separated, sorted; MANIFEST and
    its signature excluded. InputError for a link (a package holds the run's own files)."""
    files = []
    for folder, subfolders, names in os.walk(stage):
        for name in subfolders + names:
            full = os.path.join(folder, name)
            if os.path.islink(full):
                raise InputError(f"{os.path.relpath(full, stage)} is a symbolic link: refused "
                                 "(a package holds the run's own files)")
        for name in names:
            relative = os.path.relpath(os.path.join(folder, name), stage).replace(os.sep, "/")
            if relative not in (MANIFEST, SIGNATURE):
                files.append(relative)
    return sorted(files)


def manifest_lines(stage):
    """sha256sum's format: '<hex>  <path>\\n'."""
    return [f"{sha256(os.path.join(stage, f))}  {f}\n" for f in package_files(stage)]


def statement_value(key, value):
    """A STATEMENT value: one printable line. InputError otherwise (a newline
    in --submitter must not become a `product:` line)."""
    value = str(value)
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise InputError(f"--{key}: {value!r} holds a newline or control character: refused")
    if len(value) > FIELD_LIMIT:
        raise InputError(f"--{key}: longer than {FIELD_LIMIT} characters")
    if value != value.strip():
        raise InputError(f"--{key}: {value!r} starts or ends with white space")
    return value


def statement_text(fields):
    missing = [k for k in REQUIRED_VALUES if not str(fields.get(k, "")).strip()]
    if missing:
        raise InputError(f"the STATEMENT needs {', '.join(missing)}: --{missing[0]} is empty")
    return "".join(f"{key}: {statement_value(key, fields.get(key, ''))}\n" for key in STATEMENT_KEYS)


def parse_statement(text, problems):
    """{key: value}; every malformed, unknown, repeated or missing field is a problem."""
    fields = {}
    for number, line in enumerate(text.split("\n"), 1):
        if line == "" and number == len(text.split("\n")):
            continue
        key, colon, value = line.partition(": ")
        if not colon or key not in STATEMENT_KEYS:
            problems.append(f"STATEMENT line {number} is not '<field>: <value>' with a known field: {line[:80]!r}")
            continue
        if key in fields:
            problems.append(f"STATEMENT gives {key} twice (line {number})")
            continue
        if any(ord(c) < 32 or ord(c) == 127 for c in value) or "\r" in line:
            problems.append(f"STATEMENT {key} holds a control character")
        fields[key] = value
    for key in REQUIRED_VALUES:
        if not fields.get(key):
            problems.append(f"STATEMENT has no {key}")
    return fields


class StrictGzip:
    """A file-like reader of one gzip stream that refuses, as it reads, a
    CRC or length error, more than EXPANDED_LIMIT bytes of output, and (at
    finish) a stream that was truncated or is followed by other data."""

    def __init__(self, handle):
        self.handle, self.inflater, self.written = handle, zlib.decompressobj(wbits=31), 0
        # What was inflated and not read yet: buffer[position:]. tarfile reads
        # in 512-byte records; slicing a fresh bytes object each time would
        # copy the whole buffer per record.
        self.buffer, self.position = bytearray(), 0

    def _unread(self):
        return len(self.buffer) - self.position

    def read(self, size=-1):
        while (size < 0 or self._unread() < size) and not self.inflater.eof:
            block = self.inflater.unconsumed_tail or self.handle.read(MiB)
            if not block:
                raise InputError("ends before its gzip stream does: truncated")
            try:
                data = self.inflater.decompress(block, MiB)
            except zlib.error as error:
                raise InputError(f"is not a valid gzip stream ({error}): damaged?")
            self.written += len(data)
            if self.written > EXPANDED_LIMIT:
                raise InputError(f"expands to more than {EXPANDED_LIMIT} bytes: refused unextracted")
            if self.position:
                del self.buffer[:self.position]
                self.position = 0
            self.buffer += data
        if size < 0:
            size = self._unread()
        with memoryview(self.buffer) as view:  # one copy, not a slice and then bytes of it
            data = bytes(view[self.position:self.position + size])
        self.position += len(data)
        return data

    def finish(self):
        """After the archive's end: the rest of the stream must be padding only."""
        while self.read(MiB):
            pass
        if self.inflater.unused_data or self.handle.read(1):
            raise InputError("has data after the end of its gzip stream: refused")


def check_member(member, names, total):
    """Refuses a member a package never holds; returns the running size."""
    name = member.name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"holds a member whose name is not UTF-8: {name.encode('utf-8', 'surrogateescape')!r}")
    if not (member.isfile() or member.isdir()):
        raise InputError(f"holds {name!r}, a link, device or FIFO: refused")
    parts = name.rstrip("/").split("/")
    if name.startswith("/") or ".." in parts or any(p == "" for p in parts):
        raise InputError(f"holds {name!r}, a name that escapes the package: refused")
    if name.rstrip("/") in names:
        raise InputError(f"holds {name!r} twice: refused (which copy is the run's?)")
    names.add(name.rstrip("/"))
    if len(names) > MEMBER_LIMIT:
        raise InputError(f"holds more than {MEMBER_LIMIT} members: refused")
    total += member.size if member.isfile() else 0
    if total > EXPANDED_LIMIT:
        raise InputError(f"holds more than {EXPANDED_LIMIT} bytes of files (its members' sizes): "
                         "refused unextracted")
    return total


def extract(package, into, digests=None, keep=None):
    """The package's top folder under `into`. One pass over the stream: each
    member's header is checked (and the sizes so far summed) before its data
    is read; a refused package leaves only a partial folder the caller's
    temporary directory removes. `digests`, a dict, gets each file's sha256
    of the bytes as they streamed by ({path relative to the top folder:
    hex}): a verifier of a folder only it writes to need not read every
    file back to check the MANIFEST (a fleet merge verifies thousands).
    With digests, keep(path) false leaves that file unwritten: it is still
    read, checked and summed (a MANIFEST check from digests sees it), only
    no later reader could open it (the merge's benchmark series: most of a
    package's bytes, read through their digest, bench/medians.json)."""
    try:
        size = os.path.getsize(package)
        handle = open(package, "rb")
    except OSError as error:
        raise InputError(f"cannot be read ({error.strerror})")
    if size > PACKAGE_LIMIT:
        handle.close()
        raise InputError(f"is {size} bytes, more than a package may be ({PACKAGE_LIMIT})")
    stage_root = os.path.join(into, "stage")
    os.makedirs(stage_root)
    names, total, tops = set(), 0, set()
    with handle:
        stream = StrictGzip(handle)
        try:
            with tarfile.open(fileobj=stream, mode="r|", encoding="utf-8", errors="surrogateescape") as tar:
                for member in tar:
                    total = check_member(member, names, total)
                    tops.add(member.name.split("/", 1)[0])
                    if len(tops) != 1:
                        raise InputError(f"must hold one top folder, holds {sorted(tops)[:5]}")
                    path = os.path.join(stage_root, *member.name.rstrip("/").split("/"))
                    if member.isdir():
                        os.makedirs(path, exist_ok=True)
                        continue
                    source = tar.extractfile(member)
                    digest = hashlib.sha256()
                    # By the path written: a later copy of it replaces both.
                    relative = os.path.relpath(os.path.normpath(path), stage_root).replace(os.sep, "/")
                    relative = relative.split("/", 1)[-1]
                    if digests is not None and keep is not None and not keep(relative):
                        if os.path.lexists(path):  # an earlier copy of it on disk is not this one
                            os.unlink(path)
                        for block in iter(lambda: source.read(MiB), b""):
                            digest.update(block)
                        digests[relative] = digest.hexdigest()
                        continue
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "wb") as out:
                        for block in iter(lambda: source.read(MiB), b""):
                            digest.update(block)
                            out.write(block)
                    if digests is not None:
                        digests[relative] = digest.hexdigest()
            stream.finish()
        except (tarfile.TarError, EOFError) as error:
            raise InputError(f"is not a readable tar archive ({error})")
    if not tops:
        raise InputError("is an empty archive")
    stage = os.path.join(stage_root, tops.pop())
    if not os.path.isdir(stage):
        raise InputError("has no top folder")
    return stage
