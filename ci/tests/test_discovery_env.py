"""cmake/discovery-environment.txt: the one list of settings that change which tests exist."""
import pytest

from tdc import discovery_env
from tdc.errors import InputError


def test_the_list_holds_every_setting_that_changes_the_list():
    changes = discovery_env.matcher()
    for name in ("TDC_DEVICES", "TDC_EXPECT", "TDC_BACKEND_LIBS", "TDC_LOOPBACK_FAULT", "TDC_LOOPBACK_DEVICES",
                 "TDC_TEST_TIMEOUT", "TDC_CHECKS", "TDC_ISOLATE", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"):
        assert changes(name), name
    for name in ("TDC_GTEST_DIR", "TDC_OCCUPANCY_LOG", "PATH", "HOME", "TDC_JOBS"):
        assert not changes(name), name


def test_every_line_says_what_it_changes():
    for pattern, what in discovery_env.entries():
        assert what and pattern


def test_a_line_without_a_reason_is_refused(write):
    with pytest.raises(InputError, match=":2: expected"):
        discovery_env.entries(write("env.txt", "TDC_A  # changes a\nTDC_B\n"))


def test_of_and_without():
    env = {"TDC_DEVICES": "cpu", "PATH": "/bin", "TDC_GTEST_DIR": "/x"}
    assert discovery_env.of(env) == {"TDC_DEVICES": "cpu"}
    assert discovery_env.without(env) == {"PATH": "/bin", "TDC_GTEST_DIR": "/x"}


def test_loopback_behaviour_settings_are_listed_and_cleared():
    changes = discovery_env.matcher()
    assert all(changes(name) for name in discovery_env.LOOPBACK_BEHAVIOUR)
    env = {"TDC_LOOPBACK_SYNCHRONOUS": "1", "TDC_LOOPBACK_DELAY_US": "5", "PATH": "/bin"}
    assert discovery_env.minus(env, discovery_env.LOOPBACK_BEHAVIOUR) == {"PATH": "/bin"}
