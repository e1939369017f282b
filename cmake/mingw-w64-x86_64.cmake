# Cross toolchain: Debian 12's MinGW-w64 (GCC 12, posix thread model) -> 64-bit Windows. Tests run
# under Wine. See ../shared/guides/windows-testing.md for why each line is here.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(_mingw x86_64-w64-mingw32)

# The -posix compilers by name: the default alternative uses the win32 thread model, which has no
# std::thread or std::mutex in GCC 12.
set(CMAKE_C_COMPILER /usr/bin/${_mingw}-gcc-posix)
set(CMAKE_CXX_COMPILER /usr/bin/${_mingw}-g++-posix)
set(CMAKE_RC_COMPILER /usr/bin/${_mingw}-windres)

set(CMAKE_FIND_ROOT_PATH /usr/${_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# One .exe that imports only system DLLs: libgcc, libstdc++ and winpthread linked in.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static")

# Test binaries (add_test, gtest_discover_tests) run under Wine's 64-bit loader; Debian 12 has no
# /usr/bin/wine64.
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(WINE_LOADER NAMES wine64 wine PATHS /usr/lib/wine NO_DEFAULT_PATH)
  if(NOT WINE_LOADER)
    find_program(WINE_LOADER NAMES wine64 wine)
  endif()
  if(WINE_LOADER)
    set(CMAKE_CROSSCOMPILING_EMULATOR "${WINE_LOADER}")
  endif()
endif()
