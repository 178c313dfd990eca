include_guard(GLOBAL)
# Helpers of more than one of the files cmake/TdcTesting.cmake includes
# (tdc_add_conformance_suite, tdc_generate_resource_spec, the waiver check,
# cmake/TdcInstall.cmake).

# LibTorch's own libraries: their identity keys cached lists and specs.
function(_tdc_torch_identity_libraries out)
  # LOCATION: an imported target's file for the build's configuration
  # (pip's LibTorch sets only IMPORTED_LOCATION_RELEASE).
  get_target_property(torch_library torch LOCATION)
  get_filename_component(torch_dir "${torch_library}" DIRECTORY)
  set(libraries "")
  foreach(name torch torch_cpu c10 torch_cuda c10_cuda)
    if(EXISTS "${torch_dir}/lib${name}.so")
      list(APPEND libraries "${torch_dir}/lib${name}.so")
    endif()
  endforeach()
  set(${out} "${libraries}" PARENT_SCOPE)
endfunction()

# Calls `function` once, at the end of the top directory's configure, however
# many suites ask for it: what is written from every suite's registration
# (the install manifest, the resource spec) is written when all are known.
function(_tdc_call_once_at_end function)
  get_property(deferred GLOBAL PROPERTY _TDC_DEFERRED_${function})
  if(NOT deferred)
    set_property(GLOBAL PROPERTY _TDC_DEFERRED_${function} TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL ${function})
  endif()
endfunction()
