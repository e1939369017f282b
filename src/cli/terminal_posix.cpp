#include <unistd.h>

#include <cstdio>

#include "cli/terminal.hpp"

namespace gpuvet::cli {

bool stdout_is_terminal() {
  return isatty(fileno(stdout)) != 0;
}

void prepare_console() {}

std::optional<std::string> current_executable() {
  std::string path(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size());
  if (n <= 0 || static_cast<size_t>(n) >= path.size()) return std::nullopt;
  path.resize(static_cast<size_t>(n));
  return path;
}

}  // namespace gpuvet::cli
