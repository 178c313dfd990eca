# The Python tools (ci/tdc): their units under pytest, the hostile-input
# corpus against every entry point, and the results tools' own self-tests.

# One entry per file of ci/tests, run by Debian's python3 (python3-pytest);
# skipped, saying so, where it lacks the packages.
find_program(TDC_DEBIAN_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT TDC_DEBIAN_PYTHON)
  set(TDC_DEBIAN_PYTHON "${Python3_EXECUTABLE}")
endif()
file(GLOB unit_files CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/ci/tests/test_*.py")
foreach(unit_file IN LISTS unit_files)
  get_filename_component(unit "${unit_file}" NAME_WE)
  string(REGEX REPLACE "^test_" "" unit "${unit}")
  tdc_add_selftest(NAME unit.${unit} TIMEOUT 300
    COMMAND "${TDC_DEBIAN_PYTHON}" "${CMAKE_CURRENT_SOURCE_DIR}/pytest_units.py" "${unit_file}")
  set_tests_properties(selftest.unit.${unit} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()

# Damaged, wrong-typed, non-UTF-8, not-a-number, huge, linked and duplicated
# input against each entry point: the documented exit status and one line
# (suites/selftest/hostile/cases.py).
foreach(entry annotate check-thresholds check-waivers compare context health mustpass package
        resource-spec run summarize verdict verify)
  tdc_add_selftest(NAME hostile.${entry} TIMEOUT 600
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/hostile_inputs.py" --entry ${entry}
      --build-dir "${CMAKE_BINARY_DIR}")
endforeach()

tdc_add_selftest(NAME summarize_groups_failures_by_root_cause
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/summary_groups_root_causes.py")
tdc_add_selftest(NAME fault_matrix_selects_by_metadata
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fault_matrix_selects_by_metadata.py")
