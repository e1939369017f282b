#include <sys/stat.h>

#include <cerrno>

#include "core/c_file.hpp"

namespace gpuvet {

// POSIX file names are bytes: the UTF-8 string is the name.
std::FILE* open_for_reading(const std::string& utf8_path) {
  std::FILE* file = std::fopen(utf8_path.c_str(), "rb");
  if (!file) return nullptr;
  struct stat info {};
  if (fstat(fileno(file), &info) == 0 && S_ISDIR(info.st_mode)) {
    std::fclose(file);
    errno = EISDIR;
    return nullptr;
  }
  return file;
}

}  // namespace gpuvet
