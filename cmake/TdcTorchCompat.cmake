include_guard(GLOBAL)
# The CMake half of the compatibility layer: what differs between LibTorch
# builds at configure time. The C++ half is fixtures/include/tdc/compat/.

# LibTorch 2.x headers need C++20 (its package asks for it); 1.13 builds as C++17.
set(TDC_TORCH_VERSION "${Torch_VERSION}")
if(NOT TDC_TORCH_VERSION)
  set(TDC_TORCH_VERSION "0")
endif()
# cpu or cuda: with the version, what names a LibTorch build (an installed
# TDC's package name, the build its consumers must match: TDCConfig.cmake).
if(TARGET torch_cuda OR TARGET c10_cuda OR TORCH_CUDA_LIBRARIES)
  set(TDC_TORCH_VARIANT cuda)
else()
  set(TDC_TORCH_VARIANT cpu)
endif()
if(TDC_TORCH_VERSION VERSION_GREATER_EQUAL 2.0)
  set(TDC_CXX_STANDARD_FEATURE cxx_std_20)
else()
  set(TDC_CXX_STANDARD_FEATURE cxx_std_17)
endif()

# Sanitizers for the project's own code (ci/sanitize): a -fsanitize= list,
# e.g. "address,undefined". LibTorch itself stays uninstrumented.
set(TDC_SANITIZE "" CACHE STRING "sanitizers for TDC's targets (-fsanitize=...), empty for none")

# The name a PrivateUse1 backend is known by in device strings: LibTorch 2.x
# lets the backend register one ("loopback"); 1.13 always says privateuseone.
if(TDC_TORCH_VERSION VERSION_GREATER_EQUAL 2.0)
  set(TDC_PRIVATEUSE1_NAME loopback CACHE INTERNAL "device type name of a PrivateUse1 backend")
else()
  set(TDC_PRIVATEUSE1_NAME privateuseone CACHE INTERNAL "device type name of a PrivateUse1 backend")
endif()

include("${CMAKE_CURRENT_LIST_DIR}/tdc_target_uses_torch.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/tdc_reuse_core_pch.cmake")
