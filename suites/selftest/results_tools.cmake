# The result tools fail closed: a damaged, empty or missing input is one line
# and exit 2, never a traceback or a pass.
set(damaged "${CMAKE_CURRENT_SOURCE_DIR}/damaged")
set(summarize "${PROJECT_SOURCE_DIR}/ci/summarize.py")
set(damaged_inputs
  "truncated_junit|--junit=${damaged}/truncated.xml|truncated.xml is not well-formed XML"
  "junit_without_testcases|--junit=${damaged}/no_testcases.xml|no_testcases.xml has no testcases"
  "html_as_junit|--junit=${damaged}/page.html|page.html is not a JUnit file"
  "missing_context|--context=/nonexistent/context.json|cannot read context file /nonexistent/context.json"
)
tdc_add_rejection_selftests(summarize_rejects "${damaged_inputs}"
  -- "${Python3_EXECUTABLE}" "${summarize}" --junit=${damaged}/root_causes.xml @VALUE@)
tdc_add_selftest(NAME summarize_groups_failures_by_root_cause
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/summary_groups_root_causes.py")
