# Called by a manifest an installed TDC's ctest reads. cmake/TdcInstalledTests.cmake
# includes this file, says what the manifests are, and defines what it reads:
# this TDC's facts (_tdc_fact_*), the manifest's prefix (_tdc_root), _tdc_refuse.

# One suite of a manifest: its plain entries and its loopback twin's, as a
# build tree declares them; paths relative to the manifest's prefix. PERCENT
# and DEVICES: the suite's claim (tdc_add_conformance_suite); a manifest
# written before suites had one gets this TDC's default share.
function(tdc_installed_suite)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;PROGRAM;TWIN;KNOWN_FAILURES;LEVELS;PERCENT;DEVICES" "LABELS")
  if(_tdc_package_refusal)
    _tdc_refuse("${arg_PROGRAM}" "${_tdc_package_refusal}")
    return()
  endif()
  list(FIND _tdc_suite_names "${arg_NAME}" known)
  if(NOT known EQUAL -1)
    _tdc_refuse("${arg_PROGRAM}.${_tdc_package_name}" "suite ${arg_NAME} of ${_tdc_manifest} is installed "
      "twice (another manifest has a suite of that name): a vendor suite needs a name of its own")
    return()
  endif()
  set(_tdc_suite_names ${_tdc_suite_names} "${arg_NAME}" PARENT_SCOPE)
  set(waivers "")
  if(arg_KNOWN_FAILURES)
    set(waivers "${_tdc_root}/${arg_KNOWN_FAILURES}")
  endif()
  set(levels "${_tdc_tdc_levels}")
  if(arg_LEVELS)
    list(APPEND levels "${_tdc_root}/${arg_LEVELS}")
  endif()
  if(NOT arg_PERCENT)
    set(arg_PERCENT "${_tdc_fact_TDC_GPU_PERCENT}")
  endif()
  if(NOT arg_DEVICES)
    set(arg_DEVICES ALL)
  endif()
  set(own_waivers "TDC_SUITE_KNOWN_FAILURES=${waivers}")
  set(runs "")
  set(binary "${_tdc_root}/libexec/tdc/${arg_PROGRAM}")
  string(MD5 place "${binary}")
  string(SUBSTRING "${place}" 0 8 place)
  tdc_suite_entries(BINARY "${binary}" BATCH "${_tdc_batch}" PROGRAM "${arg_PROGRAM}" SHORT_NAME "${arg_NAME}"
    PREFIX "" LABELS ${arg_LABELS} ENVIRONMENT "${own_waivers}"
    OWN_LIBRARIES ${_tdc_fact_TDC_TORCH_LIBRARIES} LISTING "${_tdc_listings}/${arg_PROGRAM}.${place}"
    BATCHES_DIR "${TDC_STATE}/batches" XML_DIR "${TDC_STATE}/ctest-gtest"
    PERCENT "${arg_PERCENT}" DEVICES "${arg_DEVICES}" LIST_TIMEOUT "${_tdc_fact_TDC_DISCOVERY_TIMEOUT}" LEVELS ${levels})
  list(APPEND runs "--run=${binary},${own_waivers}")
  if(arg_TWIN AND _tdc_loopback)
    set(twin "${_tdc_root}/libexec/tdc/${arg_TWIN}")
    set(twin_environment "TDC_BACKEND_LIBS=${_tdc_loopback}" TDC_DEVICES=privateuseone TDC_EXPECT=privateuseone:2
      "${own_waivers}")
    tdc_suite_entries(BINARY "${twin}" BATCH "${_tdc_batch}" PROGRAM "${arg_TWIN}" SHORT_NAME "${arg_NAME}"
      PREFIX "loopback:" LABELS ${arg_LABELS} loopback ENVIRONMENT ${twin_environment}
      OVERRIDDEN TDC_BACKEND_LIBS TDC_DEVICES TDC_EXPECT OWN_LIBRARIES ${_tdc_fact_TDC_TORCH_LIBRARIES}
      BACKEND_LIBRARIES "${_tdc_loopback}" LISTING "${_tdc_listings}/${arg_TWIN}.${place}"
      BATCHES_DIR "${TDC_STATE}/batches" XML_DIR "${TDC_STATE}/ctest-gtest"
      PERCENT "${arg_PERCENT}" DEVICES "${arg_DEVICES}" LIST_TIMEOUT "${_tdc_fact_TDC_DISCOVERY_TIMEOUT}" LEVELS ${levels})
    string(JOIN "," run "${twin}" ${twin_environment})
    list(APPEND runs "--run=${run}")
  endif()
  set(_tdc_waiver_runs ${_tdc_waiver_runs} ${runs} PARENT_SCOPE)
endfunction()
