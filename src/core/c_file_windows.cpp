#include <stdio.h>

#include "core/c_file.hpp"
#include "system/win32_text.hpp"

namespace gpuvet {

std::FILE* open_for_reading(const std::string& utf8_path) {
  return _wfopen(win32::widen(utf8_path).c_str(), L"rb");
}

}  // namespace gpuvet
