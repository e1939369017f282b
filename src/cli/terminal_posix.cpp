#include <unistd.h>

#include <cstdio>

#include "cli/terminal.hpp"

namespace gpuvet::cli {

bool stdout_is_terminal() {
  return isatty(fileno(stdout)) != 0;
}

void prepare_console() {}

}  // namespace gpuvet::cli
