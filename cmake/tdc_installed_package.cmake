# Called by a manifest an installed TDC's ctest reads. cmake/TdcInstalledTests.cmake
# includes this file, says what the manifests are, and defines what it reads:
# this TDC's facts (_tdc_fact_*), the manifest's prefix (_tdc_root), _tdc_refuse.

# "0.2.3" -> "0.2", "1.4.0" -> "1": what must match (docs/install.md, "Versions").
function(_tdc_series out version)
  string(REGEX MATCH "^([0-9]+)[.]([0-9]+)" _ "${version}")
  if(CMAKE_MATCH_1 STREQUAL "0")
    set(${out} "0.${CMAKE_MATCH_2}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
endfunction()

# A manifest's first call: refuses its suites when they were built against
# another TDC series or another LibTorch build than this TDC.
function(tdc_installed_package)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;VERSION;TDC_VERSION;TORCH_VERSION;TORCH_VARIANT" "")
  _tdc_series(theirs "${arg_TDC_VERSION}")
  _tdc_series(mine "${_tdc_fact_TDC_VERSION}")
  set(refusal "")
  if(NOT theirs STREQUAL mine OR arg_TDC_VERSION VERSION_GREATER _tdc_fact_TDC_VERSION)
    set(refusal "${arg_NAME} ${arg_VERSION} (${_tdc_manifest}) was built against TDC ${arg_TDC_VERSION}; "
      "this TDC is ${_tdc_fact_TDC_VERSION}: rebuild it against this one")
  elseif(NOT arg_TORCH_VERSION STREQUAL _tdc_fact_TDC_TORCH_VERSION OR
         NOT arg_TORCH_VARIANT STREQUAL _tdc_fact_TDC_TORCH_VARIANT)
    set(refusal "${arg_NAME} ${arg_VERSION} (${_tdc_manifest}) was built against LibTorch "
      "${arg_TORCH_VERSION} (${arg_TORCH_VARIANT}); this TDC runs LibTorch ${_tdc_fact_TDC_TORCH_VERSION} "
      "(${_tdc_fact_TDC_TORCH_VARIANT}): rebuild it against this TDC")
  endif()
  string(JOIN "" refusal ${refusal})
  set(_tdc_package_refusal "${refusal}" PARENT_SCOPE)
  set(_tdc_package_name "${arg_NAME}" PARENT_SCOPE)
endfunction()
