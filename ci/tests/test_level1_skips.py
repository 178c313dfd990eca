"""Which skips of a level-1 check on an expected device ci/verify accepts
(tdc.verify.LEVEL1_ACCEPTED_SKIP), and that any other skip is refused."""
import pytest

from tdc import verify


@pytest.mark.parametrize("message", [
    "needs two devices of this type",
    "needs a device other than cpu",
    "the collectives of cuda run once per device type, from cuda:0, whose ranks take every index",
    "no c10d backend serves acme (gloo: serves cpu only)",
])
def test_accepted(message):
    assert verify.level1_accepts_skip(message)


@pytest.mark.parametrize("message", [
    "",
    None,
    "loopback:0 is absent",
    "the c10d backend does not declare allreduce_avg Char",
    "c10d gloo headers not found at configure time: install libgloo-dev",
    "prerequisite failed: no c10d backend serves cpu",
])
def test_refused(message):
    assert not verify.level1_accepts_skip(message)
