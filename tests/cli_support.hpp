#pragma once
// Running the real gpuvet binary in a child process with a controlled environment
// (env -i keeps the outside world out of the test).
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/paths.hpp"
#include "test_support.hpp"

namespace gpuvet::testing {

// A shell command's standard output and exit status (-1 when it did not exit normally).
struct CommandOutput {
  int status = -1;
  std::string output;
};

inline CommandOutput run_command(const std::string& command) {
  CommandOutput result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    result.output.append(buffer, n);
  const int raw = pclose(pipe);
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return result;
}

struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

inline Outcome run_gpuvet(const std::string& arguments, const std::string& environment = "") {
  TempDir dir;
  const std::string err_file = dir.path() + "/stderr";
  const std::string command = "env -i PATH=/usr/bin:/bin " + environment + " " + GPUVET_BINARY +
                              " " + arguments + " 2>" + err_file + " </dev/null";
  const CommandOutput result = run_command(command);
  Outcome run;
  run.status = result.status;
  run.out = result.output;
  run.err = paths::read_file(err_file, 1 << 20).value();
  return run;
}

inline size_t line_count(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace gpuvet::testing
