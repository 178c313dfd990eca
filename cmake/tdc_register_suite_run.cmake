include_guard(GLOBAL)
# tdc_register_suite_run() (included by cmake/TdcWaiverCheck.cmake).

#[=======================================================================[
tdc_register_suite_run(<binary> [<variable>=<value>...])
Registers how a suite binary is run (the environment assignments it runs
with, e.g. TDC_BACKEND_LIBS=...) for the waiver check of
cmake/TdcWaiverCheck.cmake.
#]=======================================================================]
function(tdc_register_suite_run binary)
  # ARGN: environment assignments for that binary, e.g. TDC_BACKEND_LIBS=...
  string(JOIN "," run "${binary}" ${ARGN})
  set_property(GLOBAL APPEND PROPERTY TDC_SUITE_RUNS "--run=${run}")
endfunction()
