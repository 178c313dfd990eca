include_guard(GLOBAL)
# How conformance suites are built, registered with CTest and installed: TDC's
# own (suites/*/CMakeLists.txt) and a vendor's, through the installed CMake
# package (find_package(TDC), docs/install.md). The same files serve both:
# in a source tree they sit in cmake/, in an installed TDC in
# <prefix>/share/tdc/cmake/, and TDC's data (ci/, suites/levels.txt,
# suites/known_failures.txt) is laid out the same way around them.
#
# This file is the entry point, as rapids-cmake's rapids_test_init(): the
# settings every function reads, then one file per public function, named
# after it (rapids-cmake's layout; ci/tests/test_cmake_layout.py keeps it
# so for every file of cmake/):
#   tdc_add_conformance_suite.cmake   a suite: its programs, entries, claim, install
#   tdc_add_conformance_test.cmake    an entry of its own running a suite program once
#   tdc_generate_resource_spec.cmake  the resource spec ctest writes at its start
#   tdc_add_selftest.cmake            the project's own tests
#   tdc_tools_environment.cmake       how an entry runs the Python tools
#   TdcWaiverCheck.cmake              the waiver check (tdc_register_suite_run.cmake)
#   TdcTestingHelpers.cmake           helpers more than one of them uses
# What ctest runs itself (TdcSuiteTests.cmake.in, TdcResourceSpec.cmake.in,
# TdcInstalledTests.cmake) includes tdc_suite_entries.cmake and the files
# beside it the same way.
include(GoogleTest)
get_filename_component(TDC_DATA_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(TDC_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_tools_environment.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/TdcWaiverCheck.cmake")

set(TDC_DISCOVERY_TIMEOUT 300 CACHE STRING
  "Seconds a suite may take to list its tests (device discovery initialises accelerators)")
set(TDC_GPU_PERCENT 25 CACHE STRING
  "Share of each device it touches (slots of 100) an entry of a suite without PERCENT claims through CTest resource groups (1-100)")
if(NOT TDC_GPU_PERCENT MATCHES "^([1-9][0-9]?|100)$")
  message(FATAL_ERROR "TDC_GPU_PERCENT='${TDC_GPU_PERCENT}': expected an integer 1..100")
endif()

# Where suites go under an install prefix (relative: an installed TDC runs
# from wherever its prefix is copied). cmake/TdcInstalledTests.cmake reads
# the same layout.
set(TDC_INSTALL_SUITE_DIR libexec/tdc)
set(TDC_INSTALL_MANIFEST_DIR share/tdc/suites.d)

include("${CMAKE_CURRENT_LIST_DIR}/TdcTestingHelpers.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_add_conformance_suite.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_add_conformance_test.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_generate_resource_spec.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_add_selftest.cmake")
