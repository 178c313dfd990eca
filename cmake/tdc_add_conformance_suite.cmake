include_guard(GLOBAL)
# tdc_add_conformance_suite() and the helpers only it uses (included by
# cmake/TdcTesting.cmake, which sets what they read: TDC_DATA_DIR,
# TDC_CMAKE_DIR, TDC_GPU_PERCENT, the install folders).

#[=======================================================================[
tdc_add_conformance_suite(NAME <name> SOURCES <file>... [LEVEL 3] [LABELS <label>...]
                          [LINK <target>...] [KNOWN_FAILURES <file>] [LEVELS <file>]
                          [PERCENT <1-100>] [DEVICES <count>|ALL])

Builds the suite executable tdc_<name> and registers its tests with CTest,
listed when ctest runs, on the host that runs them, and run by tdc_batch in
batches (cmake/TdcSuiteTests.cmake.in says how, TDC_ISOLATE=check gives one
entry per check). Adds a second run with the loopback backend loaded (entries
prefixed "loopback:"), so CPU hosts cover multi-device behaviour. Labels:
conformance, <name>, and LABELS (e.g. `long` for checks kept out of the
quick run with -LE long) (LEVEL 3: level3 instead of conformance, for
qualification-only checks). Checks listed in TDC's suites/levels.txt, or in
the suite's own LEVELS file (same format), also get their level's label
(level1). KNOWN_FAILURES: the suite's own waiver file (same format as
suites/known_failures.txt), used unless TDC_KNOWN_FAILURES is set; default
TDC_KNOWN_FAILURES_FILE (TDC's own suites: suites/known_failures.txt), else
none.

The suite's device claim, as rapids-cmake's rapids_test_add(GPUS PERCENT):
each entry claims PERCENT of every device its checks touch (CTest
RESOURCE_GROUPS; default TDC_GPU_PERCENT, a small share, so that ordinary
checks share a device): 100 for a suite whose checks must have a device to
themselves (memory's OutOfMemory exhausts it, copies_long and the bandwidth
matrix measure or fill it). Which devices a check touches is the fixtures'
fact (its listing, tdc/test_instances.h); DEVICES says how many one check
of the suite may touch (default 1; 2 for pair checks; ALL for checks over
every index), and a check that touches more fails the run as
TdcConfiguration.<program>.devices, so that the declaration cannot drift
from the checks.

`cmake --install` puts both executables under <prefix>/libexec/tdc and
describes the suite in <prefix>/share/tdc/suites.d/<project>.cmake, which
an installed TDC reads to run it with its own (TDC_EXTRA_SUITES names a
vendor's prefix; docs/install.md).
#]=======================================================================]
function(tdc_add_conformance_suite)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;LEVEL;KNOWN_FAILURES;LEVELS;PERCENT;DEVICES" "SOURCES;LINK;LABELS")
  if(NOT arg_NAME OR NOT arg_SOURCES)
    message(FATAL_ERROR "tdc_add_conformance_suite: NAME and SOURCES are required")
  endif()
  _tdc_suite_claim(claim_percent claim_devices "${arg_NAME}" "${arg_PERCENT}" "${arg_DEVICES}")
  if(arg_LEVEL AND NOT arg_LEVEL MATCHES "^[23]$")
    message(FATAL_ERROR "tdc_add_conformance_suite(${arg_NAME}): LEVEL ${arg_LEVEL}: expected 2 or 3 "
      "(level 1 is per check: a LEVELS file)")
  endif()
  set(waivers "${TDC_KNOWN_FAILURES_FILE}")
  if(arg_KNOWN_FAILURES)
    get_filename_component(waivers "${arg_KNOWN_FAILURES}" ABSOLUTE)
  endif()
  set(level_files "${TDC_DATA_DIR}/suites/levels.txt")
  set(own_levels "")
  if(arg_LEVELS)
    get_filename_component(own_levels "${arg_LEVELS}" ABSOLUTE)
    list(APPEND level_files "${own_levels}")
  endif()
  foreach(file IN LISTS waivers level_files)
    if(NOT EXISTS "${file}")
      message(FATAL_ERROR "tdc_add_conformance_suite(${arg_NAME}): ${file} does not exist")
    endif()
  endforeach()

  set(objects tdc_${arg_NAME}_objects)
  add_library(${objects} OBJECT ${arg_SOURCES})
  target_link_libraries(${objects} PUBLIC TDC::fixtures ${arg_LINK})
  tdc_target_uses_torch(${objects} PUBLIC)
  tdc_reuse_core_pch(${objects})

  _tdc_suite_executable(tdc_${arg_NAME} ${objects} TDC::alignment_guard)
  # LEVEL 3: a qualification-only suite (label level3 instead of conformance).
  set(level_label conformance)
  if(arg_LEVEL STREQUAL "3")
    set(level_label level3)
  endif()
  set(labels ${level_label} ${arg_NAME} ${arg_LABELS})
  # Every entry names its suite's waiver file; TDC_KNOWN_FAILURES, when set, wins.
  set(own_waivers "TDC_SUITE_KNOWN_FAILURES=${waivers}")
  set(claim "${claim_percent}" "${claim_devices}")
  _tdc_discover(tdc_${arg_NAME} ${arg_NAME} "" "${labels}" "${own_waivers}" "" "" "${level_files}" "${claim}")
  tdc_register_suite_run($<TARGET_FILE:tdc_${arg_NAME}> ${own_waivers})

  set(twin "")
  if(TARGET TDC::loopback)
    set(twin tdc_${arg_NAME}_with_loopback)
    _tdc_suite_executable(${twin} ${objects} TDC::alignment_guard)
    # The loopback twin is the build's own reference run: it loads only the
    # loopback library and runs on, and expects, its two devices, whatever
    # TDC_BACKEND_LIBS / TDC_DEVICES / TDC_EXPECT say (those are for the
    # plain entries, the vendor's). "privateuseone" names PrivateUse1 on
    # every LibTorch, whatever the backend calls itself.
    # The waiver check runs the twin directly, so it needs the same settings.
    set(twin_environment TDC_BACKEND_LIBS=$<TARGET_FILE:TDC::loopback> TDC_DEVICES=privateuseone
      TDC_EXPECT=privateuseone:2 ${own_waivers})
    if(TARGET tdc_loopback)
      add_dependencies(${twin} tdc_loopback)
    endif()
    _tdc_discover(${twin} ${arg_NAME} "loopback:" "${labels};loopback"
      "${twin_environment}" "$<TARGET_FILE:TDC::loopback>" "TDC_BACKEND_LIBS;TDC_DEVICES;TDC_EXPECT"
      "${level_files}" "${claim}")
    tdc_register_suite_run($<TARGET_FILE:${twin}> ${twin_environment})
  endif()
  _tdc_install_suite(${arg_NAME} "${twin}" "${labels}" "${waivers}" "${own_levels}" "${claim}")
  _tdc_call_once_at_end(tdc_generate_resource_spec)
endfunction()

# <percent_out> <devices_out>: the suite's claim (tdc_add_conformance_suite's
# PERCENT and DEVICES, defaults filled in), or a FATAL_ERROR naming the suite.
function(_tdc_suite_claim percent_out devices_out name percent devices)
  if(percent STREQUAL "")
    set(percent "${TDC_GPU_PERCENT}")
  elseif(NOT percent MATCHES "^([1-9][0-9]?|100)$")
    message(FATAL_ERROR "tdc_add_conformance_suite(${name}): PERCENT ${percent}: expected an integer 1..100 "
      "(the share of each device its entries claim)")
  endif()
  if(devices STREQUAL "")
    set(devices 1)
  elseif(NOT devices MATCHES "^([1-9][0-9]*|ALL)$")
    message(FATAL_ERROR "tdc_add_conformance_suite(${name}): DEVICES ${devices}: expected a count of "
      "devices (1, 2, ...) or ALL (the most devices one check of the suite touches)")
  endif()
  set(${percent_out} "${percent}" PARENT_SCOPE)
  set(${devices_out} "${devices}" PARENT_SCOPE)
endfunction()

function(_tdc_suite_executable target objects guard)
  add_executable(${target} $<TARGET_OBJECTS:${objects}>)
  target_link_libraries(${target} PRIVATE ${objects} ${guard} TDC::main)
  tdc_target_uses_torch(${target})
  # Installed, it finds LibTorch where it was built against (the RUNPATH;
  # LD_LIBRARY_PATH overrides it: docs/install.md).
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin"
    INSTALL_RPATH_USE_LINK_PATH TRUE)
  if(TARGET tdc_batch)
    add_dependencies(${target} tdc_batch)
  endif()
endfunction()

# Declares the suite's ctest entries through a script that ctest runs at its
# start (cmake/TdcSuiteTests.cmake.in). `environment`: what the entries set
# (the twin's backend, the suite's waivers); `own_backends`: libraries the
# entries load, whose identity (like that of TDC_BACKEND_LIBS and LibTorch)
# keys the cached list; `overridden`: the variables the entries set, which
# therefore do not key it; `level_files`: the levels files of the suite;
# `claim`: its PERCENT and DEVICES (_tdc_suite_claim).
function(_tdc_discover target short_name prefix labels environment own_backends overridden level_files claim)
  list(GET claim 0 TDC_SUITE_PERCENT)
  list(GET claim 1 TDC_SUITE_DEVICES)
  set(TDC_TARGET "${target}")
  set(TDC_SHORT_NAME "${short_name}")
  set(TDC_TEST_PREFIX "${prefix}")
  set(TDC_TEST_LABELS "${labels}")
  set(TDC_RUN_ENVIRONMENT "${environment}")
  set(TDC_OWN_BACKENDS "${own_backends}")
  set(TDC_LAUNCHER_OVERRIDES "${overridden}")
  set(TDC_BINARY "$<TARGET_FILE:${target}>")
  set(TDC_BATCH "$<TARGET_FILE:TDC::batch>")
  set(TDC_LISTING_FILE "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests")
  set(TDC_BATCHES_DIR "${CMAKE_BINARY_DIR}/batches")
  # Plain ctest's own folder, never ci/conformance's (<build>/results/gtest): a
  # plain run after it must not mix its XML into that run's results.
  set(TDC_XML_DIR "${CMAKE_BINARY_DIR}/ctest-gtest")
  set(TDC_LEVEL_FILES "")
  foreach(file IN LISTS level_files)
    string(APPEND TDC_LEVEL_FILES " \"${file}\"")
  endforeach()
  _tdc_torch_identity_libraries(TDC_IDENTITY_LIBRARIES)
  configure_file("${TDC_CMAKE_DIR}/TdcSuiteTests.cmake.in"
    "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake.gen" @ONLY)
  # Generator expressions (the binaries' paths) resolve at generate time.
  file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake"
    INPUT "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake.gen")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake")
