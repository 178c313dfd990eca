# Included by the generated suite scripts at ctest time: a check named in a
# levels file (TDC's suites/levels.txt, and a vendor suite's own LEVELS file,
# same format) gets that level's label (level1), so `ctest -L level1` runs
# the readiness checks and a check joins a level by one line there. Level 2
# is the label conformance, level 3 adds level3.
# Functions only: the rules are read per suite (tdc_suite_entries), into
# the caller's scope, because a vendor's suite has levels of its own; they
# label a check by tdc_level_labels (cmake/tdc_level_labels.cmake).

# Sets _tdc_level_rules in the caller's scope: "<level>=<regex>" for every
# "<level> | <check glob>" line of the files.
macro(tdc_read_level_rules)
  set(_tdc_level_rules "")
  foreach(_tdc_levels_file ${ARGN})
    file(STRINGS "${_tdc_levels_file}" _tdc_level_lines REGEX "^[a-z0-9]+ *[|]")
    foreach(_tdc_line IN LISTS _tdc_level_lines)
      string(REGEX MATCH "^([a-z0-9]+) *[|] *([^ ]+)" _tdc_match "${_tdc_line}")
      set(_tdc_regex "${CMAKE_MATCH_2}")
      string(REPLACE "." "[.]" _tdc_regex "${_tdc_regex}")
      string(REPLACE "*" ".*" _tdc_regex "${_tdc_regex}")
      string(REPLACE "?" "." _tdc_regex "${_tdc_regex}")
      list(APPEND _tdc_level_rules "${CMAKE_MATCH_1}=^${_tdc_regex}$")
    endforeach()
  endforeach()
endmacro()
