# The loopback's fault registry (fixtures/loopback/faults/registry.json) and
# what is made from it agree: the hooks, the docs, the fault matrix's rows
# and the C++ names. Each of these self-tests also proves it can fail.
# (tdc_add_selftest puts the tools, ci/, on each entry's PYTHONPATH.)

# The registry against the hooks' sources and the docs, and the matrix's
# selection: Python over files, which no LibTorch build changes (tool
# self-tests, ci/selftest's first build). The hooks' compile check is C++.
if(TDC_TOOL_SELFTESTS)
tdc_add_selftest(NAME faults.registry_hooks_and_docs_agree
  COMMAND "${Python3_EXECUTABLE}" -m tdc faults --check)
tdc_add_selftest(NAME faults.registry_check_has_teeth
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fault_registry_checks.py")
tdc_add_selftest(NAME fault_matrix_selects_by_metadata
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fault_matrix_selects_by_metadata.py")
endif()
if(TARGET tdc_loopback)
  tdc_add_selftest(NAME faults.hook_names_are_checked_by_the_build
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fault_hooks_compile.py"
      --cxx "${CMAKE_CXX_COMPILER}" --include "${PROJECT_SOURCE_DIR}/fixtures/loopback"
      --include "${CMAKE_BINARY_DIR}/fixtures/loopback/generated")
endif()

# The minimal-backend personalities (issue 33): each run's "What to add"
# names its gap and nothing else, and no failure says only where or what.
# Their rows of the fault matrix, run here on every loopback build.
if(TARGET tdc_loopback)
  tdc_add_selftest(NAME what_to_add_names_each_personalitys_gap TIMEOUT 1500
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fault_matrix.py" --build-dir "${CMAKE_BINARY_DIR}"
      --backend-name "${TDC_PRIVATEUSE1_NAME}"
      --only no-streams,no-events,missing-kernel=sum,missing-kernel=uniform,pinned-flag-global)
endif()

if(NOT TDC_TOOL_SELFTESTS)  # the rest reads docs: tool self-tests
  return()
endif()
# docs/backends.md and the checks stay in step: every check it names exists,
# every fault with a `requirement` is named with its checks in that section.
# Its negatives: the page with a check renamed, and without a section a
# fault names (copies made here, from the page as it is).
set(backends_doc "${PROJECT_SOURCE_DIR}/docs/backends.md")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${backends_doc}")
file(READ "${backends_doc}" backends_text)
string(REPLACE "GuardInvalidIndex.RaisesAnErrorNamingTheIndex" "GuardInvalidIndex.RaisesNothing"
  renamed_text "${backends_text}")
string(REPLACE "### Host allocator" "Host allocator" unsectioned_text "${backends_text}")
set(backends_negatives "${CMAKE_CURRENT_BINARY_DIR}/backends_doc")
file(WRITE "${backends_negatives}/renamed_check.md" "${renamed_text}")
file(WRITE "${backends_negatives}/section_missing.md" "${unsectioned_text}")
tdc_add_selftest(NAME backends_doc.names_the_checks
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/backends_doc_checks.py")
foreach(negative renamed_check section_missing)
  tdc_add_selftest(NAME backends_doc.fails_with_${negative}
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/backends_doc_checks.py"
      --doc "${backends_negatives}/${negative}.md")
  set_tests_properties(selftest.backends_doc.fails_with_${negative} PROPERTIES
    PASS_REGULAR_EXPRESSION "FAILED: .*(GuardInvalidIndex.RaisesNothing|Host allocator)")
endforeach()
