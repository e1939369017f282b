#include "core/c_file.hpp"

namespace gpuvet {

// POSIX file names are bytes: the UTF-8 string is the name.
std::FILE* open_for_reading(const std::string& utf8_path) {
  return std::fopen(utf8_path.c_str(), "rb");
}

}  // namespace gpuvet
