include_guard(GLOBAL)
#[=======================================================================[
Every suite binary registers how it is run (tdc_register_suite_run); once
every suite is known, one ctest entry asks each binary which waivers apply to
its tests (--tdc-waiver-matches) and fails on a waiver that applies nowhere
(a typo'd glob, an unknown device type), naming its file and line.
#]=======================================================================]
include("${CMAKE_CURRENT_LIST_DIR}/tdc_register_suite_run.cmake")

function(_tdc_add_waiver_check)
  get_property(runs GLOBAL PROPERTY TDC_SUITE_RUNS)
  if(NOT runs)
    return()
  endif()
  # The verdict is kept while nothing it depends on changes: the host, the
  # discovery environment, the libraries, the binaries and the waiver files
  # (tdc check-waivers says how). Each run names its suite's own waiver file
  # (TDC_SUITE_KNOWN_FAILURES); TDC_KNOWN_FAILURES, when set, replaces them all.
  _tdc_torch_identity_libraries(libraries)
  tdc_tools_environment(environment)
  list(TRANSFORM libraries PREPEND "--library=")
  add_test(NAME waivers.every_waiver_applies_to_a_test
    COMMAND "${Python3_EXECUTABLE}" -m tdc check-waivers ${runs} ${libraries}
      "--memo=${CMAKE_BINARY_DIR}/results/waiver-check.memo")
  set_tests_properties(waivers.every_waiver_applies_to_a_test PROPERTIES
    LABELS "conformance;waivers" TIMEOUT 300 ENVIRONMENT "${environment}")
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _tdc_add_waiver_check)
