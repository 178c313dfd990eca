include_guard(GLOBAL)
# `cmake --install BUILD --prefix P`: an installed TDC that runs from wherever
# P is copied, and the CMake package vendors build their own suites on
# (docs/install.md has the layout and why):
#
#   bin/tdc                    the one command: every tool, run from the prefix
#   libexec/tdc/               the suites (tdc_<suite>, tdc_<suite>_with_loopback: cmake/tdc_add_conformance_suite.cmake),
#                              tdc_batch, device_select, tdc_context, the benchmarks
#   lib/tdc/libtdc_loopback.so the reference backend
#   lib/libtdc_*.a, include/tdc/, lib/cmake/TDC/   what vendors build on (find_package(TDC))
#   share/tdc/                 TDC's data, laid out as in the source tree: ci/ (the tools),
#                              cmake/ (CTest registration, discovery-environment.txt),
#                              suites/ (levels, known failures, mustpass lists), bench/thresholds.json,
#                              VERSION, source.json (the commit it was installed from), build/ (facts of
#                              this build the tools read), suites.d/ (the installed suites)
#
# Nothing in it names this build or source tree: programs find LibTorch by
# their RUNPATH (the LibTorch built against; LD_LIBRARY_PATH overrides) and
# everything else relative to themselves.
include(CMakePackageConfigHelpers)

set(_tdc_programs tdc_batch device_select tdc_context)
foreach(program tdc_bench_transfer tdc_bench_forward tdc_cold_start tdc_bare_copy_loop tdc_cuda_memcpy_anchor)
  if(TARGET ${program})
    list(APPEND _tdc_programs ${program})
  endif()
