# Included by the generated suite scripts at ctest time, beside
# cmake/tdc_read_level_rules.cmake (which says what a level label is).

# out: labels + the level labels whose glob matches the test (without "loopback:"),
# by the caller's _tdc_level_rules.
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
