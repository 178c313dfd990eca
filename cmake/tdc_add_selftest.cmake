include_guard(GLOBAL)
# tdc_add_selftest() (included by cmake/TdcTesting.cmake).

#[=======================================================================[
tdc_add_selftest(NAME <name> COMMAND <cmd>... [TIMEOUT <s>] [ENVIRONMENT <k=v>...]
                 [LABELS <label>...])
The project's own tests (label: selftest), as opposed to conformance checks.
A self-test decides its verdict itself (check_run.py, expect_failures.py):
exit status 0 passed, anything else failed. Every self-test finds the
Python tools' package (ci/tdc) on Python's path (tdc_tools_environment),
never by editing sys.path.
#]=======================================================================]
function(tdc_add_selftest)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TIMEOUT" "COMMAND;ENVIRONMENT;LABELS")
  if(NOT arg_NAME OR NOT arg_COMMAND)
    message(FATAL_ERROR "tdc_add_selftest: NAME and COMMAND are required")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  add_test(NAME selftest.${arg_NAME} COMMAND ${arg_COMMAND})
  tdc_tools_environment(environment)
  list(APPEND environment ${arg_ENVIRONMENT})
  set_tests_properties(selftest.${arg_NAME} PROPERTIES
    LABELS "selftest;${arg_LABELS}" TIMEOUT ${arg_TIMEOUT} ENVIRONMENT "${environment}")
endfunction()
