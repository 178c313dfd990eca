include_guard(GLOBAL)
include(GoogleTest)

set(TDC_DISCOVERY_TIMEOUT 300 CACHE STRING
  "Seconds a suite may take to list its tests (device discovery initialises accelerators)")
set(TDC_GPU_PERCENT 50 CACHE STRING
  "Share of one GPU a conformance test claims through CTest resource groups (1-100)")

#[=======================================================================[
tdc_add_conformance_suite(NAME <name> SOURCES <file>... [LABELS <label>...])

Builds the suite executable tdc_<name> and registers its tests with CTest,
discovered when ctest runs (PRE_TEST), on the host that runs them. Adds a
second run with the loopback backend loaded (tests prefixed "loopback:"),
so CPU hosts cover multi-device behaviour. Labels: conformance, <name>, and
LABELS (e.g. `long` for checks kept out of the quick run with -LE long).
Per-test timeouts and GPU resource groups are applied at ctest time by
cmake/TdcTestProperties.cmake.in (TDC_TEST_TIMEOUT, default 120 s).
#]=======================================================================]
function(tdc_add_conformance_suite)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME" "SOURCES;LINK;LABELS")
  if(NOT arg_NAME OR NOT arg_SOURCES)
    message(FATAL_ERROR "tdc_add_conformance_suite: NAME and SOURCES are required")
  endif()
  set(objects tdc_${arg_NAME}_objects)
  add_library(${objects} OBJECT ${arg_SOURCES})
  target_link_libraries(${objects} PUBLIC tdc_fixtures ${arg_LINK})
  tdc_target_uses_torch(${objects} PUBLIC)
  tdc_reuse_fixtures_pch(${objects})

  _tdc_suite_executable(tdc_${arg_NAME} ${objects} tdc_alignment_guard)
  set(labels conformance ${arg_NAME} ${arg_LABELS})
  _tdc_discover(tdc_${arg_NAME} "" "${labels}")

  if(TARGET tdc_loopback)
    _tdc_suite_executable(tdc_${arg_NAME}_with_loopback ${objects} tdc_alignment_guard)
    # The launcher is how discovery sees the plugin too: gtest_discover_tests
    # runs --gtest_list_tests through the emulator, not with EXTRA_ARGS.
    set_target_properties(tdc_${arg_NAME}_with_loopback PROPERTIES CROSSCOMPILING_EMULATOR
      "${CMAKE_COMMAND};-E;env;TDC_BACKEND_LIBS=$<TARGET_FILE:tdc_loopback>;TDC_DEVICES=${TDC_PRIVATEUSE1_NAME}")
    add_dependencies(tdc_${arg_NAME}_with_loopback tdc_loopback)
    _tdc_discover(tdc_${arg_NAME}_with_loopback "loopback:" "${labels};loopback")
  endif()
endfunction()

function(_tdc_suite_executable target objects guard)
  add_executable(${target} $<TARGET_OBJECTS:${objects}>)
  target_link_libraries(${target} PRIVATE ${objects} ${guard} tdc_gtest_main)
  tdc_target_uses_torch(${target})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
endfunction()

function(_tdc_discover target prefix labels)
  # gtest_discover_tests names its cached list "<target>[<n>]_tests.cmake";
  # each target is discovered once, so n is 1.
  set(TDC_TARGET "${target}")
  set(TDC_TESTS_FILE "${CMAKE_CURRENT_BINARY_DIR}/${target}[1]_tests.cmake")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/TdcDiscoveryFreshness.cmake.in"
    "${CMAKE_CURRENT_BINARY_DIR}/${target}_freshness.cmake" @ONLY)
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES
    "${CMAKE_CURRENT_BINARY_DIR}/${target}_freshness.cmake")
  # NO_PRETTY_VALUES: our names already carry the device; without it CMake
  # appends "# GetParam() = ..." to every ctest name.
  gtest_discover_tests(${target}
    NO_PRETTY_VALUES
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT ${TDC_DISCOVERY_TIMEOUT}
    TEST_PREFIX "${prefix}"
    XML_OUTPUT_DIR "${CMAKE_BINARY_DIR}/results/gtest"
  )
  # Labels are set by the properties script too: gtest_discover_tests would
  # flatten a list-valued property into separate arguments.
  set(TDC_TESTS_VARIABLE "${target}_TESTS")
  set(TDC_TEST_LABELS "${labels}")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/TdcTestProperties.cmake.in"
    "${CMAKE_CURRENT_BINARY_DIR}/${target}_properties.cmake" @ONLY)
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES
    "${CMAKE_CURRENT_BINARY_DIR}/${target}_properties.cmake")
endfunction()

#[=======================================================================[
tdc_add_selftest(NAME <name> COMMAND <cmd>... [ENVIRONMENT <k=v>...]
                 [PASS_REGULAR_EXPRESSION <re>] [WILL_FAIL])
The project's own tests (label: selftest), as opposed to conformance checks.
#]=======================================================================]
function(tdc_add_selftest)
  cmake_parse_arguments(PARSE_ARGV 0 arg "WILL_FAIL" "NAME;PASS_REGULAR_EXPRESSION;TIMEOUT"
    "COMMAND;ENVIRONMENT;LABELS")
  if(NOT arg_NAME OR NOT arg_COMMAND)
    message(FATAL_ERROR "tdc_add_selftest: NAME and COMMAND are required")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  add_test(NAME selftest.${arg_NAME} COMMAND ${arg_COMMAND})
  set_tests_properties(selftest.${arg_NAME} PROPERTIES
    LABELS "selftest;${arg_LABELS}" TIMEOUT ${arg_TIMEOUT})
  if(arg_ENVIRONMENT)
    set_tests_properties(selftest.${arg_NAME} PROPERTIES ENVIRONMENT "${arg_ENVIRONMENT}")
  endif()
  if(arg_PASS_REGULAR_EXPRESSION)
    set_tests_properties(selftest.${arg_NAME} PROPERTIES
      PASS_REGULAR_EXPRESSION "${arg_PASS_REGULAR_EXPRESSION}")
  endif()
  if(arg_WILL_FAIL)
    set_tests_properties(selftest.${arg_NAME} PROPERTIES WILL_FAIL TRUE)
  endif()
endfunction()
