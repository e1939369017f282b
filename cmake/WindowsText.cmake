# Copies a UTF-8 text file for Windows users: CRLF line ends and a UTF-8 byte order mark, so that
# Notepad (and anything else that guesses the encoding) shows it right. The release .zip's
# README-zh.txt is README.zh-CN.md made this way.
#   cmake -DINPUT=FILE -DOUTPUT=FILE -P WindowsText.cmake
cmake_minimum_required(VERSION 3.25)

if(NOT INPUT OR NOT OUTPUT)
  message(FATAL_ERROR "WindowsText.cmake: set INPUT and OUTPUT")
endif()
file(READ "${INPUT}" content)
string(ASCII 239 187 191 bom)
string(SUBSTRING "${content}" 0 3 head)
if(head STREQUAL bom)
  string(SUBSTRING "${content}" 3 -1 content)
endif()
string(REPLACE "\r\n" "\n" content "${content}")
string(REPLACE "\n" "\r\n" content "${content}")
file(WRITE "${OUTPUT}" "${bom}${content}")