endfunction()

# Install rules of one suite, and its line in the project's manifest
# (share/tdc/suites.d/<project>.cmake, written once every suite is known).
# Its waiver and own levels files: TDC's own data keeps its place under
# share/tdc (cmake/TdcInstall.cmake installs it); a vendor's goes to
# share/tdc/<project>/. (TDC's suites/levels.txt applies to every suite:
# an installed TDC adds its own.)
function(_tdc_install_suite name twin labels waivers own_levels claim)
  install(TARGETS tdc_${name} ${twin} RUNTIME DESTINATION ${TDC_INSTALL_SUITE_DIR})
  _tdc_installed_data(installed_waivers "${waivers}")
  _tdc_installed_data(installed_levels "${own_levels}")
  list(JOIN labels " " label_words)
  list(GET claim 0 percent)
  list(GET claim 1 devices)
  string(CONCAT call "tdc_installed_suite(NAME ${name} PROGRAM tdc_${name} TWIN \"${twin}\" LABELS ${label_words}\n"
    "  KNOWN_FAILURES \"${installed_waivers}\" LEVELS \"${installed_levels}\" PERCENT ${percent} DEVICES ${devices})\n")
  set_property(GLOBAL APPEND_STRING PROPERTY TDC_MANIFEST "${call}")
  _tdc_call_once_at_end(_tdc_write_manifest)
