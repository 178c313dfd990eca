include_guard(GLOBAL)
# tdc_reuse_core_pch() (included by cmake/TdcTorchCompat.cmake).

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
