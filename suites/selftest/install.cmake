# The installed TDC (docs/install.md), checked from outside this tree by
# install_checks.py, in one work folder of this build: cmake --install and
# cpack once (fixture tdc_install), then the prefix moved elsewhere, the .deb
# unpacked into a throwaway root running level 1, and the vendor example
# built against the tarball's prefix (fixture tdc_vendor) running level 2
# on the loopback from a read-only prefix, and failing under the faults
# its checks are for. Label install: `ctest -L install` runs them alone.
set(install_checks "${CMAKE_CURRENT_SOURCE_DIR}/install_checks.py")
set(install_work "${CMAKE_BINARY_DIR}/selftest-install")
# Another LibTorch for the configure-time mismatch: Debian's next to pip's, pip's next to Debian's.
# On a new machine the first build may find none yet (ci/selftest installs the
# others later): the check then says "not checked", and an empty value must
# stay one argument (--other-torch-dir=, not a dropped "").
set(other_torch "")
foreach(candidate "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/Torch"
    "$ENV{HOME}/.cache/tdc/venv-torch-2.13.0/lib/python3.11/site-packages/torch/share/cmake/Torch"
    "$ENV{HOME}/.cache/tdc/venv-torch-2.14.1/lib/python3.11/site-packages/torch/share/cmake/Torch")
  get_filename_component(candidate "${candidate}" REALPATH)
  get_filename_component(ours "${Torch_DIR}" REALPATH)
  if(NOT other_torch AND EXISTS "${candidate}/TorchConfig.cmake" AND NOT candidate STREQUAL ours)
    set(other_torch "${candidate}")
  endif()
endforeach()

tdc_add_selftest(NAME install.prefix_and_packages
  COMMAND "${Python3_EXECUTABLE}" "${install_checks}" prefix --build-dir "${CMAKE_BINARY_DIR}" --work "${install_work}"
  LABELS install nested TIMEOUT 1200)
tdc_add_selftest(NAME install.layout_is_relocatable
  COMMAND "${Python3_EXECUTABLE}" "${install_checks}" layout --build-dir "${CMAKE_BINARY_DIR}"
    --work "${install_work}" --source "${PROJECT_SOURCE_DIR}"
  LABELS install nested TIMEOUT 1200)
tdc_add_selftest(NAME install.deb_runs_level1
  COMMAND "${Python3_EXECUTABLE}" "${install_checks}" deb --work "${install_work}"
  LABELS install nested TIMEOUT 3600)  # its ci/health: health_budget.py
tdc_add_selftest(NAME install.vendor_suite_builds_on_the_tarball
  COMMAND "${Python3_EXECUTABLE}" "${install_checks}" vendor --work "${install_work}"
    --source "${PROJECT_SOURCE_DIR}" "--other-torch-dir=${other_torch}"
  LABELS install nested TIMEOUT 2400)
# All of level 2 from the read-only prefix on ci/selftest's first build (the
# tools' side: levels, state and results outside a read-only prefix); on the
# others only the vendor's entries (their own ctest runs the same binaries).
if(TDC_TOOL_SELFTESTS)
  set(readonly_selection all)
else()
  set(readonly_selection vendor)
endif()
tdc_add_selftest(NAME install.readonly_prefix_runs_level2_with_the_vendor_suite
  COMMAND "${Python3_EXECUTABLE}" "${install_checks}" readonly --work "${install_work}" --backend-name "${TDC_PRIVATEUSE1_NAME}"
    --selection=${readonly_selection}
  LABELS install nested TIMEOUT 3000)
tdc_add_selftest(NAME install.loopback_faults_break_the_vendor_checks
  COMMAND "${Python3_EXECUTABLE}" "${install_checks}" faults --work "${install_work}" --backend-name "${TDC_PRIVATEUSE1_NAME}"
  LABELS install nested TIMEOUT 1200)
set_tests_properties(selftest.install.prefix_and_packages PROPERTIES FIXTURES_SETUP tdc_install)
set_tests_properties(selftest.install.layout_is_relocatable selftest.install.deb_runs_level1
  selftest.install.vendor_suite_builds_on_the_tarball PROPERTIES FIXTURES_REQUIRED tdc_install)
set_tests_properties(selftest.install.vendor_suite_builds_on_the_tarball PROPERTIES FIXTURES_SETUP tdc_vendor)
set_tests_properties(selftest.install.readonly_prefix_runs_level2_with_the_vendor_suite
  selftest.install.loopback_faults_break_the_vendor_checks PROPERTIES FIXTURES_REQUIRED tdc_vendor)
# The level runs inside take turns with each other. They need not run alone:
# their devices are the loopback's (host memory, per process), their state
# folders their own, and no verdict of theirs comes from a clock (docs/
# measurements.md, "Under load"); alone, they held the other core idle for
# a minute and a half a build.
set_tests_properties(selftest.install.deb_runs_level1
  selftest.install.readonly_prefix_runs_level2_with_the_vendor_suite
  selftest.install.loopback_faults_break_the_vendor_checks PROPERTIES RESOURCE_LOCK tdc_installed_levels)
