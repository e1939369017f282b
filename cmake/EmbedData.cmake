# Embeds every file under data/ into the binary as a byte array, so that the knowledge base and
# the message catalogs travel inside the one executable.
function(gpuvet_embed_data data_dir output)
  file(GLOB_RECURSE data_files CONFIGURE_DEPENDS RELATIVE ${data_dir} ${data_dir}/*)
  list(SORT data_files)
  set(absolute_files "")
  foreach(f IN LISTS data_files)
    list(APPEND absolute_files ${data_dir}/${f})
  endforeach()
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DDATA_DIR=${data_dir} -DOUTPUT=${output}
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedDataScript.cmake
    DEPENDS ${absolute_files} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedDataScript.cmake
    COMMENT "Embedding data/ into the binary"
    VERBATIM)
endfunction()
