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
listed when ctest runs, on the host that runs them, and run by tdc_batch in
batches (cmake/TdcSuiteTests.cmake.in says how, TDC_ISOLATE=check gives one
entry per check). Adds a second run with the loopback backend loaded (entries
prefixed "loopback:"), so CPU hosts cover multi-device behaviour. Labels:
conformance, <name>, and LABELS (e.g. `long` for checks kept out of the
quick run with -LE long) (LEVEL 3: level3 instead of conformance, for
qualification-only checks). Checks listed in suites/levels.txt also get
their level's label (level1).
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

  _tdc_suite_executable(tdc_${arg_NAME} ${objects} tdc_alignment_guard)
  # LEVEL 3: a qualification-only suite (label level3 instead of conformance).
  set(level_label conformance)
  if(arg_LEVEL STREQUAL "3")
    set(level_label level3)
  endif()
  set(labels ${level_label} ${arg_NAME} ${arg_LABELS})
  _tdc_discover(tdc_${arg_NAME} ${arg_NAME} "" "${labels}" "" "" "")
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
    add_dependencies(tdc_${arg_NAME}_with_loopback tdc_loopback)
    _tdc_discover(tdc_${arg_NAME}_with_loopback ${arg_NAME} "loopback:" "${labels};loopback"
      "${twin_environment}" "$<TARGET_FILE:tdc_loopback>" "TDC_BACKEND_LIBS;TDC_DEVICES;TDC_EXPECT")
    tdc_register_suite_run($<TARGET_FILE:tdc_${arg_NAME}_with_loopback> ${twin_environment})
  endif()
endfunction()

function(_tdc_suite_executable target objects guard)
  add_executable(${target} $<TARGET_OBJECTS:${objects}>)
  target_link_libraries(${target} PRIVATE ${objects} ${guard} tdc_gtest_main)
  tdc_target_uses_torch(${target})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
  add_dependencies(${target} tdc_batch)
endfunction()

# Declares the suite's ctest entries through a script that ctest runs at its
# start (cmake/TdcSuiteTests.cmake.in). `environment`: what the entries set
# (the twin's backend); `own_backends`: libraries the entries load, whose
# identity (like that of TDC_BACKEND_LIBS and LibTorch) keys the cached list;
# `overridden`: the variables the entries set, which therefore do not key it.
function(_tdc_discover target short_name prefix labels environment own_backends overridden)
  set(TDC_TARGET "${target}")
  set(TDC_SHORT_NAME "${short_name}")
  set(TDC_TEST_PREFIX "${prefix}")
  set(TDC_TEST_LABELS "${labels}")
  set(TDC_RUN_ENVIRONMENT "${environment}")
  set(TDC_OWN_BACKENDS "${own_backends}")
  set(TDC_LAUNCHER_OVERRIDES "${overridden}")
  set(TDC_BINARY "$<TARGET_FILE:${target}>")
  set(TDC_BATCH "$<TARGET_FILE:tdc_batch>")
  set(TDC_LISTING_FILE "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests")
  set(TDC_BATCHES_DIR "${CMAKE_BINARY_DIR}/batches")
  set(TDC_XML_DIR "${CMAKE_BINARY_DIR}/results/gtest")
  _tdc_torch_identity_libraries(TDC_IDENTITY_LIBRARIES)
  configure_file("${PROJECT_SOURCE_DIR}/cmake/TdcSuiteTests.cmake.in"
    "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake.gen" @ONLY)
  # Generator expressions (the binaries' paths) resolve at generate time.
  file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake"
    INPUT "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake.gen")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake")
endfunction()

#[=======================================================================[
tdc_generate_resource_spec()
Once, in the top-level CMakeLists: ctest then writes the resource spec from
discovery at its start and honours every entry's device claims without a
--resource-spec-file (cmake/TdcResourceSpec.cmake.in).
#]=======================================================================]
function(tdc_generate_resource_spec)
  set(TDC_DEVICE_SELECT "$<TARGET_FILE:device_select>")
  set(TDC_LOOPBACK "")
  if(TARGET tdc_loopback)
    set(TDC_LOOPBACK "$<TARGET_FILE:tdc_loopback>")
  endif()
  _tdc_torch_identity_libraries(TDC_IDENTITY_LIBRARIES)
  configure_file("${PROJECT_SOURCE_DIR}/cmake/TdcResourceSpec.cmake.in"
    "${CMAKE_BINARY_DIR}/tdc_resource_spec.cmake.gen" @ONLY)
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/tdc_resource_spec.cmake"
    INPUT "${CMAKE_BINARY_DIR}/tdc_resource_spec.cmake.gen")
  set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY TEST_INCLUDE_FILES
    "${CMAKE_BINARY_DIR}/tdc_resource_spec.cmake")
endfunction()

# LibTorch's own libraries: their identity keys cached lists and specs.
function(_tdc_torch_identity_libraries out)
  get_target_property(torch_library torch IMPORTED_LOCATION)
  get_filename_component(torch_dir "${torch_library}" DIRECTORY)
  set(libraries "")
  foreach(name torch torch_cpu c10 torch_cuda c10_cuda)
    if(EXISTS "${torch_dir}/lib${name}.so")
      list(APPEND libraries "${torch_dir}/lib${name}.so")
    endif()
  endforeach()
  set(${out} "${libraries}" PARENT_SCOPE)
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
