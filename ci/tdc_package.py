"""What ci/package writes and ci/verify reads: file names, the manifest, the
known-failure message format (fixtures/src/known_failure_scope.cpp)."""
import hashlib
import os
import re

MANIFEST = "MANIFEST"
STATEMENT = "STATEMENT"
# "known failure (file:line; category, tracker T): reason" (tracker optional)
KNOWN_FAILURE = re.compile(r"^known failure \((?P<origin>[^;)]+)"
                           r"(?:; (?P<category>[^,]+), tracker (?P<tracker>[^)]+))?\)")


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def package_files(stage):
    """Every file under stage, relative, sorted; MANIFEST itself excluded."""
    files = []
    for directory, _, names in os.walk(stage):
        for name in names:
            relative = os.path.relpath(os.path.join(directory, name), stage)
            if relative != MANIFEST:
                files.append(relative)
    return sorted(files)


def manifest_lines(stage):
    """sha256sum's format: '<hex>  <path>\\n'."""
    return [f"{sha256(os.path.join(stage, f))}  {f}\n" for f in package_files(stage)]


def check_name(test):
    """'loopback:Forward.X/loopback_1_float32' -> 'Forward.X': a mustpass entry.
    For results without the fixtures' "check" property (not a device check,
    or a test that died before writing its XML)."""
    head = test.split("/", 1)[0]
    if ":" in head:
        test = test.split(":", 1)[1]
    return test.split("/", 1)[0]
