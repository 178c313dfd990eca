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

#[=======================================================================[
tdc_target_uses_torch(<target> [PUBLIC|PRIVATE])
Links LibTorch and sets the C++ standard and warnings this project builds with.
#]=======================================================================]
function(tdc_target_uses_torch target)
  set(scope PRIVATE)
  if(ARGC GREATER 1)
    set(scope ${ARGV1})
  endif()
  target_link_libraries(${target} ${scope} torch)
  target_compile_features(${target} ${scope} ${TDC_CXX_STANDARD_FEATURE})
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(TDC_SANITIZE)
    # vptr is off: LibTorch's classes come from an uninstrumented library.
    target_compile_options(${target} PRIVATE -fsanitize=${TDC_SANITIZE} -fno-sanitize=vptr
                           -fno-sanitize-recover=all -fno-omit-frame-pointer)
    target_link_options(${target} ${scope} -fsanitize=${TDC_SANITIZE})
  endif()
endfunction()

# The name a PrivateUse1 backend is known by in device strings: LibTorch 2.x
# lets the backend register one ("loopback"); 1.13 always says privateuseone.
if(TDC_TORCH_VERSION VERSION_GREATER_EQUAL 2.0)
  set(TDC_PRIVATEUSE1_NAME loopback CACHE INTERNAL "device type name of a PrivateUse1 backend")
else()
  set(TDC_PRIVATEUSE1_NAME privateuseone CACHE INTERNAL "device type name of a PrivateUse1 backend")
endif()

#[=======================================================================[
tdc_reuse_core_pch(<target>...)
Compiles the targets with tdc_core's precompiled LibTorch headers
(TDC_PRECOMPILED_HEADERS). Only for targets built with the same flags: not
for shared libraries (position-independent code).
#]=======================================================================]
function(tdc_reuse_core_pch)
  if(TDC_PRECOMPILED_HEADERS AND TARGET tdc_core)  # not from an installed TDC
    foreach(target IN LISTS ARGN)
      target_precompile_headers(${target} REUSE_FROM tdc_core)
    endforeach()
  endif()
endfunction()
