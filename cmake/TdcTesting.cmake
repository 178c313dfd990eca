include_guard(GLOBAL)
include(GoogleTest)
include(TdcWaiverCheck)

set(TDC_DISCOVERY_TIMEOUT 300 CACHE STRING
  "Seconds a suite may take to list its tests (device discovery initialises accelerators)")
set(TDC_GPU_PERCENT 50 CACHE STRING
  "Share of its device (slots of 100) a conformance test claims through CTest resource groups (1-100)")
if(NOT TDC_GPU_PERCENT MATCHES "^([1-9][0-9]?|100)$")
  message(FATAL_ERROR "TDC_GPU_PERCENT='${TDC_GPU_PERCENT}': expected an integer 1..100")
endif()

#[=======================================================================[
tdc_add_conformance_suite(NAME <name> SOURCES <file>... [LEVEL 3] [LABELS <label>...])

Builds the suite executable tdc_<name> and registers its tests with CTest,
discovered when ctest runs (PRE_TEST), on the host that runs them. Adds a
second run with the loopback backend loaded (tests prefixed "loopback:"),
so CPU hosts cover multi-device behaviour. Labels: conformance, <name>, and
LABELS (e.g. `long` for checks kept out of the quick run with -LE long)
(LEVEL 3: level3 instead of conformance, for qualification-only checks).
Checks listed in suites/levels.txt also get their level's label (level1).
Per-test timeouts and GPU resource groups are applied at ctest time by
cmake/TdcTestProperties.cmake.in (TDC_TEST_TIMEOUT, default 120 s).
#]=======================================================================]
function(tdc_add_conformance_suite)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;LEVEL" "SOURCES;LINK;LABELS")
  if(NOT arg_NAME OR NOT arg_SOURCES)
    message(FATAL_ERROR "tdc_add_conformance_suite: NAME and SOURCES are required")
  endif()
  set(objects tdc_${arg_NAME}_objects)
  add_library(${objects} OBJECT ${arg_SOURCES})
  target_link_libraries(${objects} PUBLIC tdc_gtest ${arg_LINK})
  tdc_target_uses_torch(${objects} PUBLIC)
  tdc_reuse_core_pch(${objects})

  # The launcher (CROSSCOMPILING_EMULATOR) runs discovery and every test:
  # gtest_discover_tests lists tests through it, not with EXTRA_ARGS. Under it
  # a bad setting becomes one failing entry, TdcConfiguration.<program>, with
  # the one-line reason (see fixtures/src/gtest_main.cpp).
  set(launcher "${CMAKE_COMMAND};-E;env;TDC_CONFIG_ERROR_AS_TEST=1")
  _tdc_suite_executable(tdc_${arg_NAME} ${objects} tdc_alignment_guard)
  set_target_properties(tdc_${arg_NAME} PROPERTIES CROSSCOMPILING_EMULATOR "${launcher}")
  # LEVEL 3: a qualification-only suite (label level3 instead of conformance).
  set(level_label conformance)
  if(arg_LEVEL STREQUAL "3")
    set(level_label level3)
  endif()
  set(labels ${level_label} ${arg_NAME} ${arg_LABELS})
  _tdc_discover(tdc_${arg_NAME} "" "${labels}" "" "")
  tdc_register_suite_run($<TARGET_FILE:tdc_${arg_NAME}>)

  if(TARGET tdc_loopback)
    _tdc_suite_executable(tdc_${arg_NAME}_with_loopback ${objects} tdc_alignment_guard)
    # The loopback twin is the build's own reference run: it loads only the
    # loopback library and runs on, and expects, its two devices, whatever
    # TDC_BACKEND_LIBS / TDC_DEVICES / TDC_EXPECT say (those are for the
    # plain entries, the vendor's). "privateuseone" names PrivateUse1 on
    # every LibTorch, whatever the backend calls itself.
    # The waiver check runs the twin directly, so it needs the same settings.
    set(twin_environment TDC_BACKEND_LIBS=$<TARGET_FILE:tdc_loopback> TDC_DEVICES=privateuseone
      TDC_EXPECT=privateuseone:2)
    set_target_properties(tdc_${arg_NAME}_with_loopback PROPERTIES CROSSCOMPILING_EMULATOR
      "${launcher};${twin_environment}")
    add_dependencies(tdc_${arg_NAME}_with_loopback tdc_loopback)
    _tdc_discover(tdc_${arg_NAME}_with_loopback "loopback:" "${labels};loopback"
      "$<TARGET_FILE:tdc_loopback>" "TDC_BACKEND_LIBS;TDC_DEVICES;TDC_EXPECT")
    tdc_register_suite_run($<TARGET_FILE:tdc_${arg_NAME}_with_loopback> ${twin_environment})
  endif()
