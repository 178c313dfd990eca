include_guard(GLOBAL)
# tdc_add_conformance_test() (included by cmake/TdcTesting.cmake); its
# line in the manifest joins those of tdc_add_conformance_suite().

#[=======================================================================[
tdc_add_conformance_test(NAME <name> PROGRAM <suite target> [ARGS <arg>...]
                         [ENVIRONMENT <k=v>...] [LABELS <label>...]
                         [PASS_REGULAR_EXPRESSION <regex>] [TIMEOUT <s>])
A ctest entry of its own that runs a suite program once, with settings of its
own (selection's masked accelerator): registered in this build and, like the
suites, in an installed TDC's (share/tdc/suites.d).
#]=======================================================================]
function(tdc_add_conformance_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;PROGRAM;PASS_REGULAR_EXPRESSION;TIMEOUT"
    "ARGS;ENVIRONMENT;LABELS")
  if(NOT arg_NAME OR NOT arg_PROGRAM)
    message(FATAL_ERROR "tdc_add_conformance_test: NAME and PROGRAM are required")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 120)
  endif()
  add_test(NAME ${arg_NAME} COMMAND ${arg_PROGRAM} ${arg_ARGS})
  set_tests_properties(${arg_NAME} PROPERTIES LABELS "${arg_LABELS}" TIMEOUT ${arg_TIMEOUT}
    ENVIRONMENT "${arg_ENVIRONMENT}")
  if(arg_PASS_REGULAR_EXPRESSION)
    set_tests_properties(${arg_NAME} PROPERTIES PASS_REGULAR_EXPRESSION "${arg_PASS_REGULAR_EXPRESSION}")
  endif()
  set(call "tdc_installed_test(NAME \"${arg_NAME}\" PROGRAM \"${arg_PROGRAM}\" TIMEOUT ${arg_TIMEOUT}")
  foreach(field ARGS ENVIRONMENT LABELS)
    string(APPEND call "\n  ${field}")
    foreach(value IN LISTS arg_${field})
      _tdc_cmake_quoted(value "${value}")
      string(APPEND call " ${value}")
    endforeach()
  endforeach()
  if(arg_PASS_REGULAR_EXPRESSION)
    _tdc_cmake_quoted(regex "${arg_PASS_REGULAR_EXPRESSION}")
    string(APPEND call "\n  PASS_REGULAR_EXPRESSION ${regex}")
  endif()
  set_property(GLOBAL APPEND_STRING PROPERTY TDC_MANIFEST "${call})\n")
endfunction()

# "a\b;c" -> "\"a\\\\b;c\"": a value as a quoted CMake argument.
function(_tdc_cmake_quoted out value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  string(REPLACE "$" "\\$" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()
