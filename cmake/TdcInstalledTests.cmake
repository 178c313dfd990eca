# The ctest entries of an installed TDC. ctest reads this at every start,
# included from the CTestTestfile.cmake that ci/tdc/installed.py writes into
# a ctest tree under the user's state folder (never into the prefix), with
#   TDC_PREFIX  the installed TDC (found from bin/tdc's own place)
#   TDC_STATE   that tree: cached test lists, batch lists, resource specs,
#               the waiver memo, ctest's own Testing/ all go there
#   TDC_PYTHON  the Python that runs the tools
# It declares, as a build tree does (cmake/TdcSuiteTests.cmake.in), every
# suite of every manifest in <prefix>/share/tdc/suites.d/ (TDC's own,
# written by tdc_add_conformance_suite(), and a vendor's installed into the
# same prefix) and of every prefix or manifest TDC_EXTRA_SUITES names
# (':'-separated), each with its loopback twin; the resource spec; the
# waiver check. A manifest built against another TDC series or another
# LibTorch, a TDC_EXTRA_SUITES item that is neither, or a suite name
# installed twice is a failing TdcConfiguration.* entry of every level.
cmake_policy(PUSH)
cmake_policy(VERSION 3.22)
include("${CMAKE_CURRENT_LIST_DIR}/tdc_discovery_fingerprint.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_read_level_rules.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_level_labels.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_suite_entries.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_resource_spec.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_resource_spec_covers.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_tools_environment.cmake")

# This TDC's build facts (cmake/TdcInstall.cmake wrote them).
file(STRINGS "${TDC_PREFIX}/share/tdc/build/CMakeCache.txt" _tdc_fact_lines REGEX "^TDC_[A-Z0-9_]+:")
foreach(_tdc_line IN LISTS _tdc_fact_lines)
  string(REGEX MATCH "^([A-Z0-9_]+):[A-Z]+=(.*)$" _tdc_match "${_tdc_line}")
  set(_tdc_fact_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
endforeach()
set(_tdc_programs "${TDC_PREFIX}/libexec/tdc")
set(_tdc_batch "${_tdc_programs}/tdc_batch")
set(_tdc_loopback "${TDC_PREFIX}/lib/tdc/libtdc_loopback.so")
if(NOT EXISTS "${_tdc_loopback}")
  set(_tdc_loopback "")
endif()
set(_tdc_tdc_levels "${TDC_PREFIX}/share/tdc/suites/levels.txt")
set(_tdc_listings "${TDC_STATE}/listings")
file(MAKE_DIRECTORY "${_tdc_listings}")
set(_tdc_waiver_runs "")
set(_tdc_suite_names "")

tdc_resource_spec(DEVICE_SELECT "${_tdc_programs}/device_select" LOOPBACK "${_tdc_loopback}"
  LIBRARIES ${_tdc_fact_TDC_TORCH_LIBRARIES} DIR "${TDC_STATE}" TIMEOUT "${_tdc_fact_TDC_DISCOVERY_TIMEOUT}")

# A failing entry of every level: the message (ARGN, concatenated), in one
# line, is its output.
function(_tdc_refuse name)
  string(CONCAT message ${ARGN})
  tdc_read_level_rules("${_tdc_tdc_levels}")
  _tdc_all_level_labels(labels "conformance;level3")
  _tdc_refusing_entry("TdcConfiguration.${name}" "${_tdc_batch}" "${labels}" "${message}")
endfunction()

# The calls of a manifest (suites.d/<project>.cmake, written by
# tdc_add_conformance_suite()), one file each.
include("${CMAKE_CURRENT_LIST_DIR}/tdc_installed_package.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_installed_suite.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_installed_test.cmake")

# The manifests: this prefix's, then TDC_EXTRA_SUITES' (a prefix, or a manifest file).
file(GLOB _tdc_manifests "${TDC_PREFIX}/share/tdc/suites.d/*.cmake")
string(REPLACE ":" ";" _tdc_extra "$ENV{TDC_EXTRA_SUITES}")
set(_tdc_extra_index 0)
foreach(_tdc_item IN LISTS _tdc_extra)
  math(EXPR _tdc_extra_index "${_tdc_extra_index} + 1")
  if(_tdc_item STREQUAL "")
    continue()
  endif()
  set(_tdc_found "")
  if(IS_DIRECTORY "${_tdc_item}")
    file(GLOB _tdc_found "${_tdc_item}/share/tdc/suites.d/*.cmake")
  elseif(EXISTS "${_tdc_item}" AND _tdc_item MATCHES "/share/tdc/suites[.]d/[^/]+[.]cmake$")
    set(_tdc_found "${_tdc_item}")
  endif()
  if(NOT _tdc_found)
    _tdc_refuse("TDC_EXTRA_SUITES.${_tdc_extra_index}" "TDC_EXTRA_SUITES item ${_tdc_extra_index} "
      "'${_tdc_item}' is neither a prefix with share/tdc/suites.d/*.cmake nor such a manifest "
      "(a vendor suite's cmake --install makes one)")
  endif()
  foreach(_tdc_manifest IN LISTS _tdc_found)
    get_filename_component(_tdc_manifest "${_tdc_manifest}" ABSOLUTE)
    list(FIND _tdc_manifests "${_tdc_manifest}" _tdc_known)
    if(_tdc_known EQUAL -1)
      list(APPEND _tdc_manifests "${_tdc_manifest}")
    endif()
  endforeach()
endforeach()
foreach(_tdc_manifest IN LISTS _tdc_manifests)
  # <prefix>/share/tdc/suites.d/<project>.cmake
  get_filename_component(_tdc_root "${_tdc_manifest}/../../../.." ABSOLUTE)
  set(_tdc_package_refusal "")
  set(_tdc_package_name "")
  include("${_tdc_manifest}")
endforeach()

if(_tdc_waiver_runs)
  foreach(_tdc_library IN LISTS _tdc_fact_TDC_TORCH_LIBRARIES)
    list(APPEND _tdc_waiver_runs "--library=${_tdc_library}")
  endforeach()
  tdc_tools_environment(_tdc_tools_environment)
  add_test(waivers.every_waiver_applies_to_a_test "${TDC_PYTHON}" -m tdc check-waivers
    ${_tdc_waiver_runs} "--memo=${TDC_STATE}/waiver-check.memo")
  set_tests_properties(waivers.every_waiver_applies_to_a_test PROPERTIES LABELS "conformance;waivers"
    TIMEOUT 300 ENVIRONMENT "${_tdc_tools_environment}")
endif()
cmake_policy(POP)
