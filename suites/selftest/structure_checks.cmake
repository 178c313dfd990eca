# The structure holds: programs that are not test suites carry no
# GoogleTest, result tools read the fixtures' metadata rather than test
# names, and the README's example check compiles and runs as written.
tdc_add_selftest(NAME core_programs_link_no_googletest
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/links_no_googletest.py"
    --with-googletest $<TARGET_FILE:tdc_forward>
    --without-googletest $<TARGET_FILE:tdc_core> $<TARGET_FILE:device_select> $<TARGET_FILE:tdc_context>
      $<TARGET_FILE:tdc_cold_start> $<TARGET_FILE:tdc_bench_transfer> $<TARGET_FILE:tdc_bench_forward>)

if(TARGET tdc_loopback)
  tdc_add_selftest(NAME results_carry_device_metadata
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/results_carry_metadata.py"
      --suite $<TARGET_FILE:tdc_forward> --loopback $<TARGET_FILE:tdc_loopback>
      --summarize "${PROJECT_SOURCE_DIR}/ci/summarize.py")
endif()

# The example is taken from README.md at configure time (a README edit
# reconfigures), and built without the precompiled header, so that it
# compiles only if its own includes suffice.
set(readme "${PROJECT_SOURCE_DIR}/README.md")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${readme}")
file(READ "${readme}" readme_text)
string(FIND "${readme_text}" "A new device-generic check" example_at)
if(example_at GREATER -1)
  string(SUBSTRING "${readme_text}" ${example_at} -1 readme_text)
  string(REGEX MATCH "```cpp\n([^`]*)```" readme_example "${readme_text}")
endif()
if(example_at EQUAL -1 OR NOT CMAKE_MATCH_1)
  message(FATAL_ERROR "README.md: no ```cpp example after 'A new device-generic check'")
endif()
file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/readme_example.cpp" CONTENT "${CMAKE_MATCH_1}" @ONLY)
add_executable(tdc_readme_example "${CMAKE_CURRENT_BINARY_DIR}/readme_example.cpp")
target_link_libraries(tdc_readme_example PRIVATE tdc_alignment_guard tdc_gtest_main)
tdc_target_uses_torch(tdc_readme_example)
set_target_properties(tdc_readme_example PROPERTIES DISABLE_PRECOMPILE_HEADERS ON
  RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
if(TARGET tdc_loopback)
  set(readme_env --env TDC_BACKEND_LIBS=$<TARGET_FILE:tdc_loopback> --env TDC_DEVICES=privateuseone
    --env TDC_EXPECT=privateuseone:2)
  tdc_add_selftest(NAME readme_example_passes_on_the_loopback
    COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 0 --stdout-has "[  PASSED  ] 2 tests."
      ${readme_env} -- $<TARGET_FILE:tdc_readme_example>)
  # Its check has teeth: a loopback that corrupts copies fails it.
  tdc_add_selftest(NAME readme_example_fails_on_a_corrupting_device
    COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 1 --stdout-has "[  FAILED  ] 2 tests"
      ${readme_env} --env TDC_LOOPBACK_FAULT=corrupt-copy -- $<TARGET_FILE:tdc_readme_example>)
endif()
