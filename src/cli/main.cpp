#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/app.hpp"

int main(int argc, char** argv) {
  // The last line of defence: whatever escapes becomes one line and exit status 2, never a
  // stack trace or an abort.
  try {
    return gpuvet::cli::run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuvet: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "gpuvet: internal error\n");
  }
  return gpuvet::cli::kExitUsage;
}
