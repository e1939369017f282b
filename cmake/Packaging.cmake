# What `cmake --install` lays out, and the packages CPack makes of it (docs/packaging.md).
#
#   Linux and other Unix (GNUInstallDirs)        Windows (flat, packed as a .zip)
#     bin/gpuvet                                   gpuvet.exe
#     share/man/man1/gpuvet.1                      README.md
#     share/bash-completion/completions/gpuvet     README-zh.txt   (README.zh-CN.md, BOM, CRLF)
#     share/zsh/site-functions/_gpuvet             gpuvet-completion.ps1
#     share/fish/vendor_completions.d/gpuvet.fish
#     share/doc/gpuvet/README.md, README.zh-CN.md
#
# The man page and the completions are never written by hand: the build runs the gpuvet it has
# just linked (`gpuvet help --man`, `gpuvet completion SHELL`), cross builds through
# CMAKE_CROSSCOMPILING_EMULATOR (Wine), so they always match the binary they ship with.

include(GNUInstallDirs)

option(GPUVET_SHELL_FILES
  "Generate the man page and the shell completions at build time by running the built gpuvet" ON)

set(GPUVET_INSTALL_FILES_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated/install)
set(_gpuvet_run_built ${GPUVET_SHELL_FILES})
if(_gpuvet_run_built AND CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
  message(WARNING "Cross-compiling with no CMAKE_CROSSCOMPILING_EMULATOR to run gpuvet with: "
                  "the install has no man page or shell completion (Wine runs the Windows build).")
  set(_gpuvet_run_built OFF)
endif()

# A build step that runs the built gpuvet with ARGS and keeps what it prints as OUTPUT
# (cmake/CaptureOutput.cmake; BOM: start it with a UTF-8 byte order mark). In English whatever the
# build machine's locale, without colour; a Windows cross build runs it under Wine with the
# settings scripts/test-windows.sh uses, in the build's own prefix.
function(gpuvet_generate_from_binary output)
  cmake_parse_arguments(PARSE_ARGV 1 arg "BOM" "" "ARGS")
  set(environment LC_ALL=C.UTF-8 NO_COLOR=1)
  if(CMAKE_CROSSCOMPILING AND WIN32)
    set(environment --unset=DISPLAY --unset=WAYLAND_DISPLAY ${environment}
      WINEPREFIX=${CMAKE_BINARY_DIR}/wineprefix WINEARCH=win64 WINEDEBUG=-all,err+module
      "WINEDLLOVERRIDES=mscoree,mshtml=$<SEMICOLON>winemenubuilder.exe=d")
  endif()
  set(runner)
  if(CMAKE_CROSSCOMPILING)
    set(runner ${CMAKE_CROSSCOMPILING_EMULATOR})
  endif()
  get_filename_component(name "${output}" NAME)
  list(JOIN arg_ARGS " " shown)
  add_custom_command(OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -E env ${environment}
            ${CMAKE_COMMAND} -DOUTPUT=${output} -DBOM=${arg_BOM}
            -P ${PROJECT_SOURCE_DIR}/cmake/CaptureOutput.cmake
            -- ${runner} $<TARGET_FILE:gpuvet> ${arg_ARGS}
    DEPENDS gpuvet ${PROJECT_SOURCE_DIR}/cmake/CaptureOutput.cmake
    COMMENT "Generating ${name} (gpuvet ${shown})"
    VERBATIM)
endfunction()

set(_gpuvet_install_files)
set(_gpuvet_zh_readme ${PROJECT_SOURCE_DIR}/README.zh-CN.md)
if(WIN32)
  if(_gpuvet_run_built)
    set(_ps1 ${GPUVET_INSTALL_FILES_DIR}/gpuvet-completion.ps1)
    gpuvet_generate_from_binary(${_ps1} BOM ARGS completion powershell)
    list(APPEND _gpuvet_install_files ${_ps1})
  endif()
  if(EXISTS ${_gpuvet_zh_readme})
    set(_zh_txt ${GPUVET_INSTALL_FILES_DIR}/README-zh.txt)
    add_custom_command(OUTPUT ${_zh_txt}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${_gpuvet_zh_readme} -DOUTPUT=${_zh_txt}
              -P ${PROJECT_SOURCE_DIR}/cmake/WindowsText.cmake
      DEPENDS ${_gpuvet_zh_readme} ${PROJECT_SOURCE_DIR}/cmake/WindowsText.cmake
      COMMENT "Generating README-zh.txt (README.zh-CN.md with a BOM and CRLF)"
      VERBATIM)
    list(APPEND _gpuvet_install_files ${_zh_txt})
  endif()

  install(TARGETS gpuvet RUNTIME DESTINATION .)
  install(FILES README.md ${_gpuvet_install_files} DESTINATION .)
else()
  if(_gpuvet_run_built)
    set(_man ${GPUVET_INSTALL_FILES_DIR}/gpuvet.1)
    set(_bash ${GPUVET_INSTALL_FILES_DIR}/gpuvet.bash)
    set(_zsh ${GPUVET_INSTALL_FILES_DIR}/_gpuvet)
    set(_fish ${GPUVET_INSTALL_FILES_DIR}/gpuvet.fish)
    gpuvet_generate_from_binary(${_man} ARGS help --man)
    gpuvet_generate_from_binary(${_bash} ARGS completion bash)
    gpuvet_generate_from_binary(${_zsh} ARGS completion zsh)
    gpuvet_generate_from_binary(${_fish} ARGS completion fish)
    list(APPEND _gpuvet_install_files ${_man} ${_bash} ${_zsh} ${_fish})
  endif()

  install(TARGETS gpuvet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(_gpuvet_run_built)
    install(FILES ${_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
    install(FILES ${_bash} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
            RENAME gpuvet)
    install(FILES ${_zsh} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
    install(FILES ${_fish} DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
  endif()
  # README.zh-CN.md only where it exists; OPTIONAL also covers it appearing after configuring.
  install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
  install(FILES ${_gpuvet_zh_readme} DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)
endif()
if(_gpuvet_install_files)
  add_custom_target(gpuvet_install_files ALL DEPENDS ${_gpuvet_install_files})
endif()

# Packages: `cpack` in the build folder. Linux: a .tar.gz of the layout above and a .deb
# (gpuvet_<version>_<arch>.deb, installed under /usr, dependencies from dpkg-shlibdeps, so the
# dpkg-dev package is needed). Windows: the .zip.
set(CPACK_PACKAGE_NAME gpuvet)
set(CPACK_PACKAGE_VENDOR gpuvet)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "checks the GPU deep-learning stack: driver, CUDA, cuDNN, Python, frameworks")
set(CPACK_PACKAGE_DESCRIPTION
  "gpuvet checks, in fault-tree order, every layer that has to line up before a deep-learning
framework can use an NVIDIA GPU: the hardware, the driver, the CUDA toolkit, cuDNN, the Python
environments and the framework builds. It reports each layer with a verdict, the evidence
(paths, versions, variables) and the exact fix, and names the one thing to fix first.

It also says which file the dynamic loader would load for a library name, turns an error log
into its ranked causes, plans which framework build, CUDA, cuDNN, Python and driver go together,
proves the GPU computes, and measures it against its peak. It is one native program: no Python,
no framework import and no driver linked at build time, so it runs on the broken machine it has
to diagnose. It speaks English and Simplified Chinese.")
set(GPUVET_PACKAGE_MAINTAINER "gpuvet maintainers <maintainers@users.noreply.a-seed-8cba46d3.example>"
  CACHE STRING "Maintainer field of the .deb")
set(CPACK_PACKAGE_CONTACT "${GPUVET_PACKAGE_MAINTAINER}")
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY OFF)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
  OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
if(WIN32)
  set(CPACK_GENERATOR ZIP)
  set(CPACK_SYSTEM_NAME windows-x86_64)
else()
  string(TOLOWER "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}" CPACK_SYSTEM_NAME)
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    set(CPACK_GENERATOR TGZ DEB)
  else()
    set(CPACK_GENERATOR TGZ)
  endif()
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(_gpuvet_run_built AND NOT WIN32)
  set(CPACK_GPUVET_MANDIR ${CMAKE_INSTALL_MANDIR})
  set(CPACK_GPUVET_DATADIR ${CMAKE_INSTALL_DATADIR})
  set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/DebPreBuild.cmake)
endif()
include(CPack)
