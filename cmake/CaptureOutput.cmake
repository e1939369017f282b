# Runs a command and keeps its standard output as a file, for build steps that generate a file
# by running a program (the man page and completions from gpuvet itself):
#   cmake -DOUTPUT=FILE [-DBOM=ON] -P CaptureOutput.cmake -- COMMAND [ARG...]
# The file appears only when the command succeeds and printed something, so a failed step runs
# again on the next build instead of leaving an empty or partial file behind. Output and errors
# go to files, never to a pipe: programs the command leaves running (Wine's services, started by
# the first Wine process of a prefix) would otherwise hold the build tool's pipe open.
# BOM=ON starts the file with a UTF-8 byte order mark unless it has one (Windows PowerShell 5.1
# reads a .ps1 without one in the ANSI code page).
cmake_minimum_required(VERSION 3.25)

if(NOT OUTPUT)
  message(FATAL_ERROR "CaptureOutput.cmake: OUTPUT is not set")
endif()
set(command)
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_separator)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "CaptureOutput.cmake: no command after --")
endif()

set(partial "${OUTPUT}.partial")
set(log "${OUTPUT}.log")
if(CMAKE_HOST_WIN32)
  set(nothing NUL)
else()
  set(nothing /dev/null)
endif()
file(REMOVE "${OUTPUT}")
execute_process(COMMAND ${command}
  INPUT_FILE ${nothing}
  OUTPUT_FILE "${partial}"
  ERROR_FILE "${log}"
  RESULT_VARIABLE status)
file(SIZE "${partial}" size)
if(NOT status STREQUAL "0" OR size EQUAL 0)
  file(READ "${log}" errors)
  file(REMOVE "${partial}")
  list(JOIN command " " shown)
  if(status STREQUAL "0")
    set(status "0 but printed nothing")
  endif()
  message(FATAL_ERROR "${shown}\nexited ${status}; its errors:\n${errors}")
endif()

if(BOM)
  string(ASCII 239 187 191 bom)
  file(READ "${partial}" content)
  string(SUBSTRING "${content}" 0 3 head)
  if(NOT head STREQUAL bom)
    file(WRITE "${partial}" "${bom}${content}")
  endif()
endif()
file(RENAME "${partial}" "${OUTPUT}")
file(REMOVE "${log}")
