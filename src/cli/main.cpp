#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "platform/terminal.hpp"

int main(int argc, char** argv) {
  // The last line of defence: whatever escapes becomes one line and exit status 2, never a
  // stack trace or an abort.
  try {
    std::vector<std::string> arguments = gpuvet::platform::utf8_arguments(argc, argv);
    if (!arguments.empty()) arguments.erase(arguments.begin());  // the program's own name
    return gpuvet::cli::run(std::move(arguments));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuvet: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "gpuvet: internal error\n");
  }
  return gpuvet::cli::kExitUsage;
}
