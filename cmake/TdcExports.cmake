include_guard(GLOBAL)
# The names suites link TDC's libraries and programs by: TDC::<name>, the
# same in this tree (aliases, below) and in an installed TDC (the exported
# targets, TDCTargets.cmake), so tdc_add_conformance_suite() is one function
# for TDC's suites and a vendor's.
#
#   TDC::fixtures         the fixture ladder, discovery, prerequisites, tolerances,
#                         patterns, the instantiation macros (tdc/fixtures.h): what checks are written on
#   TDC::core             discovery, run config, device specs, plugins, waivers, the seed model (no GoogleTest)
#   TDC::main             every suite's main() (flags, plugins, specs before GoogleTest)
#   TDC::alignment_guard  the model/input/output device guard's decision
#   TDC::compat           the LibTorch version layer (headers)
#   TDC::timing           the interval timer of the benchmarks and qualification checks
#   TDC::batch            tdc_batch, the runner of every conformance ctest entry
#   TDC::loopback         libtdc_loopback.so, the reference PrivateUse1 backend
#   TDC::device_select    the seed program (its --resource-spec writes CTest's resource spec)
set(TDC_VERSION "${PROJECT_VERSION}")
set(TDC_KNOWN_FAILURES_FILE "${PROJECT_SOURCE_DIR}/suites/known_failures.txt")

function(_tdc_export target name)
  get_target_property(type ${target} TYPE)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  if(type STREQUAL "EXECUTABLE")
    add_executable(TDC::${name} ALIAS ${target})
  else()
    add_library(TDC::${name} ALIAS ${target})
  endif()
endfunction()

_tdc_export(tdc_compat compat)
_tdc_export(tdc_core core)
_tdc_export(tdc_alignment_guard alignment_guard)
_tdc_export(tdc_timing timing)
_tdc_export(tdc_gtest fixtures)
_tdc_export(tdc_gtest_main main)
_tdc_export(tdc_batch batch)
if(TARGET tdc_loopback)
  _tdc_export(tdc_loopback loopback)
endif()
# device_select is a suite's folder's (suites/device_select): aliased once it exists.
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _tdc_export device_select device_select)

# A build tree keeps TDC's data where its programs look for it, as an
# installed TDC does (<bin>/../share/tdc): the default waiver file
# (fixtures/src/run_config.cpp).
file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/share/tdc/suites")
file(CREATE_LINK "${PROJECT_SOURCE_DIR}/suites/known_failures.txt"
  "${CMAKE_BINARY_DIR}/share/tdc/suites/known_failures.txt" SYMBOLIC)