endfunction()

function(_tdc_suite_executable target objects guard)
  add_executable(${target} $<TARGET_OBJECTS:${objects}>)
  target_link_libraries(${target} PRIVATE ${objects} ${guard} tdc_gtest_main)
  tdc_target_uses_torch(${target})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
endfunction()

# `own_libraries`: libraries the launcher loads, whose identity (like that of
# TDC_BACKEND_LIBS and LibTorch) keys the discovery cache; `overridden`: the
# environment variables the launcher sets, which therefore do not key it.
function(_tdc_discover target prefix labels own_libraries overridden)
  # gtest_discover_tests names its cached list "<target>[<n>]_tests.cmake";
  # each target is discovered once, so n is 1.
  set(TDC_TARGET "${target}")
  set(TDC_TESTS_FILE "${CMAKE_CURRENT_BINARY_DIR}/${target}[1]_tests.cmake")
  # The listing also writes each test's device resource there, which the
  # properties script turns into RESOURCE_GROUPS (see gtest_main.cpp).
  set(TDC_RESOURCES_FILE "${CMAKE_CURRENT_BINARY_DIR}/${target}_resources.txt")
  set_property(TARGET ${target} APPEND PROPERTY CROSSCOMPILING_EMULATOR
    "TDC_TEST_RESOURCES_FILE=${TDC_RESOURCES_FILE}")
  set(TDC_TEST_PREFIX "${prefix}")
  get_target_property(torch_library torch IMPORTED_LOCATION)
  get_filename_component(torch_dir "${torch_library}" DIRECTORY)
  set(TDC_IDENTITY_LIBRARIES "${own_libraries}")
  set(TDC_LAUNCHER_OVERRIDES "${overridden}")
  foreach(name torch torch_cpu c10 torch_cuda c10_cuda)
    if(EXISTS "${torch_dir}/lib${name}.so")
      list(APPEND TDC_IDENTITY_LIBRARIES "${torch_dir}/lib${name}.so")
    endif()
  endforeach()
  # The waiver check's kept verdict is keyed by the same fingerprint.
  set_property(GLOBAL APPEND PROPERTY TDC_SUITE_FINGERPRINTS "--fingerprint=${TDC_TESTS_FILE}.environment")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/TdcDiscoveryFreshness.cmake.in"
    "${CMAKE_CURRENT_BINARY_DIR}/${target}_freshness.cmake.gen" @ONLY)
  # Generator expressions (the loopback's path) resolve at generate time.
  file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${target}_freshness.cmake"
    INPUT "${CMAKE_CURRENT_BINARY_DIR}/${target}_freshness.cmake.gen")
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
tdc_add_selftest(NAME <name> COMMAND <cmd>... [TIMEOUT <s>] [ENVIRONMENT <k=v>...]
                 [LABELS <label>...])
The project's own tests (label: selftest), as opposed to conformance checks.
A self-test decides its verdict itself (check_run.py, expect_failures.py):
exit status 0 passed, anything else failed. Every self-test finds the
Python tools' package (ci/tdc) by PYTHONPATH, never by editing sys.path.
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
  set(environment "PYTHONPATH=${PROJECT_SOURCE_DIR}/ci" ${arg_ENVIRONMENT})
  set_tests_properties(selftest.${arg_NAME} PROPERTIES
    LABELS "selftest;${arg_LABELS}" TIMEOUT ${arg_TIMEOUT} ENVIRONMENT "${environment}")
endfunction()
