# Included by the generated suite scripts (cmake/TdcSuiteTests.cmake.in) at
# ctest time, before a suite's cached test list is used.
#
# tdc_discovery_fingerprint(<out> <binary> <overridden> <own libraries> <backend libraries>)
# A suite's list depends on the host, on the environment named in
# cmake/discovery-environment.txt (TDC_DEVICES, TDC_EXPECT, plugins, masked
# GPUs), on the binary and on the libraries loaded at run time: <out> is a
# digest of all of them. <overridden>: variables the entry sets itself (a
# loopback twin sets its own backend, devices and expectation), so a vendor's
# settings never make a twin list again. A library is known by its path,
# size and modification time (backend libraries, which are small, by their
# content too), so one rebuilt in place is listed again. <own libraries>:
# LibTorch's; <backend libraries>: those the entry loads itself (the
# loopback twin's), besides TDC_BACKEND_LIBS.
# Included again by every suite's script: functions are global, variables per directory.

# Read once per ctest run (a global property: ctest gives each directory's
# scripts a scope of their own, but one global state).
function(_tdc_discovery_environment out)
  get_property(known GLOBAL PROPERTY TDC_DISCOVERY_ENVIRONMENT SET)
  if(NOT known)
    file(STRINGS "${_TDC_FINGERPRINT_DIR}/discovery-environment.txt" lines REGEX "^[^#]")
    set(include "")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "#.*" "" line "${line}")
      string(STRIP "${line}" line)
      # "!NAME": read when the entries are made, not part of the cached list.
      if(NOT line STREQUAL "" AND NOT line MATCHES "^!")
        list(APPEND include "${line}")
      endif()
    endforeach()
    list(JOIN include "|" regex)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E environment OUTPUT_VARIABLE environment)
    string(REGEX MATCHALL "(^|\n)(${regex})=[^\n]*" found "${environment}")
    list(TRANSFORM found STRIP)
    cmake_host_system_information(RESULT host QUERY HOSTNAME)
    set_property(GLOBAL PROPERTY TDC_DISCOVERY_ENVIRONMENT "${host};${found}")
  endif()
  get_property(value GLOBAL PROPERTY TDC_DISCOVERY_ENVIRONMENT)
  set(${out} "${value}" PARENT_SCOPE)
endfunction()
set(_TDC_FINGERPRINT_DIR "${CMAKE_CURRENT_LIST_DIR}")

# by_content: backend libraries, small and rebuilt in place by vendors.
function(_tdc_library_identity out library by_content)
  if(library STREQUAL "" OR NOT EXISTS "${library}")
    set(${out} "${library}=missing" PARENT_SCOPE)
    return()
  endif()
  file(TIMESTAMP "${library}" mtime "%Y-%m-%dT%H:%M:%S" UTC)
  file(SIZE "${library}" size)
  set(hash "")
  if(by_content AND size LESS 67108864)
    file(MD5 "${library}" hash)
  endif()
  set(${out} "${library}=${size},${mtime},${hash}" PARENT_SCOPE)
endfunction()

function(tdc_discovery_fingerprint out binary overridden own_libraries backend_libraries)
  _tdc_discovery_environment(fingerprint)
  foreach(name IN LISTS overridden)
    list(FILTER fingerprint EXCLUDE REGEX "^${name}=")
  endforeach()
  # The loopback's settings reach a process only through a backend library:
  # without one (neither the entry's own, as a twin's or the resource spec's
  # twin devices, nor TDC_BACKEND_LIBS), they change nothing.
  if(overridden STREQUAL "" AND backend_libraries STREQUAL "" AND "$ENV{TDC_BACKEND_LIBS}" STREQUAL "")
    list(FILTER fingerprint EXCLUDE REGEX "^TDC_LOOPBACK_")
  endif()
  list(SORT fingerprint)
  set(backends "${backend_libraries}")
  # list(FIND), not IN_LIST: ctest reads this without the project's policies.
  list(FIND overridden TDC_BACKEND_LIBS backends_overridden)
  if(backends_overridden EQUAL -1)
    string(REPLACE ":" ";" from_environment "$ENV{TDC_BACKEND_LIBS}")
    list(APPEND backends ${from_environment})
  endif()
  foreach(library IN LISTS backends)
    _tdc_library_identity(identity "${library}" TRUE)
    list(APPEND fingerprint "${identity}")
  endforeach()
  foreach(library IN LISTS own_libraries binary)
    _tdc_library_identity(identity "${library}" FALSE)
    list(APPEND fingerprint "${identity}")
  endforeach()
  string(MD5 digest "${fingerprint}")
  set(${out} "${digest}" PARENT_SCOPE)
endfunction()
