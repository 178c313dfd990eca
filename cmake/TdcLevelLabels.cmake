# Included by the generated test-properties scripts at ctest time: a check
# named in suites/levels.txt gets that level's label (level1), so
# `ctest -L level1` runs the readiness checks and a new check joins a level by
# one line there. Level 2 is the label conformance, level 3 adds level3.
# Read again by each suite's script: ctest may give each directory its own scope.
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../suites/levels.txt" _tdc_level_lines REGEX "^[a-z0-9]+ *[|]")
set(_tdc_level_rules "")
foreach(_tdc_line IN LISTS _tdc_level_lines)
  string(REGEX MATCH "^([a-z0-9]+) *[|] *([^ ]+)" _tdc_match "${_tdc_line}")
  set(_tdc_regex "${CMAKE_MATCH_2}")
  string(REPLACE "." "[.]" _tdc_regex "${_tdc_regex}")
  string(REPLACE "*" ".*" _tdc_regex "${_tdc_regex}")
  string(REPLACE "?" "." _tdc_regex "${_tdc_regex}")
  list(APPEND _tdc_level_rules "${CMAKE_MATCH_1}=^${_tdc_regex}$")
endforeach()

# out: labels + the level labels whose glob matches the test (without "loopback:").
function(tdc_level_labels out test labels)
  string(REGEX REPLACE "^[a-z]+:" "" check "${test}")
  foreach(rule IN LISTS _tdc_level_rules)
    string(FIND "${rule}" "=" split)
    string(SUBSTRING "${rule}" 0 ${split} level)
    math(EXPR split "${split} + 1")
    string(SUBSTRING "${rule}" ${split} -1 regex)
    # list(FIND), not IN_LIST: ctest reads this without the project's policies.
    list(FIND labels "${level}" known)
    if(check MATCHES "${regex}" AND known EQUAL -1)
      list(APPEND labels ${level})
    endif()
  endforeach()
  set(${out} "${labels}" PARENT_SCOPE)
endfunction()
