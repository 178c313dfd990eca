include_guard(GLOBAL)
# tdc_generate_resource_spec() (included by cmake/TdcTesting.cmake).

#[=======================================================================[
tdc_generate_resource_spec()
Once per build, deferred to the end of the top-level directory by the first
tdc_add_conformance_suite(): ctest then writes the resource spec from
discovery at its start and honours every entry's device claims without a
--resource-spec-file (cmake/tdc_resource_spec.cmake).
#]=======================================================================]
function(tdc_generate_resource_spec)
  set(TDC_DEVICE_SELECT "$<TARGET_FILE:TDC::device_select>")
  set(TDC_LOOPBACK "")
  if(TARGET TDC::loopback)
    set(TDC_LOOPBACK "$<TARGET_FILE:TDC::loopback>")
  endif()
  _tdc_torch_identity_libraries(TDC_IDENTITY_LIBRARIES)
  configure_file("${TDC_CMAKE_DIR}/TdcResourceSpec.cmake.in"
    "${CMAKE_BINARY_DIR}/tdc_resource_spec.cmake.gen" @ONLY)
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/tdc_resource_spec.cmake"
    INPUT "${CMAKE_BINARY_DIR}/tdc_resource_spec.cmake.gen")
  set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY TEST_INCLUDE_FILES
    "${CMAKE_BINARY_DIR}/tdc_resource_spec.cmake")
endfunction()
