# Included by the resource-spec script ctest runs at its start (a build
# tree's, from cmake/TdcResourceSpec.cmake.in; an installed TDC's, from
# cmake/TdcInstalledTests.cmake). It writes CTest's resource specification
# from discovery (device_select --resource-spec: one resource kind per
# device, for the devices the plain entries run on and those of the loopback
# twins) and names it in CTEST_RESOURCE_SPEC_FILE, so that a plain
# `ctest -j8` honours every entry's claim (RESOURCE_GROUPS), as rapids-cmake's
# rapids_test_init does. The spec is kept while the discovery fingerprint
# holds. When discovery cannot write it (a broken backend), no spec is named:
# the entries then run and fail naming the real cause, rather than waiting
# for resources that do not exist. `--resource-spec-file` still overrides it.
#
# tdc_resource_spec(DEVICE_SELECT <program> LOOPBACK <library or ""> LIBRARIES <LibTorch's>...
#                   DIR <where specs are kept> TIMEOUT <seconds>)
# Sets CTEST_RESOURCE_SPEC_FILE in the caller's scope (the CTestTestfile's).
function(tdc_resource_spec)
  # Kept for tdc_resource_spec_covers, which may write the spec again.
  set_property(GLOBAL PROPERTY TDC_RESOURCE_SPEC_ARGS "${ARGV}")
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "DEVICE_SELECT;LOOPBACK;DIR;TIMEOUT" "LIBRARIES")
  tdc_discovery_fingerprint(_tdc_fingerprint "${arg_DEVICE_SELECT}" "" "${arg_LIBRARIES}" "${arg_LOOPBACK}")
  # One spec per fingerprint: ctest runs at once with other settings never
  # read each other's; the lock makes a second run with the same settings
  # wait for the first one's spec.
  set(_tdc_spec "${arg_DIR}/resources.${_tdc_fingerprint}.json")
  set(_tdc_locked "")
  if(NOT EXISTS "${_tdc_spec}")
    file(LOCK "${arg_DIR}/resources.lock" TIMEOUT ${arg_TIMEOUT} RESULT_VARIABLE _tdc_locked)
  endif()
  if(NOT EXISTS "${_tdc_spec}")
    _tdc_spec_write(_tdc_spec_error "${_tdc_spec}" "${arg_DEVICE_SELECT}" "${arg_LOOPBACK}" "${arg_TIMEOUT}")
    if(NOT _tdc_spec_error STREQUAL "")
      message(STATUS "TDC: no resource spec for this run (device claims are not enforced): ${_tdc_spec_error}")
    endif()
  endif()
  if(_tdc_locked STREQUAL "0")
    file(LOCK "${arg_DIR}/resources.lock" RELEASE)
  endif()
  if(EXISTS "${_tdc_spec}")
    set(CTEST_RESOURCE_SPEC_FILE "${_tdc_spec}" PARENT_SCOPE)
    set_property(GLOBAL PROPERTY TDC_RESOURCE_SPEC "${_tdc_spec}")
  endif()
endfunction()

# _tdc_spec_write(<error out> <spec> <device_select> <loopback> <timeout>):
# discovery's spec (the plain entries' devices and the loopback twins'),
# written beside <spec> and renamed onto it, so that a ctest reading it
# meanwhile finds the old spec or the new one, never none; when discovery
# fails, <spec> is left as it was and <error out> says why (else "").
function(_tdc_spec_write out spec device_select loopback timeout)
  set(runs "plain")
  if(EXISTS "${loopback}")
    list(APPEND runs "twin")
  endif()
  set(local "{}")
  foreach(run IN LISTS runs)
    set(env "")
    if(run STREQUAL "twin")  # the twins' settings (cmake/tdc_add_conformance_suite.cmake)
      set(env "TDC_BACKEND_LIBS=${loopback}" TDC_DEVICES=privateuseone TDC_EXPECT=privateuseone:2)
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${env} "${device_select}"
        "--resource-spec=${spec}.${run}" --resource-slots=100
      TIMEOUT ${timeout} RESULT_VARIABLE result ERROR_VARIABLE error OUTPUT_QUIET)
    if(NOT result EQUAL 0)
      file(REMOVE "${spec}.${run}")
      string(STRIP "${error}" error)
      set(${out} "device_select (${run} devices) exited ${result}: ${error}" PARENT_SCOPE)
      return()
    endif()
    file(READ "${spec}.${run}" json)
    file(REMOVE "${spec}.${run}")
    string(JSON kinds GET "${json}" local 0)
    string(JSON count LENGTH "${kinds}")
    if(count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(i RANGE ${last})
        string(JSON kind MEMBER "${kinds}" ${i})
        string(JSON value GET "${kinds}" "${kind}")
        string(JSON local SET "${local}" "${kind}" "${value}")
      endforeach()
    endif()
  endforeach()
  file(WRITE "${spec}.new" "{\"version\": {\"major\": 1, \"minor\": 0}, \"local\": [${local}]}\n")
  file(RENAME "${spec}.new" "${spec}")
  set(${out} "" PARENT_SCOPE)
endfunction()
