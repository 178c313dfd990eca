# cmake -DSOURCE=<tree> -DOUT=<file> -P TdcSourceState.cmake
# Writes OUT: {"commit", "dirty", "dirty_files"} of the git tree SOURCE, the
# shape ci/tdc/context.py records as context.json's "git" (an installed TDC
# has no tree to ask). No git, or not a git tree: commit and dirty are null,
# which ci/verify refuses as "state unknown". OUT is rewritten only when it
# changes, so an unchanged tree does not reinstall it.
set(commit "null")
set(dirty "null")
set(files "[]")
find_program(_git git)
if(_git)
  execute_process(COMMAND "${_git}" -C "${SOURCE}" rev-parse HEAD
    RESULT_VARIABLE head_status OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND "${_git}" -C "${SOURCE}" status --porcelain --untracked-files=normal
    RESULT_VARIABLE status_status OUTPUT_VARIABLE status ERROR_QUIET)
  if(head_status EQUAL 0 AND status_status EQUAL 0)
    set(commit "\"${head}\"")
    string(REGEX REPLACE "\n$" "" status "${status}")
    if(status STREQUAL "")
      set(dirty "false")
    else()
      set(dirty "true")
      string(REPLACE "\n" ";" lines "${status}")
      set(index 0)
      foreach(line IN LISTS lines)
        if(index LESS 50)
          string(REPLACE "\\" "\\\\" line "${line}")
          string(REPLACE "\"" "\\\"" line "${line}")
          string(JSON files SET "${files}" ${index} "\"${line}\"")
        endif()
        math(EXPR index "${index} + 1")
      endforeach()
    endif()
  endif()
endif()
set(text "{\"commit\": ${commit}, \"dirty\": ${dirty}, \"dirty_files\": ${files}}\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
