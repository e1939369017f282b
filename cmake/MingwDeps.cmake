# Dependencies of the MinGW-w64 cross build on Debian. Debian's -dev packages are Linux builds;
# only their headers serve, and /usr/include must never reach the cross compiler (it holds
# glibc's headers). So each header-only library's own folder is copied into the build tree.
set(_gpuvet_headers ${CMAKE_BINARY_DIR}/mingw-headers)
foreach(_dir fmt nlohmann CLI)
  if(NOT EXISTS /usr/include/${_dir})
    message(FATAL_ERROR "/usr/include/${_dir} is missing: run scripts/bootstrap.sh --windows")
  endif()
  file(COPY /usr/include/${_dir} DESTINATION ${_gpuvet_headers})
endforeach()

add_library(gpuvet_fmt_headers INTERFACE)
target_include_directories(gpuvet_fmt_headers SYSTEM INTERFACE ${_gpuvet_headers})
target_compile_definitions(gpuvet_fmt_headers INTERFACE FMT_HEADER_ONLY)
add_library(fmt::fmt-header-only ALIAS gpuvet_fmt_headers)
add_library(fmt::fmt ALIAS gpuvet_fmt_headers)

add_library(gpuvet_header_libraries INTERFACE)
target_include_directories(gpuvet_header_libraries SYSTEM INTERFACE ${_gpuvet_headers})
add_library(nlohmann_json::nlohmann_json ALIAS gpuvet_header_libraries)
add_library(CLI11::CLI11 ALIAS gpuvet_header_libraries)

# RE2 as scripts/windows-deps.sh installs it.
set(GPUVET_WINDOWS_DEPS "${CMAKE_SOURCE_DIR}/build/windows-deps" CACHE PATH
    "Where scripts/windows-deps.sh installed RE2 for Windows")
find_path(RE2_INCLUDE_DIR re2/re2.h PATHS ${GPUVET_WINDOWS_DEPS}/re2/include
          NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
find_library(RE2_LIBRARY libre2.a PATHS ${GPUVET_WINDOWS_DEPS}/re2/lib
             NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
if(NOT RE2_INCLUDE_DIR OR NOT RE2_LIBRARY)
  message(FATAL_ERROR "RE2 for Windows not found in ${GPUVET_WINDOWS_DEPS}: "
                      "run scripts/windows-deps.sh ${GPUVET_WINDOWS_DEPS}")
endif()
