# CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS): runs once per generator, after CPack has
# installed the files into its staging folder and before it packs them. For the .deb only, two
# Debian conventions the plain `cmake --install` layout does not follow (the .tar.gz and the
# Python wheel keep that layout):
# - the man page is compressed with gzip -9n (Debian policy 12.1);
# - the zsh completion goes to /usr/share/zsh/vendor-completions, the folder Debian's zsh has
#   on its fpath for packages (its site-functions folder is /usr/local/share/zsh/site-functions).
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()
set(share "${CPACK_TEMPORARY_INSTALL_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}/${CPACK_GPUVET_DATADIR}")
set(page "${CPACK_TEMPORARY_INSTALL_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}/${CPACK_GPUVET_MANDIR}/man1/gpuvet.1")
if(NOT EXISTS "${page}")
  message(FATAL_ERROR "DebPreBuild.cmake: no man page at ${page}")
endif()
find_program(GZIP_PROGRAM gzip REQUIRED)
execute_process(COMMAND "${GZIP_PROGRAM}" -9nf "${page}" RESULT_VARIABLE status)
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "DebPreBuild.cmake: gzip -9n ${page} failed: ${status}")
endif()

set(zsh_completion "${share}/zsh/site-functions/_gpuvet")
if(NOT EXISTS "${zsh_completion}")
  message(FATAL_ERROR "DebPreBuild.cmake: no zsh completion at ${zsh_completion}")
endif()
file(MAKE_DIRECTORY "${share}/zsh/vendor-completions")
file(CHMOD "${share}/zsh/vendor-completions" PERMISSIONS
  OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
file(RENAME "${zsh_completion}" "${share}/zsh/vendor-completions/_gpuvet")
file(GLOB left "${share}/zsh/site-functions/*")
if(NOT left)
  file(REMOVE_RECURSE "${share}/zsh/site-functions")
endif()
