# Included with cmake/tdc_resource_spec.cmake (the spec it checks, and
# _tdc_spec_write, which writes it again) by the resource-spec script ctest
# runs at its start.

# _tdc_spec_lacks(<out> <spec> <kinds>...): the kinds the spec file does not name.
function(_tdc_spec_lacks out spec)
  file(READ "${spec}" json)
  set(missing "")
  foreach(kind IN LISTS ARGN)
    string(FIND "${json}" "\"${kind}\"" at)
    if(at EQUAL -1)
      list(APPEND missing "${kind}")
    endif()
  endforeach()
  set(${out} "${missing}" PARENT_SCOPE)
endfunction()

# tdc_resource_spec_covers(<kinds>...): called by a suite's script for the
# resource kinds an entry claims. A spec that lacks one (written by a run
# whose devices differed under the same fingerprint: a setting discovery
# reads but the fingerprint does not) would leave the entry "Not Run" with
# CTest's "requested resources ... which does not exist". The spec is
# written again from discovery, at most once per ctest run. A kind still
# missing after that (or when discovery fails then, which leaves the old
# spec as it was) is said once, on a line ctest prints (NOTICE: ctest shows
# no STATUS message of a test file); CTest then reports its entries as above.
function(tdc_resource_spec_covers)
  get_property(spec GLOBAL PROPERTY TDC_RESOURCE_SPEC)
  if(spec STREQUAL "" OR NOT EXISTS "${spec}")
    return()  # no spec named: claims are not enforced (tdc_resource_spec says why)
  endif()
  _tdc_spec_lacks(missing "${spec}" ${ARGN})
  if(missing STREQUAL "")
    return()
  endif()
  get_property(rewritten GLOBAL PROPERTY TDC_RESOURCE_SPEC_REWRITTEN)
  if(NOT rewritten)
    set_property(GLOBAL PROPERTY TDC_RESOURCE_SPEC_REWRITTEN TRUE)
    get_property(args GLOBAL PROPERTY TDC_RESOURCE_SPEC_ARGS)
    cmake_parse_arguments(arg "" "DEVICE_SELECT;LOOPBACK;DIR;TIMEOUT" "LIBRARIES" ${args})
    file(LOCK "${arg_DIR}/resources.lock" TIMEOUT ${arg_TIMEOUT} RESULT_VARIABLE locked)
    _tdc_spec_write(error "${spec}" "${arg_DEVICE_SELECT}" "${arg_LOOPBACK}" "${arg_TIMEOUT}")
    if(locked STREQUAL "0")
      file(LOCK "${arg_DIR}/resources.lock" RELEASE)
    endif()
    set_property(GLOBAL PROPERTY TDC_RESOURCE_SPEC_ERROR "${error}")
    _tdc_spec_lacks(missing "${spec}" ${missing})
  endif()
  get_property(said GLOBAL PROPERTY TDC_RESOURCE_SPEC_SAID)
  if(NOT said STREQUAL "")
    list(REMOVE_ITEM missing ${said})
  endif()
  if(NOT missing STREQUAL "")
    set_property(GLOBAL APPEND PROPERTY TDC_RESOURCE_SPEC_SAID ${missing})
    get_property(error GLOBAL PROPERTY TDC_RESOURCE_SPEC_ERROR)
    if(error STREQUAL "")
      set(error "discovery wrote it again without them")
    else()
      set(error "discovery could not write it again: ${error}")
    endif()
    list(JOIN missing ", " missing)
    message(NOTICE "TDC: the resource spec ${spec} lacks ${missing} (${error}): entries claiming them are Not Run")
  endif()
endfunction()
