# The c10d plugin example (examples/c10d-plugin; issue 31: "a plugin built
# outside the tree through TDC_C10D_BACKEND_LIBS runs the suite"). ctest
# --build-and-test configures and builds it as its own project, in a folder
# of this build, against this build's LibTorch and the plugin ABI of this
# source tree (no TDC is installed here), then runs the collectives suite's
# cpu checks with TDC_C10D_BACKEND_LIBS naming the library it built. On cpu
# TDC's own candidate is gloo, so "(c10d backend tdc_loopback)" can only
# come from that library; the second entry shows the same assertion fails
# without it. --build-noclean: a rerun rebuilds only what changed.
set(c10d_plugin_build "${CMAKE_CURRENT_BINARY_DIR}/c10d-plugin-example")
set(c10d_plugin_served "all 2 rank processes reaped (c10d backend tdc_loopback)")
# The LibTorch this build found, and the hints it found it with (a CUDA
# LibTorch from pip: cmake/TdcTorchCudaHints.cmake), for the example's own
# find_package(Torch).
set(c10d_plugin_options "-DACME_TDC_HEADERS=source" "-DTDC_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
  "-DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}" "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
  "-DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}")
foreach(variable Torch_DIR Caffe2_DIR CUDA_TOOLKIT_ROOT_DIR CUDA_nvrtc_LIBRARY)
  if(${variable})
    list(APPEND c10d_plugin_options "-D${variable}=${${variable}}")
  endif()
endforeach()
tdc_add_selftest(NAME collectives.out_of_tree_plugin_runs_the_suite TIMEOUT 1200 LABELS collectives nested
  COMMAND "${CMAKE_CTEST_COMMAND}" --build-and-test "${PROJECT_SOURCE_DIR}/examples/c10d-plugin" "${c10d_plugin_build}"
    --build-generator "${CMAKE_GENERATOR}" --build-makeprogram "${CMAKE_MAKE_PROGRAM}" --build-noclean
    --build-options ${c10d_plugin_options}
    --test-command "${Python3_EXECUTABLE}" "${check_run}" --exit 0
      --env "TDC_C10D_BACKEND_LIBS=${c10d_plugin_build}/libacme_c10d.so" --stdout-has "${c10d_plugin_served}"
      -- $<TARGET_FILE:tdc_collectives> --gtest_filter=*/cpu)
# Its negative: with no plugin named, cpu is gloo's (or skipped without
# gloo's headers), and the assertion above fails, naming the line it lacks.
tdc_add_selftest(NAME collectives.out_of_tree_plugin_check_fails_without_the_plugin TIMEOUT 180 LABELS collectives
  COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 1 --stdout-has "FAILED: stdout lacks '${c10d_plugin_served}'"
    -- "${Python3_EXECUTABLE}" "${check_run}" --exit 0 --env TDC_C10D_BACKEND_LIBS= --stdout-has "${c10d_plugin_served}"
      -- $<TARGET_FILE:tdc_collectives> --gtest_filter=*/cpu)
