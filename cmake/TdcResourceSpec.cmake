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
  # One spec per fingerprint, never rewritten: ctest runs at once with other
  # settings never read each other's; the lock makes a second run with the
  # same settings wait for the first one's spec.
  set(_tdc_spec "${arg_DIR}/resources.${_tdc_fingerprint}.json")
  set(_tdc_locked "")
  if(NOT EXISTS "${_tdc_spec}")
    file(LOCK "${arg_DIR}/resources.lock" TIMEOUT ${arg_TIMEOUT} RESULT_VARIABLE _tdc_locked)
  endif()
  if(NOT EXISTS "${_tdc_spec}")
    set(_tdc_runs "plain")
    if(EXISTS "${arg_LOOPBACK}")
      list(APPEND _tdc_runs "twin")
    endif()
    set(_tdc_local "{}")
    set(_tdc_spec_error "")
    foreach(_tdc_run IN LISTS _tdc_runs)
      set(_tdc_env "")
      if(_tdc_run STREQUAL "twin")  # the twins' settings (cmake/TdcTesting.cmake)
        set(_tdc_env "TDC_BACKEND_LIBS=${arg_LOOPBACK}" TDC_DEVICES=privateuseone TDC_EXPECT=privateuseone:2)
      endif()
      execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${_tdc_env} "${arg_DEVICE_SELECT}"
          "--resource-spec=${_tdc_spec}.${_tdc_run}" --resource-slots=100
        TIMEOUT ${arg_TIMEOUT} RESULT_VARIABLE _tdc_result ERROR_VARIABLE _tdc_error OUTPUT_QUIET)
      if(NOT _tdc_result EQUAL 0)
        string(STRIP "${_tdc_error}" _tdc_error)
        set(_tdc_spec_error "device_select (${_tdc_run} devices) exited ${_tdc_result}: ${_tdc_error}")
        break()
      endif()
      file(READ "${_tdc_spec}.${_tdc_run}" _tdc_json)
      file(REMOVE "${_tdc_spec}.${_tdc_run}")
      string(JSON _tdc_kinds GET "${_tdc_json}" local 0)
      string(JSON _tdc_count LENGTH "${_tdc_kinds}")
      if(_tdc_count GREATER 0)
        math(EXPR _tdc_last "${_tdc_count} - 1")
        foreach(_tdc_i RANGE ${_tdc_last})
          string(JSON _tdc_kind MEMBER "${_tdc_kinds}" ${_tdc_i})
          string(JSON _tdc_value GET "${_tdc_kinds}" "${_tdc_kind}")
          string(JSON _tdc_local SET "${_tdc_local}" "${_tdc_kind}" "${_tdc_value}")
        endforeach()
      endif()
    endforeach()
    if(_tdc_spec_error STREQUAL "")
      file(WRITE "${_tdc_spec}.new" "{\"version\": {\"major\": 1, \"minor\": 0}, \"local\": [${_tdc_local}]}\n")
      file(RENAME "${_tdc_spec}.new" "${_tdc_spec}")
    else()
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

# tdc_resource_spec_covers(<kinds>...): called by a suite's script for the
# resource kinds an entry claims. A spec that lacks one (written by a run
# whose devices differed under the same fingerprint: a setting discovery
# reads but the fingerprint does not) would leave the entry "Not Run" with
# CTest's "requested resources ... which does not exist". The spec is
# written once more from discovery, at most once per ctest run; a kind still
# missing after that is reported by CTest as before, now with this line.
function(tdc_resource_spec_covers)
  get_property(spec GLOBAL PROPERTY TDC_RESOURCE_SPEC)
  if(spec STREQUAL "" OR NOT EXISTS "${spec}")
    return()  # no spec named: claims are not enforced (tdc_resource_spec says why)
  endif()
  file(READ "${spec}" json)
  set(missing "")
  foreach(kind IN LISTS ARGN)
    string(FIND "${json}" "\"${kind}\"" at)
    if(at EQUAL -1)
      list(APPEND missing "${kind}")
    endif()
  endforeach()
  if(missing STREQUAL "")
    return()
  endif()
  get_property(rewritten GLOBAL PROPERTY TDC_RESOURCE_SPEC_REWRITTEN)
  if(NOT rewritten)
    set_property(GLOBAL PROPERTY TDC_RESOURCE_SPEC_REWRITTEN TRUE)
    get_property(args GLOBAL PROPERTY TDC_RESOURCE_SPEC_ARGS)
    message(STATUS "TDC: the resource spec ${spec} lacks ${missing}: writing it again from discovery")
    file(REMOVE "${spec}")
    tdc_resource_spec(${args})
    if(EXISTS "${spec}")
      file(READ "${spec}" json)
      set(still "")
      foreach(kind IN LISTS missing)
        string(FIND "${json}" "\"${kind}\"" at)
        if(at EQUAL -1)
          list(APPEND still "${kind}")
        endif()
      endforeach()
      set(missing "${still}")
    endif()
  endif()
  if(NOT missing STREQUAL "")
    message(STATUS "TDC: the resource spec ${spec} still lacks ${missing} after discovery wrote it again: "
      "entries claiming them are Not Run")
  endif()
endfunction()
