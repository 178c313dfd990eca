# The fleet tools on a real Slurm cluster started on this host: ci/slurm's
# job array and ci/fleet's node adapters (suites/selftest/fleet_cluster.py;
# docs/fleet.md, "The fleet self-test on a real Slurm cluster"). It takes
# minutes (docs/measurements.md) and ci/selftest runs every entry (but the
# long tier, evidence_checks.cmake) on each of three builds, which would not
# fit CI's time: it is registered only with
# -DTDC_FLEET_SELFTEST=ON; the README's command runs it on one build.
option(TDC_FLEET_SELFTEST "Register the Slurm cluster self-test (minutes; starts daemons)" OFF)
if(TDC_FLEET_SELFTEST AND TARGET tdc_loopback)
  tdc_add_selftest(NAME fleet.slurm_array_and_node_adapters
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fleet_cluster.py"
      --build-dir=${CMAKE_BINARY_DIR}
    TIMEOUT 2400 LABELS fleet)
  # Its nodes run level 1 and the benchmarks on this build: nothing else at once.
  set_tests_properties(selftest.fleet.slurm_array_and_node_adapters PROPERTIES RUN_SERIAL TRUE)
endif()

# Its short version (two nodes, the array, two HealthCheckProgram cycles;
# about two minutes) runs where people see it fail: ci/selftest's first build.
if(TDC_TOOL_SELFTESTS AND TARGET tdc_loopback)
  tdc_add_selftest(NAME fleet.slurm_short_cluster
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/fleet_cluster.py"
      --build-dir=${CMAKE_BINARY_DIR} --short
    TIMEOUT 1200 LABELS "fleet;nested")
endif()

# The Prolog's check (the recorded verdict and the device list, never a run)
# against this build's tdc_context and loopback: every build (the device
# names are its LibTorch's).
if(TARGET tdc_loopback)
  tdc_add_pytest_selftest(NAME fleet.prolog_device_list FILE test_prolog_device_list.py
    ENVIRONMENT TDC_PROLOG_BUILD=${CMAKE_BINARY_DIR})
endif()

# The units of the fleet tools need no cluster: ci/tests/test_fleet_units.py
# (selftest.unit.fleet_units, with the other units).

# ci/slurm/submit refuses bad input with one line before it asks Slurm anything.
set(fleet_bad_submits
  "bad_level|--level=5|invalid choice: 5"
  "no_build|--torch=2.13.0|give --build-root=DIR"
  "bad_gpus|--gpus=x|--gpus='x': expected auto or a count"
  "bad_budget|--budget=3|--budget=3: expected 10..86400 seconds"
  "not_a_build|--use-build=/nonexistent/build|--use-build=/nonexistent/build: not a TDC build"
  # Values that would fail the night hours later (issue 34, finding 10; more in ci/tests/test_slurm_submit.py).
  "no_history|--history=/nonexistent|--history=/nonexistent: not a folder"
  "no_backend|--backend-lib=/nonexistent.so|--backend-lib=/nonexistent.so: no such file"
  "bad_time|--time=abc|--time='abc': not a Slurm time limit"
  "bad_throttle|--max-running=0|--max-running=0: expected 1..100000")
tdc_add_rejection_selftests(fleet.submit_rejects "${fleet_bad_submits}"
  -- "${PROJECT_SOURCE_DIR}/ci/slurm/submit" --results=${CMAKE_BINARY_DIR}/fleet-rejected @VALUE@)
