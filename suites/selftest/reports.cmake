# Fleets and reports (issue "Fleets and nightly matrices"): ci/merge, tdc report,
# tdc.fleet and tdc.report. They run on Debian's python3 with jinja2,
# matplotlib, jsonschema, junitparser, yaml, selenium and chromium
# (ci/lib.sh tdc_provision_report_tools); a missing one fails the entry with
# one line naming its Debian package.
set(debian_python /usr/bin/python3)
set(pytest ${debian_python} -m pytest -q -p no:cacheprovider)

# Their units (fleet rules, signing with real ssh-keygen keys, the CI
# templates, the report's command line) are files of ci/tests like every
# other unit: selftest.unit.<file> (results_tools.cmake).

# ci/conformance ends with the run's report.html, also when the run fails
# (a real level-1 run with a stale waiver, and its benchmark step); the
# check of the page fails without it. Its console goes to a log file, as
# `ci/conformance > run.log 2>&1` writes one: the file must keep the seed's
# lines and the device table, and hold no NUL byte (issue 29). It replaces
# this build's results/ and runs nested ctest on it: alone (RUN_SERIAL).
tdc_add_selftest(NAME reports.conformance_leaves_its_report TIMEOUT 900
  COMMAND ${debian_python} "${CMAKE_CURRENT_SOURCE_DIR}/conformance_report.py" --build-dir=${CMAKE_BINARY_DIR})
set_tests_properties(selftest.reports.conformance_leaves_its_report PROPERTIES
  RESOURCE_LOCK tdc_nested_ctest RUN_SERIAL TRUE LABELS "selftest;nested")

# A small real fleet: real level-1 runs and benchmarks of this build under
# six host names, one node slowed, one faulty on the first night, signed
# packages and forgeries of them (fleet_fixtures.py), then ci/merge over
# three nights and both reports in headless Chromium.
if(TARGET tdc_loopback AND TDC_BUILD_BENCHMARKS)  # bench/ is added after suites/
  set(fleet_fixtures "${CMAKE_BINARY_DIR}/selftest-fleet")
  tdc_add_selftest(NAME fleet.make_packages TIMEOUT 3600
    COMMAND ${debian_python} "${CMAKE_CURRENT_SOURCE_DIR}/fleet_fixtures.py"
      --build-dir=${CMAKE_BINARY_DIR} --out=${fleet_fixtures})
  # It need not run alone, nor take turns with the other nested runs (it
  # was the longest of that chain, 133 s in a fresh-clone CI run): its clean
  # nodes share one benchmark measurement, so a neighbour's load cannot make
  # one of them an outlier (fleet_fixtures.py, benchmark()), and its level-1
  # runs are under host names of their own, so lists and specs of their own.
  set_tests_properties(selftest.fleet.make_packages PROPERTIES
    FIXTURES_SETUP tdc_fleet_packages LABELS "selftest;nested")
  foreach(test fleet_merge reports_in_browser)
    tdc_add_selftest(NAME fleet.${test} TIMEOUT 900
      COMMAND ${pytest} "${CMAKE_CURRENT_SOURCE_DIR}/test_${test}.py"
      ENVIRONMENT TDC_FLEET_FIXTURES=${fleet_fixtures})
    set_tests_properties(selftest.fleet.${test} PROPERTIES FIXTURES_REQUIRED tdc_fleet_packages)
  endforeach()
endif()
