# Included by the generated suite scripts (cmake/TdcSuiteTests.cmake.in) at
# ctest time: lists a suite's tests when its cached list is stale, then
# declares its ctest entries. What the entries are, and why, is said in
# cmake/TdcSuiteTests.cmake.in; this file is how.

# "Placement.*:Forward.*/cpu_*" -> regular expressions over Suite.Name.
function(_tdc_glob_regexes out globs)
  string(REPLACE ":" ";" globs "${globs}")
  set(regexes "")
  foreach(glob IN LISTS globs)
    if(glob STREQUAL "")
      continue()
    endif()
    string(REGEX REPLACE "([][.+^$(){}|\\\\])" "\\\\\\1" regex "${glob}")
    string(REPLACE "*" ".*" regex "${regex}")
    string(REPLACE "?" "." regex "${regex}")
    list(APPEND regexes "^${regex}$")
  endforeach()
  set(${out} "${regexes}" PARENT_SCOPE)
endfunction()

# Writes `text` to `path` unless it exists, whole or not at all (under
# `lock`, renamed into place): files named by their content are written once.
function(_tdc_write_once path text lock)
  if(EXISTS "${path}")
    return()
  endif()
  file(LOCK "${lock}" GUARD FUNCTION TIMEOUT 120 RESULT_VARIABLE locked)
  if(NOT EXISTS "${path}")
    file(WRITE "${path}.new" "${text}")
    file(RENAME "${path}.new" "${path}")
  endif()
endfunction()

# A failing entry that prints one line: a setting this script reads is bad.
function(_tdc_refusing_entry name batch labels message)
  add_test("${name}" "${batch}" "--refuse=${message}")
  set_tests_properties("${name}" PROPERTIES LABELS "${labels}" TIMEOUT 60)
endfunction()

# The labels an entry of a level-1-or-not batch gets: the suite's, and level1
# for the level-1 batch; a configuration error or an unbuilt suite gets every
# level's label, so that no level can leave it out and pass.
function(_tdc_all_level_labels out labels)
  foreach(rule IN LISTS _tdc_level_rules)
    string(FIND "${rule}" "=" split)
    string(SUBSTRING "${rule}" 0 ${split} level)
    list(FIND labels "${level}" known)
    if(known EQUAL -1)
      list(APPEND labels "${level}")
    endif()
  endforeach()
  set(${out} "${labels}" PARENT_SCOPE)
endfunction()

# Sets <out> to the suite's test list for this run's fingerprint, listing
# the suite (--tdc-list) when there is none yet, and <error> to "" or to why
# the listing failed (one line). Lists are kept per fingerprint
# (<base>.<fingerprint>.txt) and never rewritten, so that ctest runs at once
# on one build with different settings (a fault matrix beside a health
# check) never read each other's list; a lock makes the second of two runs
# with the same settings wait for the first one's list instead of listing
# again. A list that reports a configuration error is used for this run only
# (removed by the caller), never kept: the next run, with the setting fixed,
# lists the tests.
function(_tdc_listing out error)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "BINARY;BASE;LIST_TIMEOUT;OVERRIDDEN;OWN_LIBRARIES;BACKEND_LIBRARIES"
    "ENVIRONMENT")
  tdc_discovery_fingerprint(fingerprint "${arg_BINARY}" "${arg_OVERRIDDEN}" "${arg_OWN_LIBRARIES}"
    "${arg_BACKEND_LIBRARIES}")
  set(listing "${arg_BASE}.${fingerprint}.txt")
  set(${out} "${listing}" PARENT_SCOPE)
  set(${error} "" PARENT_SCOPE)
  if(EXISTS "${listing}")
    return()
  endif()
  file(LOCK "${arg_BASE}.lock" GUARD FUNCTION TIMEOUT ${arg_LIST_TIMEOUT} RESULT_VARIABLE locked)
  if(EXISTS "${listing}")
    return()  # another run listed it while this one waited
  endif()
  set(made "${listing}.new")
  file(REMOVE "${made}")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env ${arg_ENVIRONMENT} "${arg_BINARY}" "--tdc-list=${made}"
    TIMEOUT ${arg_LIST_TIMEOUT}
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0 OR NOT EXISTS "${made}")
    string(STRIP "${output}" output)
    string(REGEX REPLACE ".*\n" "" last_line "${output}")
    file(REMOVE "${made}")
    set(${error} "listing the tests of ${arg_BINARY} failed (${result}): ${last_line}" PARENT_SCOPE)
    return()
  endif()
  file(STRINGS "${made}" header LIMIT_COUNT 1)
  if(header STREQUAL "# configuration error")
    set(${out} "${made}" PARENT_SCOPE)
    return()
  endif()
  file(RENAME "${made}" "${listing}")
  _tdc_write_check_names("${listing}" "${arg_BASE}" "${arg_BINARY}")