endforeach()
set_target_properties(${_tdc_programs} PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
set(_tdc_libraries tdc_compat tdc_core tdc_alignment_guard tdc_timing tdc_gtest tdc_gtest_main)

install(TARGETS ${_tdc_libraries} EXPORT TDCTargets
  ARCHIVE DESTINATION lib INCLUDES DESTINATION include)
install(TARGETS tdc_batch device_select EXPORT TDCTargets RUNTIME DESTINATION ${TDC_INSTALL_SUITE_DIR})
list(REMOVE_ITEM _tdc_programs tdc_batch device_select)
install(TARGETS ${_tdc_programs} RUNTIME DESTINATION ${TDC_INSTALL_SUITE_DIR})
if(TARGET tdc_loopback)
  set_target_properties(tdc_loopback PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
  install(TARGETS tdc_loopback EXPORT TDCTargets LIBRARY DESTINATION lib/tdc)
endif()
install(DIRECTORY fixtures/include/tdc DESTINATION include)

# The CMake package: TDCConfig.cmake, its version file, the targets.
install(EXPORT TDCTargets NAMESPACE TDC:: DESTINATION lib/cmake/TDC)
configure_package_config_file(cmake/TDCConfig.cmake.in "${CMAKE_BINARY_DIR}/package/TDCConfig.cmake"
  INSTALL_DESTINATION lib/cmake/TDC)
# The version rule (docs/install.md, "Versions"): before 1.0 a minor release
# may break, after it a major one; a consumer asking for 0.2 gets any 0.2.x
# at least as new, never 0.3 (ci/tdc/versioning.py decides the same for ci/verify).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_tdc_compatibility SameMinorVersion)
else()
  set(_tdc_compatibility SameMajorVersion)
endif()
write_basic_package_version_file("${CMAKE_BINARY_DIR}/package/TDCConfigVersion.cmake"
  COMPATIBILITY ${_tdc_compatibility})
install(FILES "${CMAKE_BINARY_DIR}/package/TDCConfig.cmake" "${CMAKE_BINARY_DIR}/package/TDCConfigVersion.cmake"
  DESTINATION lib/cmake/TDC)

# share/tdc: the data, where the tools and the CMake functions look for it.
install(FILES VERSION DESTINATION share/tdc)
# Every file an installed one includes is installed too (ci/tests/test_cmake_layout.py).
install(FILES
    cmake/TdcTesting.cmake cmake/TdcWaiverCheck.cmake cmake/tdc_register_suite_run.cmake
    cmake/TdcTorchCompat.cmake cmake/tdc_target_uses_torch.cmake cmake/tdc_reuse_core_pch.cmake
    cmake/TdcTorchCudaHints.cmake cmake/tdc_tools_environment.cmake
    cmake/TdcSuiteTests.cmake.in cmake/tdc_suite_entries.cmake cmake/tdc_discovery_fingerprint.cmake
    cmake/tdc_read_level_rules.cmake cmake/tdc_level_labels.cmake
    cmake/TdcResourceSpec.cmake.in cmake/tdc_resource_spec.cmake cmake/tdc_resource_spec_covers.cmake
    cmake/TdcInstalledTests.cmake cmake/tdc_installed_package.cmake cmake/tdc_installed_suite.cmake
    cmake/tdc_installed_test.cmake cmake/discovery-environment.txt
    cmake/TdcTestingHelpers.cmake cmake/tdc_add_conformance_suite.cmake cmake/tdc_add_conformance_test.cmake
    cmake/tdc_generate_resource_spec.cmake cmake/tdc_add_selftest.cmake
  DESTINATION share/tdc/cmake)
install(FILES suites/levels.txt suites/known_failures.txt DESTINATION share/tdc/suites)
install(DIRECTORY suites/mustpass DESTINATION share/tdc/suites FILES_MATCHING PATTERN "*.txt")
install(FILES bench/thresholds.json DESTINATION share/tdc/bench)
# The tools that run a build (not those that make one: conformance, selftest,
# sanitize, offline-*), the package ci/tdc with its schemas; not its units.
install(DIRECTORY ci/ DESTINATION share/tdc/ci USE_SOURCE_PERMISSIONS
  PATTERN tests EXCLUDE PATTERN __pycache__ EXCLUDE
  PATTERN conformance EXCLUDE PATTERN selftest EXCLUDE PATTERN sanitize EXCLUDE
  PATTERN "offline-*" EXCLUDE)
install(PROGRAMS bin/tdc DESTINATION bin)
# docs/backends.md too: the summary cites its sections in "What to add" (tdc.backends_doc).
install(FILES README.md CHANGELOG.md docs/install.md docs/backends.md DESTINATION share/doc/tdc)

# source.json: the commit and whether the tree was dirty, what context.json
# records of an installed run (ci/verify refuses a dirty one). Taken when
# installing (cmake --install, cpack), as ci/ and the lists are copied from
# the tree, not at build time: a file that dirtied the tree while it built
# and was gone when it was installed no longer marks every installed run
# (issue 35). A run from a checkout asks git itself (ci/tdc/source.py).
install(CODE "execute_process(COMMAND \"${CMAKE_COMMAND}\" \"-DSOURCE=${PROJECT_SOURCE_DIR}\"
  \"-DOUT=${CMAKE_BINARY_DIR}/share/tdc/source.json\" -P \"${PROJECT_SOURCE_DIR}/cmake/TdcSourceState.cmake\")")
install(FILES "${CMAKE_BINARY_DIR}/share/tdc/source.json" DESTINATION share/tdc)

# share/tdc/build: the facts of this build the tools read from a build tree's
# CMakeCache.txt and CMakeFiles (ci/tdc/context.py), for an installed run
# (ci/tdc/installed.py writes them into its ctest tree, @TDC_PREFIX@ made
# the prefix). GoogleTest's and Benchmark's version files travel with them.
_tdc_torch_identity_libraries(_tdc_torch_libraries)
list(GET _tdc_torch_libraries 0 _tdc_torch_library)
get_filename_component(_tdc_torch_library_dir "${_tdc_torch_library}" DIRECTORY)
set(_tdc_facts "${CMAKE_BINARY_DIR}/package/build")
set(_tdc_cache_lines
  "# The facts of the build this TDC was installed from (cmake/TdcInstall.cmake)."
  "TDC_VERSION:STRING=${PROJECT_VERSION}"
  "TDC_TORCH_VERSION:STRING=${TDC_TORCH_VERSION}"
  "TDC_TORCH_VARIANT:STRING=${TDC_TORCH_VARIANT}"
  "TDC_TORCH_LIBRARY_DIR:PATH=${_tdc_torch_library_dir}"
  "TDC_TORCH_LIBRARIES:STRING=${_tdc_torch_libraries}"
  "Torch_DIR:PATH=${Torch_DIR}"
  "GTest_DIR:PATH=@TDC_PREFIX@/share/tdc/build/GTest"
  "benchmark_DIR:PATH=@TDC_PREFIX@/share/tdc/build/benchmark"
  "CMAKE_CXX_COMPILER:FILEPATH=${CMAKE_CXX_COMPILER}"
  "CMAKE_CXX_COMPILER_LAUNCHER:STRING=${CMAKE_CXX_COMPILER_LAUNCHER}"
  "CMAKE_BUILD_TYPE:STRING=${CMAKE_BUILD_TYPE}"
  "TDC_PRIVATEUSE1_NAME:INTERNAL=${TDC_PRIVATEUSE1_NAME}"
  "TDC_GPU_PERCENT:STRING=${TDC_GPU_PERCENT}"
  "TDC_DISCOVERY_TIMEOUT:STRING=${TDC_DISCOVERY_TIMEOUT}")
list(JOIN _tdc_cache_lines "\n" _tdc_cache_text)
file(WRITE "${_tdc_facts}/CMakeCache.txt" "${_tdc_cache_text}\n")
file(WRITE "${_tdc_facts}/CMakeFiles/compiler/CMakeCXXCompiler.cmake"
  "set(CMAKE_CXX_COMPILER_ID \"${CMAKE_CXX_COMPILER_ID}\")\n"
  "set(CMAKE_CXX_COMPILER_VERSION \"${CMAKE_CXX_COMPILER_VERSION}\")\n")
install(DIRECTORY "${_tdc_facts}/" DESTINATION share/tdc/build)
foreach(_tdc_package GTest benchmark)
  file(GLOB _tdc_version_files "${${_tdc_package}_DIR}/*ersion.cmake")
  install(FILES ${_tdc_version_files} DESTINATION share/tdc/build/${_tdc_package})
endforeach()
