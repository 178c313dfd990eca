"""The version rule (docs/install.md, "Versions"), as ci/verify applies it.

TDC's version is MAJOR.MINOR.PATCH (VERSION), semantic versioning read for a
test suite: a change is breaking when a lab's scripts, a reviewer's
verifier or a vendor's suite made for the old version cannot take the new
one: a check renamed, removed or moved out of a level; a result document,
the JUnit layout or the package changed so that an old reader refuses or
misreads it; a flag, setting, label, verb or CMake function argument
dropped or renamed; an exit status that means something else; ctest entries
named or run another way. Before 1.0 a breaking change raises MINOR and
everything else PATCH; from 1.0, MAJOR and MINOR (features) and PATCH
(fixes). The versions that may break nothing between them form a series:
0.MINOR before 1.0, MAJOR after.

ci/verify verifies a package of its own series only, against its own
mustpass lists: a package made before a check joined the series' lists is
rejected naming that check. TDCConfigVersion.cmake (SameMinorVersion before
1.0, SameMajorVersion after) and an installed TDC's manifest check
(cmake/TdcInstalledTests.cmake) decide by the same series."""
import re

from tdc.errors import InputError

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)(\+[0-9A-Za-z.-]+)?$")


def parse(version):
    """'0.2.0+abcdef' -> (0, 2, 0); InputError when it is not a version."""
    match = _VERSION.match(version or "")
    if not match:
        raise InputError(f"{version!r} is not a TDC version (MAJOR.MINOR.PATCH[+digest])")
    return tuple(int(part) for part in match.groups()[:3])


def series(version):
    """'0.2.3' -> '0.2', '1.4.0' -> '1'."""
    major, minor, _ = parse(version)
    return f"0.{minor}" if major == 0 else str(major)


def incompatibility(verifier, package):
    """None when a verifier of version `verifier` can verify a package made
    with `package`; else why not, in one sentence."""
    try:
        mine, theirs = series(verifier), series(package)
    except InputError as error:
        return str(error)
    if mine != theirs:
        return (f"suite version {package} is of series {theirs}, this verifier's {verifier} of series {mine}: "
                f"a package verifies only against a TDC of its own series (docs/install.md, \"Versions\")")
    return None
