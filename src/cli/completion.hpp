#pragma once
// Shell completion scripts, made from the command line's own declarations (command_model.hpp):
// verbs, sub-verbs, options, their values (choices, files, directories), framework names.
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_model.hpp"
#include "core/result.hpp"

namespace gpuvet::cli {

// bash, zsh, fish, powershell: the shells `gpuvet completion` writes a script for.
const std::vector<std::string>& completion_shells();

// The script for `shell`; an error for a shell not in completion_shells(). `frameworks`: what
// `plan` completes (families and their aliases).
Result<std::string> completion_script(std::string_view shell, const CommandModel& command_line,
                                      const std::vector<std::string>& frameworks);

}  // namespace gpuvet::cli
