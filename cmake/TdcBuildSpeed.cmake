include_guard(GLOBAL)
# How fast TDC's own tree builds (issue 29; docs/measurements.md, "Build"):
# unity batches, a faster linker, chosen here at configure time and applied
# to every target of the tree by tdc_speed_up_targets() once they all exist.
# The precompiled headers are per target where the target is made
# (tdc_reuse_core_pch, the loopback's own); ccache is the launcher that
# ci/lib.sh's tdc_build passes (TDC_NO_CCACHE=1 leaves it out).
# Project-only: a vendor's project built on an installed TDC keeps its own
# toolchain choices.
include(CheckLinkerFlag)

option(TDC_UNITY_BUILD "Compile each target's sources in unity batches (TDC_UNITY_BATCH_SIZE files each)" ON)
set(TDC_UNITY_BATCH_SIZE 6 CACHE STRING
  "Sources per unity batch: small enough that a compiler error still reads as one file's")
if(NOT TDC_UNITY_BATCH_SIZE MATCHES "^[1-9][0-9]?$")
  message(FATAL_ERROR "TDC_UNITY_BATCH_SIZE='${TDC_UNITY_BATCH_SIZE}': expected an integer 1..99")
endif()

# auto: mold, else lld, else the compiler's default; or name one.
set(TDC_LINKER auto CACHE STRING "Linker: auto (mold, else lld, else the default), mold, lld or default")
set_property(CACHE TDC_LINKER PROPERTY STRINGS auto mold lld default)
set(_tdc_linker_flag "")
if(TDC_LINKER STREQUAL "auto")
  foreach(candidate mold lld)
    check_linker_flag(CXX "-fuse-ld=${candidate}" TDC_HAVE_LINKER_${candidate})
    if(TDC_HAVE_LINKER_${candidate})
      set(_tdc_linker_flag "-fuse-ld=${candidate}")
      break()
    endif()
  endforeach()
elseif(TDC_LINKER MATCHES "^(mold|lld)$")
  check_linker_flag(CXX "-fuse-ld=${TDC_LINKER}" TDC_HAVE_LINKER_${TDC_LINKER})
  if(NOT TDC_HAVE_LINKER_${TDC_LINKER})
    message(FATAL_ERROR "TDC_LINKER=${TDC_LINKER}: the compiler cannot link with it (is it installed?)")
  endif()
  set(_tdc_linker_flag "-fuse-ld=${TDC_LINKER}")
elseif(NOT TDC_LINKER STREQUAL "default")
  message(FATAL_ERROR "TDC_LINKER='${TDC_LINKER}': expected auto, mold, lld or default")
endif()
if(_tdc_linker_flag)
  set(TDC_LINKER_USED "${_tdc_linker_flag}")
else()
  set(TDC_LINKER_USED "the compiler's default")
endif()

include("${CMAKE_CURRENT_LIST_DIR}/tdc_speed_up_targets.cmake")
