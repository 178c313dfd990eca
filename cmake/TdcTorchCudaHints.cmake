include_guard(GLOBAL)
# LibTorch's CUDA builds find the toolkit with the old FindCUDA, which needs
# help on hosts where nvcc is a wrapper outside the toolkit (/usr/local/bin)
# and where nvrtc ships only inside pip's nvidia-* wheels. These are hints:
# anything set on the command line wins. Harmless for CPU builds.

if(NOT DEFINED CUDA_TOOLKIT_ROOT_DIR)
  # nvcc on PATH names its toolkit (bin/..) once symlinks are resolved.
  find_program(_tdc_nvcc nvcc)
  set(_tdc_nvcc_root "")
  if(_tdc_nvcc)
    get_filename_component(_tdc_nvcc_root "${_tdc_nvcc}" REALPATH)
    get_filename_component(_tdc_nvcc_root "${_tdc_nvcc_root}" DIRECTORY)
    get_filename_component(_tdc_nvcc_root "${_tdc_nvcc_root}" DIRECTORY)
  endif()
  foreach(candidate "$ENV{CUDA_HOME}" "$ENV{CUDA_PATH}" /usr/local/cuda "${_tdc_nvcc_root}")
    if(candidate AND EXISTS "${candidate}/include/cuda_runtime.h")
      set(CUDA_TOOLKIT_ROOT_DIR "${candidate}" CACHE PATH "CUDA toolkit for LibTorch's CUDA build")
      break()
    endif()
  endforeach()
endif()

if(NOT DEFINED CUDA_nvrtc_LIBRARY)
  # A pip LibTorch's prefix is .../site-packages/torch[/share/cmake]; the CUDA
  # wheels sit beside it in .../site-packages/nvidia/cu*/lib.
  foreach(prefix IN LISTS CMAKE_PREFIX_PATH)
    file(GLOB nvrtc_candidates
      "${prefix}/../nvidia/cu*/lib/libnvrtc.so.*"
      "${prefix}/../../../nvidia/cu*/lib/libnvrtc.so.*"
      "${prefix}/../nvidia/cuda_nvrtc/lib/libnvrtc.so.*"
      "${prefix}/../../../nvidia/cuda_nvrtc/lib/libnvrtc.so.*")
    list(FILTER nvrtc_candidates EXCLUDE REGEX "builtins|alt")
    if(nvrtc_candidates)
      list(GET nvrtc_candidates 0 nvrtc)
      get_filename_component(nvrtc "${nvrtc}" REALPATH)
      set(CUDA_nvrtc_LIBRARY "${nvrtc}" CACHE FILEPATH "nvrtc for LibTorch's CUDA build")
      break()
    endif()
  endforeach()
endif()
