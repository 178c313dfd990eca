include_guard(GLOBAL)
# tdc_target_uses_torch() (included by cmake/TdcTorchCompat.cmake, which sets
# TDC_CXX_STANDARD_FEATURE and TDC_SANITIZE).

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
