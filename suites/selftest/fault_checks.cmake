# The loopback's fault registry (fixtures/loopback/faults/registry.json) and
# what is made from it agree: the hooks, the docs, the fault matrix's rows
# and the C++ names. Each of these self-tests also proves it can fail.
set(tdc_python_path "PYTHONPATH=${PROJECT_SOURCE_DIR}/ci")

tdc_add_selftest(NAME faults.registry_hooks_and_docs_agree
  COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/ci/faults" --check)
tdc_add_selftest(NAME faults.registry_check_has_teeth
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fault_registry_checks.py"
  ENVIRONMENT "${tdc_python_path}")
tdc_add_selftest(NAME fault_matrix_selects_by_metadata
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fault_matrix_selects_by_metadata.py"
  ENVIRONMENT "${tdc_python_path}")
if(TARGET tdc_loopback)
  tdc_add_selftest(NAME faults.hook_names_are_checked_by_the_build
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fault_hooks_compile.py"
      --cxx "${CMAKE_CXX_COMPILER}" --include "${PROJECT_SOURCE_DIR}/fixtures/loopback"
      --include "${CMAKE_BINARY_DIR}/fixtures/loopback/generated"
    ENVIRONMENT "${tdc_python_path}")
endif()
