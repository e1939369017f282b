#include <stdio.h>
#include <windows.h>

#include <cerrno>

#include "core/c_file.hpp"
#include "core/win32_text.hpp"

namespace gpuvet {

std::FILE* open_for_reading(const std::string& utf8_path) {
  const std::wstring wide = win32::widen(utf8_path);
  // _wfopen fails on a directory with EACCES, which reads as a permission problem.
  const DWORD attributes = GetFileAttributesW(wide.c_str());
  if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY)) {
    errno = EISDIR;
    return nullptr;
  }
  return _wfopen(wide.c_str(), L"rb");
}

}  // namespace gpuvet
