include_guard(GLOBAL)
# tdc_speed_up_targets() (included by cmake/TdcBuildSpeed.cmake, which chooses
# the linker and the unity batches it applies).

#[=======================================================================[
tdc_speed_up_targets()
Called once at the end of the top-level CMakeLists: every C++ target of the
tree gets unity batches (TDC_UNITY_BUILD) and every linked one the chosen
linker. One place, so that a new target is fast without a line of its own.
#]=======================================================================]
function(tdc_speed_up_targets)
  _tdc_targets_below("${CMAKE_SOURCE_DIR}" targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$")
      if(TDC_UNITY_BUILD)
        set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${TDC_UNITY_BATCH_SIZE})
      endif()
    endif()
    if(_tdc_linker_flag AND type MATCHES "^(SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$")
      target_link_options(${target} PRIVATE ${_tdc_linker_flag})
    endif()
  endforeach()
  message(STATUS "TDC build: unity batches ${TDC_UNITY_BUILD} (${TDC_UNITY_BATCH_SIZE} files), linker ${TDC_LINKER_USED}")
endfunction()

function(_tdc_targets_below directory out)
  get_property(found DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(children DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
  foreach(child IN LISTS children)
    _tdc_targets_below("${child}" below)
    list(APPEND found ${below})
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
