#pragma once
// The command line: the verb table (verb.hpp) under one CLI11 app, exit statuses (CONTRACTS.md).
#include <string>
#include <vector>

#include "cli/command_model.hpp"
#include "kb/messages.hpp"

namespace gpuvet::cli {

// Runs gpuvet with these arguments (without the program name) and returns the exit status.
int run(std::vector<std::string> args);

// The whole command line as `gpuvet help` and the completions see it, footers in `messages`.
CommandModel command_line_model(const kb::Messages& messages);

}  // namespace gpuvet::cli
