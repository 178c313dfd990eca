# The structure holds: programs that are not test suites carry no
# GoogleTest, result tools read the fixtures' metadata rather than test
# names, and the README's example check compiles and runs as written.
set(programs_without_googletest $<TARGET_FILE:tdc_core> $<TARGET_FILE:device_select> $<TARGET_FILE:tdc_context>)
if(TARGET tdc_bench_transfer)  # TDC_BUILD_BENCHMARKS
  list(APPEND programs_without_googletest $<TARGET_FILE:tdc_cold_start>
       $<TARGET_FILE:tdc_bench_transfer> $<TARGET_FILE:tdc_bench_forward>)
endif()
tdc_add_selftest(NAME core_programs_link_no_googletest
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/links_no_googletest.py"
    --with-googletest $<TARGET_FILE:tdc_forward> --without-googletest ${programs_without_googletest})

if(TARGET tdc_loopback)
  tdc_add_selftest(NAME results_carry_device_metadata
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/results_carry_metadata.py"
      --suite $<TARGET_FILE:tdc_forward> --loopback $<TARGET_FILE:tdc_loopback>)
endif()

# Every guard check records its device, also where cpu skips it.
tdc_add_pytest_selftest(NAME guard_checks_record_their_device FILE test_guard_properties.py
  ENVIRONMENT TDC_GUARD_SUITE=$<TARGET_FILE:tdc_guard>)

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

# Resource groups from discovery keep tests apart per device: ctest -j4 with
# a test holding all of its loopback device never runs two on it at once.
# CTest's and the entries' machinery, the same on every LibTorch build (the
# device names each build gives are checked on each by the test below): a
# tool self-test, on ci/selftest's first build.
if(TARGET tdc_loopback AND TDC_TOOL_SELFTESTS)
  tdc_add_selftest(NAME resources_keep_tests_apart_per_device TIMEOUT 1200
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/resources_keep_tests_apart.py"
      --build-dir "${CMAKE_BINARY_DIR}" --share ${TDC_GPU_PERCENT})
  set_tests_properties(selftest.resources_keep_tests_apart_per_device PROPERTIES RUN_SERIAL TRUE
    LABELS "selftest;nested")
endif()
# Each suite claims its own share (tdc_add_conformance_suite's PERCENT): the
# build's entries give OutOfMemory a whole device and other checks a share,
# and a real ctest run with those claims over one 100-slot device runs two
# small checks together and OutOfMemory alone; with OutOfMemory's claim the
# small share it fails (ci/tests/test_device_claims.py). CTest's and the
# registration's machinery: a tool self-test, on ci/selftest's first build.
if(TARGET tdc_loopback AND TDC_TOOL_SELFTESTS)
  tdc_add_pytest_selftest(NAME device_claims_keep_out_of_memory_alone FILE test_device_claims.py
    ENVIRONMENT TDC_CLAIMS_BUILD=${CMAKE_BINARY_DIR})
  set_tests_properties(selftest.device_claims_keep_out_of_memory_alone PROPERTIES LABELS "selftest;nested")
endif()
# A test handed another device's resource fails naming both.
string(TOUPPER "${TDC_PRIVATEUSE1_NAME}" TDC_PRIVATEUSE1_NAME_UPPER)
if(TARGET tdc_loopback)
  tdc_add_selftest(NAME resource_of_another_device_fails_the_test
    COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 1
      --stdout-has "ctest allocated '${TDC_PRIVATEUSE1_NAME}_1' to a test on ${TDC_PRIVATEUSE1_NAME}:0"
      --env TDC_BACKEND_LIBS=$<TARGET_FILE:tdc_loopback> --env TDC_DEVICES=privateuseone
      --env CTEST_RESOURCE_GROUP_COUNT=1 --env CTEST_RESOURCE_GROUP_0=${TDC_PRIVATEUSE1_NAME}_1
      --env CTEST_RESOURCE_GROUP_0_${TDC_PRIVATEUSE1_NAME_UPPER}_1=id:1,slots:50
      -- $<TARGET_FILE:tdc_placement> --gtest_filter=Placement.RoundTrip16MiBIsExact/*_0)
endif()
# The resource spec follows the device list (2, 8, 2 loopback devices on one
# build), and a spec that lacks a claimed device is written again once.
if(TARGET tdc_loopback AND TDC_TOOL_SELFTESTS)
  tdc_add_selftest(NAME resource_spec_follows_the_device_list TIMEOUT 900
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/resource_spec_follows_devices.py"
      --build-dir "${CMAKE_BINARY_DIR}" --name "${TDC_PRIVATEUSE1_NAME}")
  set_tests_properties(selftest.resource_spec_follows_the_device_list PROPERTIES LABELS "selftest;nested")
endif()

# Every assertion of the suites says why (issue 33): a new EXPECT_/ASSERT_
# without a message fails (there is no allow-list: every one has a message),
# as its negative shows on a planted one.
if(TDC_TOOL_SELFTESTS)
  tdc_add_selftest(NAME assertions_say_why
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/assertions_say_why.py")
  set(planted_suites "${CMAKE_CURRENT_BINARY_DIR}/planted_suites")
  file(WRITE "${planted_suites}/planted/planted.cpp" "TEST(Planted, Bare) { EXPECT_TRUE(ok()); }\n")
  tdc_add_selftest(NAME assertions_say_why_fails_on_a_new_one
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/assertions_say_why.py"
      --suites "${planted_suites}")
  set_tests_properties(selftest.assertions_say_why_fails_on_a_new_one PROPERTIES
    PASS_REGULAR_EXPRESSION "FAILED: planted/planted.cpp:1: EXPECT_TRUE\\(ok\\(\\)\\) has no message")
endif()
