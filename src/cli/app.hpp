#pragma once
// The command line: the verb table (verb.hpp) under one CLI11 app, exit statuses (CONTRACTS.md).
#include <string>
#include <vector>

namespace gpuvet::cli {

// Runs gpuvet with these arguments (without the program name) and returns the exit status.
int run(std::vector<std::string> args);

}  // namespace gpuvet::cli
