cmake_policy(SET CMP0057 NEW)  # if(... IN_LIST ...)
# Fails when BINARY imports a DLL outside the list every Windows 10/11 has (a MinGW runtime DLL
# such as libstdc++-6.dll or libwinpthread-1.dll would make the .exe fail to start).
execute_process(COMMAND ${OBJDUMP} -p ${BINARY} OUTPUT_VARIABLE dump RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objdump failed on ${BINARY}")
endif()
string(REGEX MATCHALL "DLL Name: [^\n]+" imports "${dump}")
set(system_dlls advapi32.dll kernel32.dll msvcrt.dll setupapi.dll shell32.dll user32.dll
    version.dll ole32.dll ntdll.dll)
foreach(line IN LISTS imports)
  string(REPLACE "DLL Name: " "" dll "${line}")
  string(TOLOWER "${dll}" dll)
  if(NOT dll IN_LIST system_dlls)
    message(FATAL_ERROR "${BINARY} imports ${dll}, which is not a system DLL")
  endif()
  message(STATUS "imports ${dll}")
endforeach()
