"""tdc.versioning: the series a verifier accepts (docs/install.md, "Versions")."""
import pytest

from tdc import versioning
from tdc.errors import InputError


@pytest.mark.parametrize("version, series", [("0.2.0", "0.2"), ("0.2.7+abc123", "0.2"), ("1.0.0", "1"),
                                             ("1.4.2+x", "1"), ("12.0.1", "12")])
def test_series(version, series):
    assert versioning.series(version) == series


@pytest.mark.parametrize("verifier, package", [("0.2.0+a", "0.2.0+b"), ("0.2.0", "0.2.5"), ("0.2.5", "0.2.0"),
                                               ("1.0.0", "1.3.0"), ("1.3.0", "1.0.2")])
def test_same_series_verifies(verifier, package):
    assert versioning.incompatibility(verifier, package) is None


@pytest.mark.parametrize("verifier, package", [("0.2.0", "0.1.0"), ("0.2.0", "0.3.0"), ("1.0.0", "0.9.0"),
                                               ("1.0.0", "2.0.0"), ("0.2.0", "0+0"), ("0.2.0", "")])
def test_another_series_or_no_version_is_refused(verifier, package):
    why = versioning.incompatibility(verifier, package)
    assert why and "\n" not in why


def test_not_a_version():
    with pytest.raises(InputError):
        versioning.parse("2.13")
