# Run with -DDATA_DIR=... -DOUTPUT=... [-DEXTRA=name=path|...]: writes a C++ file defining
# gpuvet::kb::embedded_files().
file(GLOB_RECURSE data_files RELATIVE ${DATA_DIR} ${DATA_DIR}/*)
list(SORT data_files)
set(sources "")
foreach(f IN LISTS data_files)
  list(APPEND sources "${f}=${DATA_DIR}/${f}")
endforeach()
if(EXTRA)
  string(REPLACE "|" ";" extra "${EXTRA}")
  list(APPEND sources ${extra})
endif()
set(arrays "")
set(entries "")
set(index 0)
foreach(source IN LISTS sources)
  string(FIND "${source}" "=" equals)
  string(SUBSTRING "${source}" 0 ${equals} f)
  math(EXPR path_start "${equals} + 1")
  string(SUBSTRING "${source}" ${path_start} -1 path)
  file(READ ${path} hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND arrays "const unsigned char file_${index}[] = {${bytes} 0x00};\n")
  string(APPEND entries "    {\"${f}\", std::string_view(reinterpret_cast<const char*>(file_${index}), ${size})},\n")
  math(EXPR index "${index} + 1")
endforeach()
file(WRITE ${OUTPUT}.tmp
"// Generated from data/ by cmake/EmbedDataScript.cmake. Do not edit.
#include \"kb/embedded.hpp\"

namespace {
${arrays}
}  // namespace

namespace gpuvet::kb {
const std::vector<EmbeddedFile>& embedded_files() {
  static const std::vector<EmbeddedFile> files = {
${entries}  };
  return files;
}
}  // namespace gpuvet::kb
")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
