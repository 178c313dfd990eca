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
ALLOWED = (STATEMENT, "junit.xml", "summary.json", "context.json", "waivers.json",
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


def gunzip_strictly(package, target):
    """Decompresses one gzip stream into the file `target`, refusing a
    truncated stream, a CRC or length error, trailing data, and more than
    EXPANDED_LIMIT bytes of output (checked as it goes: nothing more is written)."""
    size = os.path.getsize(package)
    if size > PACKAGE_LIMIT:
        raise InputError(f"is {size} bytes, more than a package may be ({PACKAGE_LIMIT})")
    inflater = zlib.decompressobj(wbits=31)  # gzip wrapper: header, CRC32 and length checked
    written = 0
    with open(package, "rb") as source, open(target, "wb") as out:
        try:
            for block in iter(lambda: source.read(MiB), b""):
                if inflater.eof:
                    raise InputError("has data after the end of its gzip stream: refused")
                pending = block
                while pending and not inflater.eof:
                    data = inflater.decompress(pending, MiB)
                    written += len(data)
                    if written > EXPANDED_LIMIT:
                        raise InputError(f"expands to more than {EXPANDED_LIMIT} bytes: refused unextracted")
                    out.write(data)
                    pending = inflater.unconsumed_tail
                if inflater.unused_data:
                    raise InputError("has data after the end of its gzip stream: refused")
        except zlib.error as error:
            raise InputError(f"is not a valid gzip stream ({error}): damaged?")
    if not inflater.eof:
        raise InputError("ends before its gzip stream does: truncated")


def checked_members(tar):
    """The members, after refusing everything a package never holds."""
    members, names, total = [], set(), 0
    try:
        for member in tar:
            members.append(member)
            if len(members) > MEMBER_LIMIT:
                raise InputError(f"holds more than {MEMBER_LIMIT} members: refused")
    except (tarfile.TarError, EOFError) as error:
        raise InputError(f"is not a readable tar archive ({error})")
    for member in members:
        name = member.name
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"holds a member whose name is not UTF-8: "
                             f"{name.encode('utf-8', 'surrogateescape')!r}")
        if not (member.isfile() or member.isdir()):
            raise InputError(f"holds {name!r}, a link, device or FIFO: refused")
        parts = name.rstrip("/").split("/")
        if name.startswith("/") or ".." in parts or any(p == "" for p in parts):
            raise InputError(f"holds {name!r}, a name that escapes the package: refused")
        if name.rstrip("/") in names:
            raise InputError(f"holds {name!r} twice: refused (which copy is the run's?)")
        names.add(name.rstrip("/"))
        total += member.size if member.isfile() else 0
        if total > EXPANDED_LIMIT:
            raise InputError(f"holds more than {EXPANDED_LIMIT} bytes of files: refused unextracted")
    tops = {m.name.split("/", 1)[0] for m in members}
    if len(tops) != 1:
        raise InputError(f"must hold one top folder, holds {sorted(tops)[:5]}")
    return members, tops.pop()


def extract(package, into):
    """The package's top folder under `into`, extracted member by member
    (files and folders only, every check above made first)."""
    tar_path = os.path.join(into, ".package.tar")
    gunzip_strictly(package, tar_path)
    stage_root = os.path.join(into, "stage")
    os.makedirs(stage_root)
    try:
        with tarfile.open(tar_path, "r:", encoding="utf-8", errors="surrogateescape") as tar:
            members, top = checked_members(tar)
            for member in members:
                path = os.path.join(stage_root, *member.name.rstrip("/").split("/"))
                if member.isdir():
                    os.makedirs(path, exist_ok=True)
                    continue
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with tar.extractfile(member) as source, open(path, "wb") as out:
                    copied = 0
                    for block in iter(lambda: source.read(1 << 20), b""):
                        copied += len(block)
                        out.write(block)
                if copied != member.size:
                    raise InputError(f"member {member.name!r} is shorter than it says: truncated")
    except (tarfile.TarError, EOFError) as error:
        raise InputError(f"is not a readable tar archive ({error})")
    finally:
        os.unlink(tar_path)
    stage = os.path.join(stage_root, top)
    if not os.path.isdir(stage):
        raise InputError(f"its top entry {top!r} is not a folder")
    return stage
