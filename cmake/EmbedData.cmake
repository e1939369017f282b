# Embeds every file under data/ into the binary as a byte array, so that the knowledge base and
# the message catalogs travel inside the one executable. EXTRA NAME PATH ... adds files kept
# elsewhere under a name of their own (the explain corpus lives with its tests).
function(gpuvet_embed_data data_dir output)
  cmake_parse_arguments(ARG "" "" "EXTRA" ${ARGN})
  file(GLOB_RECURSE data_files CONFIGURE_DEPENDS RELATIVE ${data_dir} ${data_dir}/*)
  list(SORT data_files)
  set(absolute_files "")
  foreach(f IN LISTS data_files)
    list(APPEND absolute_files ${data_dir}/${f})
  endforeach()
  set(extra "")
  set(extra_paths "")
  list(LENGTH ARG_EXTRA extra_length)
  if(extra_length GREATER 0)
    math(EXPR last "${extra_length} - 1")
    foreach(i RANGE 0 ${last} 2)
      math(EXPR j "${i} + 1")
      list(GET ARG_EXTRA ${i} name)
      list(GET ARG_EXTRA ${j} path)
      list(APPEND extra "${name}=${path}")
      list(APPEND extra_paths ${path})
    endforeach()
  endif()
  string(REPLACE ";" "|" extra_arg "${extra}")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DDATA_DIR=${data_dir} -DOUTPUT=${output} "-DEXTRA=${extra_arg}"
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedDataScript.cmake
    DEPENDS ${absolute_files} ${extra_paths} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedDataScript.cmake
    COMMENT "Embedding data/ into the binary"
    VERBATIM)
endfunction()
