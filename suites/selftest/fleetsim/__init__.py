"""Test support, not tools: results folders no ctest made (synthetic_run),
real packages rewritten into other hosts' with planted faults (rewrite), and
the synthetic fleet ci/merge is measured on (simulate). The self-tests in
suites/selftest import it from their own folder; ci/tests from
ci/tests/pytest.ini's pythonpath. Nothing under ci/tdc imports it, and an
install has none of it (cmake/TdcInstall.cmake installs ci/, never
suites/selftest)."""