endfunction()

# <base>.checks: the binary's identity and its checks (Suite.Case), which
# no setting changes (settings change the instances after the "/"): enough
# to tell, without listing again, that TDC_CHECKS selects none of them.
# Written under the listing's lock, renamed into place.
function(_tdc_write_check_names listing base binary)
  file(STRINGS "${listing}" lines)
  set(checks "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "[/\t].*" "" check "${line}")
    list(APPEND checks "${check}")
  endforeach()
  list(REMOVE_DUPLICATES checks)
  _tdc_library_identity(identity "${binary}" FALSE)
  list(JOIN checks "\n" text)
  file(WRITE "${base}.checks.new" "${identity}\n${text}\n")
  file(RENAME "${base}.checks.new" "${base}.checks")
endfunction()

# True when TDC_CHECKS is set and selects none of the binary's checks, as
# its last listing named them: the suite then has no entries, and is not
# listed again for this run's settings (the fault matrix changes settings on
# every row and selects a few suites).
function(_tdc_selects_nothing out base binary)
  set(${out} FALSE PARENT_SCOPE)
  if("$ENV{TDC_CHECKS}" STREQUAL "" OR NOT EXISTS "${base}.checks")
    return()
  endif()
  file(STRINGS "${base}.checks" known)
  list(POP_FRONT known identity)
  _tdc_library_identity(current "${binary}" FALSE)
  if(NOT identity STREQUAL current)
    return()
  endif()
  # The part of each glob before its "/" is a glob over checks.
  string(REPLACE ":" ";" globs "$ENV{TDC_CHECKS}")
  list(TRANSFORM globs REPLACE "/.*" "")
  list(JOIN globs ":" check_globs)
  _tdc_glob_regexes(regexes "${check_globs}")
  foreach(check IN LISTS known)
    foreach(regex IN LISTS regexes)
      if(check MATCHES "${regex}")
        return()
      endif()
    endforeach()
  endforeach()
  set(${out} TRUE PARENT_SCOPE)
endfunction()

# A failing entry for the checks that touch more devices than the suite's
# DEVICES says one check may (`tests`: the ids of tdc_suite_entries' tests):
# its claim (tdc_add_conformance_suite) must say what its checks do.
function(_tdc_devices_beyond_claim prefix program batch labels allowed tests)
  if(allowed STREQUAL "ALL")
    return()
  endif()
  set(over "")
  foreach(test_id IN LISTS tests)
    list(LENGTH devices_of_${test_id} count)
    if(count GREATER allowed)
      list(JOIN devices_of_${test_id} "," devices)
      list(APPEND over "${test_${test_id}} touches ${count} (${devices})")
    endif()
  endforeach()
  if(over)
    list(LENGTH over many)
    list(GET over 0 first)
    _tdc_refusing_entry("${prefix}TdcConfiguration.${program}.devices" "${batch}" "${labels}"
      "${many} check(s) of ${program} touch more devices than its suite's DEVICES ${allowed}, e.g. ${first}: "
      "tdc_add_conformance_suite(... DEVICES <count>|ALL) must say how many one check touches")
  endif()
endfunction()

# LEVELS: the levels files whose rules label this suite's checks (TDC's
# suites/levels.txt, and a vendor suite's own). PERCENT: the share of each
# device an entry claims; DEVICES: the most devices one check may touch (a
# count or ALL; tdc_add_conformance_suite says why).
function(tdc_suite_entries)
  cmake_parse_arguments(PARSE_ARGV 0 arg ""
    "BINARY;BATCH;PROGRAM;SHORT_NAME;PREFIX;LISTING;BATCHES_DIR;XML_DIR;PERCENT;DEVICES;LIST_TIMEOUT"
    "LABELS;ENVIRONMENT;OVERRIDDEN;OWN_LIBRARIES;BACKEND_LIBRARIES;LEVELS")
  tdc_read_level_rules(${arg_LEVELS})
  _tdc_all_level_labels(every_level "${arg_LABELS}")
  if(NOT EXISTS "${arg_BINARY}")
    _tdc_refusing_entry("${arg_PREFIX}${arg_PROGRAM}_NOT_BUILT" "${arg_BATCH}" "${every_level}"
      "${arg_BINARY} is not built (build the project)")
    return()
  endif()

  set(isolate "$ENV{TDC_ISOLATE}")
  if(isolate STREQUAL "")
    set(isolate auto)
  endif()
  if(NOT isolate MATCHES "^(check|device|suite|auto)$")
    _tdc_refusing_entry("${arg_PREFIX}TdcConfiguration.${arg_PROGRAM}" "${arg_BATCH}" "${every_level}"
      "TDC_ISOLATE='${isolate}': expected check, device, suite or auto")
    return()
  endif()
  set(timeout 120)
  if("$ENV{TDC_TEST_TIMEOUT}" MATCHES "^[1-9][0-9]?[0-9]?[0-9]?[0-9]?[0-9]?$")
    set(timeout "$ENV{TDC_TEST_TIMEOUT}")
  endif()  # a malformed one is refused, in one line, by tdc_batch and the suites

  _tdc_selects_nothing(nothing "${arg_LISTING}" "${arg_BINARY}")
  if(nothing)
    return()
  endif()
  _tdc_listing(listing listing_error BINARY "${arg_BINARY}" BASE "${arg_LISTING}"
    LIST_TIMEOUT "${arg_LIST_TIMEOUT}" OVERRIDDEN "${arg_OVERRIDDEN}" OWN_LIBRARIES "${arg_OWN_LIBRARIES}"
    BACKEND_LIBRARIES "${arg_BACKEND_LIBRARIES}" ENVIRONMENT ${arg_ENVIRONMENT})
  if(listing_error)
    _tdc_refusing_entry("${arg_PREFIX}TdcDiscovery.${arg_PROGRAM}" "${arg_BATCH}" "${every_level}"
      "${listing_error}")
    return()
  endif()
  file(STRINGS "${listing}" lines)
  if(listing MATCHES "[.]new$")
    file(REMOVE "${listing}")  # a configuration error: never kept
  endif()
  _tdc_glob_regexes(wanted "$ENV{TDC_CHECKS}")

  # The tests (TDC_CHECKS applied) and the shared devices they touch.
  set(configuration_error FALSE)
  set(tests "")
  set(shared_devices "")
  foreach(line IN LISTS lines)
    if(line STREQUAL "# configuration error")
      set(configuration_error TRUE)
      continue()
    endif()
    string(FIND "${line}" "\t" tab)
    string(SUBSTRING "${line}" 0 ${tab} test)
    math(EXPR tab "${tab} + 1")
    string(SUBSTRING "${line}" ${tab} -1 devices)
    if(wanted AND NOT configuration_error)
      set(selected FALSE)
      foreach(regex IN LISTS wanted)
        if(test MATCHES "${regex}")
          set(selected TRUE)
        endif()
      endforeach()
      if(NOT selected)
        continue()
      endif()
    endif()
    string(MD5 test_id "${test}")
    list(APPEND tests "${test_id}")
    set(test_${test_id} "${test}")
    string(REPLACE "," ";" devices_of_${test_id} "${devices}")
    list(APPEND shared_devices ${devices_of_${test_id}})
  endforeach()
  if(NOT configuration_error)
    _tdc_devices_beyond_claim("${arg_PREFIX}" "${arg_PROGRAM}" "${arg_BATCH}" "${every_level}" "${arg_DEVICES}"
      "${tests}")
  endif()
  if(configuration_error)
    set(isolate check)
  elseif(isolate STREQUAL "auto")
    list(REMOVE_DUPLICATES shared_devices)
    list(LENGTH shared_devices device_count)
    cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
    math(EXPR wanted_cores "2 * ${device_count}")
    set(isolate suite)
    if(device_count GREATER 1 AND cores GREATER_EQUAL wanted_cores)
      set(isolate device)
    endif()
  endif()

  # Group them: key -> tests, key -> devices.
  set(keys "")
  foreach(test_id IN LISTS tests)
    set(test "${test_${test_id}}")
    set(devices "${devices_of_${test_id}}")
    tdc_level_labels(test_labels "${test}" "")
    set(level "")
    list(FIND test_labels level1 in_level1)
    if(in_level1 GREATER -1)
      set(level ".level1")
    endif()
    list(JOIN devices "+" device_set)
    if(isolate STREQUAL "check")
      set(key "${test}")
    elseif(isolate STREQUAL "device")
      set(key "${level}@${device_set}")
    else()
      set(key "${level}@")  # the device set of a suite-wide entry is all of its tests'
    endif()
    string(MD5 id "${key}")
    list(FIND keys "${id}" known)
    if(known EQUAL -1)
      list(APPEND keys "${id}")
      set(key_${id} "${key}")
      set(tests_${id} "")
      set(devices_${id} "")
    endif()
    list(APPEND tests_${id} "${test}")
    list(APPEND devices_${id} ${devices})
  endforeach()

  file(MAKE_DIRECTORY "${arg_BATCHES_DIR}")
  set(environment_flags "")
  foreach(assignment IN LISTS arg_ENVIRONMENT)
    list(APPEND environment_flags "--env=${assignment}")
  endforeach()
  foreach(id IN LISTS keys)
    set(key "${key_${id}}")
    set(devices "${devices_${id}}")
    list(REMOVE_DUPLICATES devices)
    list(LENGTH tests_${id} count)
    if(isolate STREQUAL "check")
      set(name "${arg_PREFIX}${key}")
      set(isolation check)
      if(configuration_error)
        set(labels "${every_level}")
      else()
        tdc_level_labels(labels "${key}" "${arg_LABELS}")
      endif()
    else()
      list(JOIN devices "+" device_set)
      if(device_set STREQUAL "")
        set(device_set host)
      endif()
      string(REGEX REPLACE "@.*" "" level "${key}")
      set(name "${arg_PREFIX}${arg_SHORT_NAME}${level}@${device_set}")
      set(isolation batch)
      set(labels "${arg_LABELS}")
      if(level STREQUAL ".level1")
        list(APPEND labels level1)
      endif()
    endif()
    string(REGEX REPLACE "[^A-Za-z0-9._@+-]" "_" stem "${name}")
    list(JOIN tests_${id} "\n" text)
    # Named by its content: runs at once with other TDC_CHECKS never share one.
    string(MD5 digest "${text}")
    set(list_file "${arg_BATCHES_DIR}/${stem}.${digest}.txt")
    _tdc_write_once("${list_file}" "${text}\n" "${arg_BATCHES_DIR}/.lock")
    add_test("${name}" "${arg_BATCH}" "--entry=${name}" "--tests=${list_file}" "--xml-dir=${arg_XML_DIR}"
      "--prefix=${arg_PREFIX}" "--isolation=${isolation}" ${environment_flags} -- "${arg_BINARY}")
    # Each check keeps its own timeout inside the batch (tdc_batch); this one
    # only bounds the whole entry, a crash fallback included.
    math(EXPR entry_timeout "(${count} * 2 + 1) * ${timeout} + 60")
    set_tests_properties("${name}" PROPERTIES LABELS "${labels}" TIMEOUT ${entry_timeout})
    if(devices)
      if(COMMAND tdc_resource_spec_covers)
        tdc_resource_spec_covers(${devices})
      endif()
      list(TRANSFORM devices APPEND ":${arg_PERCENT}")
      list(JOIN devices "," group)
      set_tests_properties("${name}" PROPERTIES RESOURCE_GROUPS "${group}")
    endif()
  endforeach()
endfunction()
