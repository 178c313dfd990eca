# Called by a manifest an installed TDC's ctest reads. cmake/TdcInstalledTests.cmake
# includes this file, says what the manifests are, and defines what it reads:
# this TDC's facts (_tdc_fact_*), the manifest's prefix (_tdc_root), _tdc_refuse.

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
