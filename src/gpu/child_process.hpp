#pragma once
// Runs a command in a child process with a deadline, capturing its standard output. The child
// may crash or hang; the parent always comes back (child_process_<platform>.cpp).
#include <chrono>
#include <string>
#include <vector>

namespace gpuvet::gpu {

struct ChildOutcome {
  enum class Kind { exited, signalled, timed_out, failed_to_start };
  Kind kind = Kind::failed_to_start;
  int exit_code = 0;
  int signal = 0;
  std::string output;  // standard output, at most max_output bytes
  std::string detail;  // why it failed to start, or the signal's name
};

ChildOutcome run_child(const std::string& executable, const std::vector<std::string>& arguments,
                       std::chrono::milliseconds timeout, size_t max_output = size_t{1} << 20);

}  // namespace gpuvet::gpu
