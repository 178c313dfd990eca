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
include("${CMAKE_CURRENT_LIST_DIR}/TdcDiscoveryFingerprint.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/TdcLevelLabels.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/TdcSuiteEntries.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/TdcResourceSpec.cmake")
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

# "0.2.3" -> "0.2", "1.4.0" -> "1": what must match (docs/install.md, "Versions").
function(_tdc_series out version)
  string(REGEX MATCH "^([0-9]+)[.]([0-9]+)" _ "${version}")
  if(CMAKE_MATCH_1 STREQUAL "0")
    set(${out} "0.${CMAKE_MATCH_2}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
endfunction()

# A failing entry of every level: the message (ARGN, concatenated), in one
# line, is its output.
function(_tdc_refuse name)
  string(CONCAT message ${ARGN})
  tdc_read_level_rules("${_tdc_tdc_levels}")
  _tdc_all_level_labels(labels "conformance;level3")
  _tdc_refusing_entry("TdcConfiguration.${name}" "${_tdc_batch}" "${labels}" "${message}")
endfunction()

# A manifest's first call: refuses its suites when they were built against
# another TDC series or another LibTorch build than this TDC.
function(tdc_installed_package)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;VERSION;TDC_VERSION;TORCH_VERSION;TORCH_VARIANT" "")
  _tdc_series(theirs "${arg_TDC_VERSION}")
  _tdc_series(mine "${_tdc_fact_TDC_VERSION}")
  set(refusal "")
  if(NOT theirs STREQUAL mine OR arg_TDC_VERSION VERSION_GREATER _tdc_fact_TDC_VERSION)
    set(refusal "${arg_NAME} ${arg_VERSION} (${_tdc_manifest}) was built against TDC ${arg_TDC_VERSION}; "
      "this TDC is ${_tdc_fact_TDC_VERSION}: rebuild it against this one")
  elseif(NOT arg_TORCH_VERSION STREQUAL _tdc_fact_TDC_TORCH_VERSION OR
         NOT arg_TORCH_VARIANT STREQUAL _tdc_fact_TDC_TORCH_VARIANT)
    set(refusal "${arg_NAME} ${arg_VERSION} (${_tdc_manifest}) was built against LibTorch "
      "${arg_TORCH_VERSION} (${arg_TORCH_VARIANT}); this TDC runs LibTorch ${_tdc_fact_TDC_TORCH_VERSION} "
      "(${_tdc_fact_TDC_TORCH_VARIANT}): rebuild it against this TDC")
  endif()
  string(JOIN "" refusal ${refusal})
  set(_tdc_package_refusal "${refusal}" PARENT_SCOPE)
  set(_tdc_package_name "${arg_NAME}" PARENT_SCOPE)
endfunction()

# One suite of a manifest: its plain entries and its loopback twin's, as a
# build tree declares them; paths relative to the manifest's prefix. PERCENT
# and DEVICES: the suite's claim (tdc_add_conformance_suite); a manifest
# written before suites had one gets this TDC's default share.
function(tdc_installed_suite)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;PROGRAM;TWIN;KNOWN_FAILURES;LEVELS;PERCENT;DEVICES" "LABELS")
  if(_tdc_package_refusal)
    _tdc_refuse("${arg_PROGRAM}" "${_tdc_package_refusal}")
    return()
  endif()
  list(FIND _tdc_suite_names "${arg_NAME}" known)
  if(NOT known EQUAL -1)
    _tdc_refuse("${arg_PROGRAM}.${_tdc_package_name}" "suite ${arg_NAME} of ${_tdc_manifest} is installed "
      "twice (another manifest has a suite of that name): a vendor suite needs a name of its own")
    return()
  endif()
  set(_tdc_suite_names ${_tdc_suite_names} "${arg_NAME}" PARENT_SCOPE)
  set(waivers "")
  if(arg_KNOWN_FAILURES)
    set(waivers "${_tdc_root}/${arg_KNOWN_FAILURES}")
  endif()
  set(levels "${_tdc_tdc_levels}")
  if(arg_LEVELS)
    list(APPEND levels "${_tdc_root}/${arg_LEVELS}")
  endif()
  if(NOT arg_PERCENT)
    set(arg_PERCENT "${_tdc_fact_TDC_GPU_PERCENT}")
  endif()
  if(NOT arg_DEVICES)
    set(arg_DEVICES ALL)
  endif()
  set(own_waivers "TDC_SUITE_KNOWN_FAILURES=${waivers}")
  set(runs "")
  set(binary "${_tdc_root}/libexec/tdc/${arg_PROGRAM}")
  string(MD5 place "${binary}")
  string(SUBSTRING "${place}" 0 8 place)
  tdc_suite_entries(BINARY "${binary}" BATCH "${_tdc_batch}" PROGRAM "${arg_PROGRAM}" SHORT_NAME "${arg_NAME}"
    PREFIX "" LABELS ${arg_LABELS} ENVIRONMENT "${own_waivers}"
    OWN_LIBRARIES ${_tdc_fact_TDC_TORCH_LIBRARIES} LISTING "${_tdc_listings}/${arg_PROGRAM}.${place}"
    BATCHES_DIR "${TDC_STATE}/batches" XML_DIR "${TDC_STATE}/ctest-gtest"
    PERCENT "${arg_PERCENT}" DEVICES "${arg_DEVICES}" LIST_TIMEOUT "${_tdc_fact_TDC_DISCOVERY_TIMEOUT}" LEVELS ${levels})
  list(APPEND runs "--run=${binary},${own_waivers}")
  if(arg_TWIN AND _tdc_loopback)
    set(twin "${_tdc_root}/libexec/tdc/${arg_TWIN}")
    set(twin_environment "TDC_BACKEND_LIBS=${_tdc_loopback}" TDC_DEVICES=privateuseone TDC_EXPECT=privateuseone:2
      "${own_waivers}")
    tdc_suite_entries(BINARY "${twin}" BATCH "${_tdc_batch}" PROGRAM "${arg_TWIN}" SHORT_NAME "${arg_NAME}"
      PREFIX "loopback:" LABELS ${arg_LABELS} loopback ENVIRONMENT ${twin_environment}
      OVERRIDDEN TDC_BACKEND_LIBS TDC_DEVICES TDC_EXPECT OWN_LIBRARIES ${_tdc_fact_TDC_TORCH_LIBRARIES}
      BACKEND_LIBRARIES "${_tdc_loopback}" LISTING "${_tdc_listings}/${arg_TWIN}.${place}"
      BATCHES_DIR "${TDC_STATE}/batches" XML_DIR "${TDC_STATE}/ctest-gtest"
      PERCENT "${arg_PERCENT}" DEVICES "${arg_DEVICES}" LIST_TIMEOUT "${_tdc_fact_TDC_DISCOVERY_TIMEOUT}" LEVELS ${levels})
    string(JOIN "," run "${twin}" ${twin_environment})
    list(APPEND runs "--run=${run}")
  endif()
  set(_tdc_waiver_runs ${_tdc_waiver_runs} ${runs} PARENT_SCOPE)
endfunction()

# An entry of its own that runs a suite program once (tdc_add_conformance_test()).
function(tdc_installed_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;PROGRAM;TIMEOUT;PASS_REGULAR_EXPRESSION"
    "ARGS;ENVIRONMENT;LABELS")
  if(_tdc_package_refusal)
    _tdc_refuse("${arg_PROGRAM}.${arg_NAME}" "${_tdc_package_refusal}")
    return()
  endif()
  add_test("${arg_NAME}" "${_tdc_root}/libexec/tdc/${arg_PROGRAM}" ${arg_ARGS})
  set_tests_properties("${arg_NAME}" PROPERTIES LABELS "${arg_LABELS}" TIMEOUT "${arg_TIMEOUT}"
    ENVIRONMENT "${arg_ENVIRONMENT}")
  if(arg_PASS_REGULAR_EXPRESSION)
    set_tests_properties("${arg_NAME}" PROPERTIES PASS_REGULAR_EXPRESSION "${arg_PASS_REGULAR_EXPRESSION}")
  endif()
endfunction()

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
