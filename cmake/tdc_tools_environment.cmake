include_guard(GLOBAL)
# tdc_tools_environment() (included by cmake/TdcTesting.cmake and, at ctest
# time, cmake/TdcInstalledTests.cmake).

#[=======================================================================[
tdc_tools_environment(<out>)
Sets <out> to the ENVIRONMENT a ctest entry runs TDC's Python tools with:
the tools' folder (ci/ beside this cmake/ folder: the source tree's, or an
installed TDC's share/tdc/ci) first on Python's path, and, for an installed
TDC, no bytecode written into its prefix (as bin/tdc). CMake's one place for
that path; the shell's is ci/tools.sh, Python's tdc.verbs.tools_env.
#]=======================================================================]
function(tdc_tools_environment out)
  get_filename_component(data "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.." ABSOLUTE)
  set(environment "PYTHONPATH=${data}/ci")
  if(data MATCHES "/share/tdc$")
    list(APPEND environment PYTHONDONTWRITEBYTECODE=1)
  endif()
  set(${out} "${environment}" PARENT_SCOPE)
endfunction()
