#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "platform/terminal.hpp"

namespace gpuvet::platform {

void write_stdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

bool stdout_is_terminal() {
  return isatty(fileno(stdout)) != 0;
}

bool stdin_is_terminal() {
  return isatty(fileno(stdin)) != 0;
}

bool terminal_supports_colour() {
  const char* term = std::getenv("TERM");
  return stdout_is_terminal() && !(term && std::string_view(term) == "dumb");
}

void prepare_console() {}

std::vector<std::string> utf8_arguments(int argc, char** argv) {
  return std::vector<std::string>(argv, argv + argc);
}

// POSIX locales live in the environment (LC_ALL, LC_MESSAGES, LANG), read by the caller.
std::optional<std::string> user_locale() {
  return std::nullopt;
}

std::optional<std::string> current_executable() {
  std::string path(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size());
  if (n <= 0 || static_cast<size_t>(n) >= path.size()) return std::nullopt;
  path.resize(static_cast<size_t>(n));
  return path;
}

}  // namespace gpuvet::platform