endfunction()

# <out>: where `file` lies under an install prefix ("" for "").
function(_tdc_installed_data out file)
  if(file STREQUAL "")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  file(RELATIVE_PATH inside "${TDC_DATA_DIR}" "${file}")
  if(NOT inside MATCHES "^[.][.]/" AND NOT IS_ABSOLUTE "${inside}")
    set(${out} "share/tdc/${inside}" PARENT_SCOPE)
    return()
  endif()
  get_filename_component(base "${file}" NAME)
  install(FILES "${file}" DESTINATION share/tdc/${PROJECT_NAME})
  set(${out} "share/tdc/${PROJECT_NAME}/${base}" PARENT_SCOPE)
endfunction()

# The manifest: what an installed TDC needs to run this project's suites,
# every path relative to the prefix it is installed under
# (cmake/TdcInstalledTests.cmake reads it).
function(_tdc_write_manifest)
  get_property(body GLOBAL PROPERTY TDC_MANIFEST)
  if(NOT DEFINED TDC_BUILT_TORCH_VERSION)
    set(TDC_BUILT_TORCH_VERSION "${TDC_TORCH_VERSION}")
    set(TDC_BUILT_TORCH_VARIANT "${TDC_TORCH_VARIANT}")
  endif()
  set(manifest "${CMAKE_BINARY_DIR}/tdc-manifest/${PROJECT_NAME}.cmake")
  file(WRITE "${manifest}"
    "# The TDC conformance suites of ${PROJECT_NAME} ${PROJECT_VERSION}, installed under this prefix;\n"
    "# read by an installed TDC at every ctest start (cmake/TdcInstalledTests.cmake).\n"
    "tdc_installed_package(NAME ${PROJECT_NAME} VERSION \"${PROJECT_VERSION}\" TDC_VERSION \"${TDC_VERSION}\"\n"
    "  TORCH_VERSION \"${TDC_BUILT_TORCH_VERSION}\" TORCH_VARIANT \"${TDC_BUILT_TORCH_VARIANT}\")\n"
    "${body}")
  install(FILES "${manifest}" DESTINATION ${TDC_INSTALL_MANIFEST_DIR})
endfunction()
