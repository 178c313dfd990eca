# Waivers fail closed: a waiver that cannot apply is an error (exit 2, one
# line naming file:line) or, when only the whole set of suites can tell, a
# "waiver matched no test" failure of tdc check-waivers. Included from
# suites/selftest/CMakeLists.txt (check_run, waivers are set there).

set(bad_waivers
  "directory|${waivers}|it is a directory"
  "upper_case_device_type|${waivers}/upper_case_device_type.txt|upper_case_device_type.txt:2: device type 'CPU'"
  "bad_glob|${waivers}/bad_glob.txt|bad_glob.txt:2: test glob 'Forward.* has an unclosed"
  "expired|${waivers}/expired.txt|expired.txt:2: waiver expired on 2000-01-01"
  # Fail closed, round 3, finding 8: no crash (std::out_of_range, rc 134;
  # std::regex recursion on a 1 MB bound, rc 139) and no impossible date.
  "version_overflow|${waivers}/version_overflow.txt|version_overflow.txt:2: version bound '<99999999999' is not like"
  "version_megabyte|${CMAKE_CURRENT_BINARY_DIR}/waivers/megabyte_bound.txt|megabyte_bound.txt:2: version bound '<1111.*' \\(1048577 characters\\) is not like"
  "not_a_date|${waivers}/not_a_date.txt|not_a_date.txt:2: expiry '2027-02-30' is not a calendar date"
)
# A bound of a million digits, made here rather than kept in the tree.
string(REPEAT "1" 1048576 megabyte)
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/waivers/megabyte_bound.txt"
  "# A 1 MB version bound: refused in one short line.\nForward.* | cpu | <${megabyte} | huge bound (self-test)\n")
tdc_add_rejection_selftests(waiver_rejected "${bad_waivers}"
  --env "TDC_KNOWN_FAILURES=@VALUE@" -- $<TARGET_FILE:tdc_forward> --gtest_list_tests)

# A tracker is optional in ordinary runs and required in qualification runs.
tdc_add_selftest(NAME waiver_rejected.untracked_in_qualification
  COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 2 --one-line
    --stderr-line "untracked.txt:2: waiver without a tracker"
    --env "TDC_KNOWN_FAILURES=${waivers}/untracked.txt" --env TDC_REQUIRE_WAIVER_TRACKERS=1
    -- $<TARGET_FILE:tdc_forward> --gtest_list_tests)
tdc_add_selftest(NAME waiver_accepted.untracked_outside_qualification
  COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 0
    --env "TDC_KNOWN_FAILURES=${waivers}/untracked.txt" -- $<TARGET_FILE:tdc_forward> --gtest_list_tests)

# The sabotaged guard fails both checks; a waiver that applies turns the
# first into a known failure, the second fails either way (the run fails).
set(waiver_probe "MismatchGuard.RejectsMetaInput/cpu:MismatchGuard.RejectsOutputOnAnotherDevice/cpu")
# A real date is accepted, leap day included (the waived check reads as a known failure).
tdc_add_selftest(NAME waiver_accepted.leap_day
  COMMAND "${Python3_EXECUTABLE}" "${expect_failures}" --gtest $<TARGET_FILE:tdc_mismatch_guard_sabotaged>
    --env TDC_KNOWN_FAILURES=${waivers}/leap_day.txt --gtest-filter "${waiver_probe}"
    --must-skip "MismatchGuard.RejectsMetaInput/cpu" --must-fail "MismatchGuard.RejectsOutputOnAnotherDevice/cpu" --only)
# The README: '*' in the versions field is every version; the control, a
# bound no version meets, leaves the check failing.
tdc_add_selftest(NAME waiver_accepted.star_is_every_version
  COMMAND "${Python3_EXECUTABLE}" "${expect_failures}" --gtest $<TARGET_FILE:tdc_mismatch_guard_sabotaged>
    --env TDC_KNOWN_FAILURES=${waivers}/every_version.txt --gtest-filter "${waiver_probe}"
    --must-skip "MismatchGuard.RejectsMetaInput/cpu" --must-fail "MismatchGuard.RejectsOutputOnAnotherDevice/cpu" --only)
tdc_add_selftest(NAME waiver_accepted.no_version_waives_nothing
  COMMAND "${Python3_EXECUTABLE}" "${expect_failures}" --gtest $<TARGET_FILE:tdc_mismatch_guard_sabotaged>
    --env TDC_KNOWN_FAILURES=${waivers}/no_version.txt --gtest-filter "${waiver_probe}"
    --must-fail "MismatchGuard.RejectsMetaInput/cpu" --must-fail "MismatchGuard.RejectsOutputOnAnotherDevice/cpu" --only)

# The README: an empty --known-failures= means no waivers.
# The flag overrides a waiver file in the environment, so the waived check fails.
tdc_add_selftest(NAME waiver_accepted.empty_flag_means_none
  COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 1
    --stdout-has "[  FAILED  ] MismatchGuard.RejectsMetaInput/cpu"
    --env TDC_KNOWN_FAILURES=${waivers}/waives_the_sabotaged_guard.txt
    -- $<TARGET_FILE:tdc_mismatch_guard_sabotaged> --known-failures=
      --gtest_filter=MismatchGuard.RejectsMetaInput/cpu)

if(TARGET tdc_loopback AND NOT TDC_PRIVATEUSE1_NAME STREQUAL "privateuseone")
  tdc_add_selftest(NAME waiver_rejected.privateuseone_when_renamed
    COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 2 --one-line
      --stderr-line "privateuseone_renamed.txt:2: device type 'privateuseone': this LibTorch names PrivateUse1 '${TDC_PRIVATEUSE1_NAME}'"
      --env "TDC_KNOWN_FAILURES=${waivers}/privateuseone_renamed.txt"
      --env "TDC_BACKEND_LIBS=$<TARGET_FILE:tdc_loopback>"
      -- $<TARGET_FILE:tdc_forward> --gtest_list_tests)
endif()

set(forward_runs "--run=$<TARGET_FILE:tdc_forward>")
if(TARGET tdc_loopback)
  list(APPEND forward_runs
    "--run=$<TARGET_FILE:tdc_forward_with_loopback>,TDC_BACKEND_LIBS=$<TARGET_FILE:tdc_loopback>")
endif()
foreach(case unknown_device_type typo_in_check)
  tdc_add_selftest(NAME waiver_matched_no_test.${case}
    COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 1
      --stdout-has "waiver matched no test: ${waivers}/${case}.txt:2"
      --env "TDC_KNOWN_FAILURES=${waivers}/${case}.txt"
      -- "${Python3_EXECUTABLE}" -m tdc check-waivers ${forward_runs})
endforeach()
tdc_add_selftest(NAME waiver_matched.project_waivers_all_apply
  COMMAND "${Python3_EXECUTABLE}" "${check_run}" --exit 0 --stdout-has "0 matched no test"
    --env "TDC_KNOWN_FAILURES=${PROJECT_SOURCE_DIR}/suites/selftest/waivers/waives_the_sabotaged_guard.txt"
    -- "${Python3_EXECUTABLE}" -m tdc check-waivers "--run=$<TARGET_FILE:tdc_mismatch_guard>")
tdc_add_pytest_selftest(NAME waiver_matched_no_test.after_a_kept_pass FILE test_waiver_memo.py
  ENVIRONMENT TDC_CHECK_WAIVERS_RUN=$<TARGET_FILE:tdc_mismatch_guard>)
