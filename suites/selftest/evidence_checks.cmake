# Levels, readiness verdicts and packages (issue 12). These run nested ctest
# or level-1 runs against this build, so they take turns (RESOURCE_LOCK).
set(ci "${PROJECT_SOURCE_DIR}/ci")
set(nested_runs "")

tdc_add_selftest(NAME mustpass_lists_match_the_suites
  COMMAND "${Python3_EXECUTABLE}" -m tdc mustpass --build-dir=${CMAKE_BINARY_DIR} --check)
tdc_add_selftest(NAME mustpass_check_fails_on_a_stale_list
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/stale_mustpass.py" --build-dir=${CMAKE_BINARY_DIR})
list(APPEND nested_runs mustpass_lists_match_the_suites mustpass_check_fails_on_a_stale_list)

tdc_add_selftest(NAME health_unhealthy_when_an_expected_device_is_missing
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/health_fails_closed.py"
    --build-dir=${CMAKE_BINARY_DIR} --case=expected-device-missing)
tdc_add_selftest(NAME health_unknown_without_a_build
  COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 2 --stdout-has "\"verdict\": \"unknown\""
    -- "${ci}/health" --build-dir=/nonexistent/build)
list(APPEND nested_runs health_unhealthy_when_an_expected_device_is_missing)
# Plain ctest's GoogleTest XML stays out of ci/conformance's results folder
# (issue "Results ...", finding 2).
tdc_add_selftest(NAME plain_ctest_keeps_out_of_conformance_results
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/plain_ctest_results_apart.py"
    --build-dir=${CMAKE_BINARY_DIR})
list(APPEND nested_runs plain_ctest_keeps_out_of_conformance_results)
if(TDC_TOOL_SELFTESTS)
  list(APPEND nested_runs hostile.mustpass)
endif()

# ci/health fails closed (issue "Fail closed, round 3"): finding 3, an earlier
# run's results are never read as this run's; finding 5, a hung check is an
# unhealthy verdict naming it, within the budget; findings 1 and 2, the
# level's counting rule against real runs (tdc.levels; its units:
# selftest.unit.levels); finding 4, a bad TDC_TEST_TIMEOUT poisons no later
# run; finding 2, a missing suite binary or loopback library is unhealthy.
# They test ci/health, which no LibTorch build changes (the settings' parsing
# it reports is C++, tested on every build: selftest.units.MalformedDeviceSpec.*
# and bad_input.*), and they are the longest nested runs (about 5 minutes a
# build): tool self-tests, on ci/selftest's first build. The two longest,
# counting and timeout-poison (about 2 and 1 minutes, one after the other
# under the lock), are the long tier (label long_selftest): ci/selftest
# leaves them out unless --long names the build (README, "Two commands").
if(TDC_TOOL_SELFTESTS)
  set(long_cases counting timeout-poison)
  foreach(case stale-out hang counting timeout-poison missing-part)
    set(labels "")
    if(case IN_LIST long_cases)
      set(labels long_selftest)
    endif()
    tdc_add_selftest(NAME health_fails_closed.${case}
      COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/health_fails_closed.py"
        --build-dir=${CMAKE_BINARY_DIR} --case=${case}
      LABELS ${labels})
    list(APPEND nested_runs health_fails_closed.${case})
  endforeach()
  # It moves a binary and a library of this build aside for a while: nothing
  # else may run meanwhile.
  set_tests_properties(selftest.health_fails_closed.missing-part PROPERTIES RUN_SERIAL TRUE)
endif()

if(TARGET tdc_loopback)
  # node-problem-detector's plugin (ci/fleet/); the Slurm adapters: fleet.cmake.
  tdc_add_selftest(NAME fleet_npd_wrapper_reports_a_faulty_device
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fleet_wrappers.py"
      --build-dir=${CMAKE_BINARY_DIR} --fault=corrupt-copy)
  list(APPEND nested_runs fleet_npd_wrapper_reports_a_faulty_device)
  # ci/package and ci/verify, which no LibTorch build changes (each build's
  # installed kit packages and verifies a run: install.readonly_*): a tool
  # self-test.
  if(TDC_TOOL_SELFTESTS)
    tdc_add_selftest(NAME package_verify_rejects_each_tampering
      COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/package_tampering.py"
        --build-dir=${CMAKE_BINARY_DIR})
    list(APPEND nested_runs package_verify_rejects_each_tampering)
  endif()
  # A health check killed while a check hangs leaves no process and no stale
  # "healthy" (issue 34, finding 8); ci/health, tdc run and tdc.reaper, which
  # no LibTorch build changes: a tool self-test, seconds each.
  if(TDC_TOOL_SELFTESTS)
    foreach(sig TERM KILL)
      tdc_add_selftest(NAME health_killed_leaves_nothing.${sig} TIMEOUT 600
        COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/health_killed.py"
          --build-dir=${CMAKE_BINARY_DIR} --signal=${sig})
      list(APPEND nested_runs health_killed_leaves_nothing.${sig})
    endforeach()
  endif()
  # The README's package-then-verify sequence twice in one tree, both verify;
  # no overwriting; two builds into one folder are two packages (issue 35).
  # ci/package and ci/verify, which no LibTorch build changes: a tool self-test.
  if(TDC_TOOL_SELFTESTS)
    tdc_add_selftest(NAME package_then_verify_twice_in_one_tree
      COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/package_twice.py"
        --build-dir=${CMAKE_BINARY_DIR})
    list(APPEND nested_runs package_then_verify_twice_in_one_tree)
  endif()
endif()

list(TRANSFORM nested_runs PREPEND "selftest.")
# A backstop for a hang, far above what they take: each ci/health inside
# gets health_budget.py's budget, which no load seen here comes near.
set_tests_properties(${nested_runs} PROPERTIES RESOURCE_LOCK tdc_nested_ctest TIMEOUT 3600)
set_property(TEST ${nested_runs} APPEND PROPERTY LABELS nested)  # tdc ctest-profile counts them
