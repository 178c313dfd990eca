"""Reading what another program (or an attacker) wrote, safely, and writing
what we make, atomically. Every failure is an InputError with one line that
names the file.

  - a size cap, checked before reading (a 1 GB file is refused, not read);
  - text must be UTF-8;
  - JSON must be standard JSON: NaN and Infinity are refused (they are not
    JSON, and a gate that compares with NaN passes everything), and so is
    a lone UTF-16 surrogate escape ("\udce9"): it is no character, and a
    name holding one cannot be written to a terminal, a page or a file;
  - XML must not declare a DTD: no entities, so no billion laughs and no
    external entities (JUnit and GoogleTest XML never have one).
"""
import json
import os
import re
import stat
import tempfile
import xml.etree.ElementTree as ET

from tdc.errors import InputError, one_line

MiB = 1 << 20
# The largest JUnit, GoogleTest XML or JSON document a tool reads: a level-3
# run's junit.xml is a few MiB.
DOCUMENT_LIMIT = 64 * MiB


def check_object(entry, where, keys):
    """A JSON list entry that must be an object with exactly `keys` (an
    iterable of names): InputError, one line, naming what is off."""
    if not isinstance(entry, dict):
        raise InputError(f"{where} is a JSON {json_type(entry)}, expected an object")
    unknown = sorted(set(entry) - set(keys))
    if unknown:
        raise InputError(f"{where} has unknown key(s) {', '.join(map(repr, unknown))} "
                         f"(keys: {', '.join(keys)})")
    missing = [key for key in keys if key not in entry]
    if missing:
        raise InputError(f"{where} has no {', '.join(map(repr, missing))}")


def read_bytes(path, what="file", limit=DOCUMENT_LIMIT):
    """The file's bytes, at most `limit` of them (more is refused unread)."""
    try:
        with open(path, "rb") as handle:
            status = os.fstat(handle.fileno())
            if stat.S_ISDIR(status.st_mode):
                raise InputError(f"{what} {path} is a directory")
            if stat.S_ISREG(status.st_mode) and status.st_size > limit:
                raise InputError(f"{what} {path} is {status.st_size} bytes, more than the "
                                 f"{limit} a {what} may have: refused unread")
            data = handle.read(limit + 1)
    except IsADirectoryError:
        raise InputError(f"{what} {path} is a directory")
    except FileNotFoundError:
        raise InputError(f"{what} {path} does not exist")
    except OSError as error:
        raise InputError(f"cannot read {what} {path}: {error.strerror or one_line(error)}")
    if len(data) > limit:
        raise InputError(f"{what} {path} is more than {limit} bytes: refused")
    return data


def decode(data, where):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{where} is not UTF-8 (byte 0x{data[error.start]:02x} at offset "
                         f"{error.start})")


def read_text(path, what="file", limit=DOCUMENT_LIMIT):
    return decode(read_bytes(path, what, limit), f"{what} {path}")


def _refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def parse_json(text, where):
    """Standard JSON only (no NaN, Infinity, lone surrogates); InputError naming `where`."""
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise InputError(f"{where} is nested too deeply")
    except ValueError as error:
        raise InputError(f"{where} is not valid JSON ({one_line(error)}): truncated or damaged?")
    if _SURROGATE_ESCAPE.search(text):  # rare: then check what the escapes made (a pair is one character)
        try:
            json.dumps(document, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as error:
            raise InputError(f"{where} holds a lone UTF-16 surrogate escape "
                             f"(\\u{ord(error.object[error.start]):04x}): not text")
    return document


def load_json(path, what="JSON file", limit=DOCUMENT_LIMIT, kind=None):
    """The parsed document; `kind` (dict, list) is the type its top level must have."""
    document = parse_json(read_text(path, what, limit), f"{what} {path}")
    if kind is not None and not isinstance(document, kind):
        raise InputError(f"{what} {path} is a JSON {json_type(document)}, expected "
                         f"{'an object' if kind is dict else 'a list'}")
    return document


def json_type(value):
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null",
            int: "number", float: "number"}.get(type(value), type(value).__name__)


def parse_xml_bytes(data, where):
    """The root element of an XML document that must be UTF-8 and declare no DTD."""
    text = decode(data, where)
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise InputError(f"{where} declares a DTD or entities: refused (JUnit and GoogleTest XML have none)")
    try:
        return ET.fromstring(data)
    except ET.ParseError as error:
        raise InputError(f"{where} is not well-formed XML ({one_line(error)}): truncated or not XML?")
    except (ValueError, RecursionError) as error:
        raise InputError(f"{where} cannot be parsed as XML ({one_line(error)})")


def parse_xml(path, what="XML file", limit=DOCUMENT_LIMIT):
    return parse_xml_bytes(read_bytes(path, what, limit), f"{what} {path}")


def dumps(document, indent=2):
    """JSON text; a NaN or infinity in what we write is our own defect."""
    return json.dumps(document, indent=indent, allow_nan=False) + "\n"


def write_text(path, text, what="file"):
    """Writes text as UTF-8, atomically (write_bytes)."""
    write_bytes(path, text.encode("utf-8"), what)


def write_bytes(path, data, what="file"):
    """Writes atomically (a temporary file beside it, then rename): a reader
    never sees half a file. InputError naming the file when the folder is
    missing or unwritable, or the disk is full; no temporary file is left."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InputError(f"cannot write {what} {path}: it is a directory")
    if not os.path.isdir(folder):
        raise InputError(f"cannot write {what} {path}: folder {folder} does not exist")
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tdc-", suffix=".tmp")
    except OSError as error:
        raise InputError(f"cannot write {what} {path}: {error.strerror or one_line(error)}")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except OSError as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise InputError(f"cannot write {what} {path}: {error.strerror or one_line(error)}")


def copy_file(source, target, what="file"):
    """Copies source to a new file target; InputError naming the one that
    could not be read or written (shutil's error on a full disk names the
    source), and no partial target is left."""
    try:
        reading = open(source, "rb")
    except OSError as error:
        raise InputError(f"cannot read {what} {source}: {error.strerror or one_line(error)}")
    with reading:
        try:
            writing = open(target, "xb")
        except OSError as error:
            raise InputError(f"cannot write {what} {target}: {error.strerror or one_line(error)}")
        try:
            with writing:
                while True:
                    try:
                        chunk = reading.read(MiB)
                    except OSError as error:
                        raise InputError(f"cannot read {what} {source}: {error.strerror or one_line(error)}")
                    if not chunk:
                        break
                    writing.write(chunk)
        except BaseException as error:
            os.unlink(target)
            if isinstance(error, OSError):
                raise InputError(f"cannot write {what} {target}: {error.strerror or one_line(error)}")
            raise


def write_json(path, document, what="JSON file"):
    write_text(path, dumps(document), what)


def ensure_writable_folder(path, what):
    """Creates the folder if needed; InputError when it cannot be written."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError(f"{what} {path} is a file, not a folder")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create {what} {path}: {error.strerror or one_line(error)}")
    if not os.access(path, os.W_OK | os.X_OK):
        raise InputError(f"{what} {path} is not writable")


def naming(path_of):
    """A method whose OSError (a full disk: ENOSPC carries no file name)
    becomes one line naming the file being written (path_of(self))."""
    def wrap(method):
        def named(self, *args):
            try:
                return method(self, *args)
            except OSError as error:
                raise InputError(f"cannot write {path_of(self)}: {error.strerror or error}")
        return named
    return wrap
