#pragma once
// The command line before CLI11 reads it: global options moved after the verb, the default verb
// put in, and the nearest name to a typo. Pure functions of the argument list.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/messages.hpp"

namespace gpuvet::cli {

// Options every verb that prints takes: given before the verb (`gpuvet --lang zh plan torch`),
// they are moved to the end of its arguments (before a `--`), where the verb's own parser, and
// a sub-verb's (fleet report), reads them. Stops at the first argument that is not one.
std::vector<std::string> hoist_global_options(std::vector<std::string> args);

// Takes --redact-user out wherever it is (not as the value of --text, not after `--`).
bool take_redact_user(std::vector<std::string>& args);

// `gpuvet`, `gpuvet --json` and `gpuvet --snapshot F` mean `gpuvet check ...`.
std::vector<std::string> with_default_verb(std::vector<std::string> args);

// The language of the messages printed before the verb runs (help, usage errors): --lang given
// anywhere, else the locale.
kb::Lang lang_of_arguments(const std::vector<std::string>& args, kb::Lang from_environment);

// The candidate a mistyped `typed` most likely meant: within two edits (insert, delete, replace,
// swap of neighbours), or a unique candidate it begins; nullopt when none is near.
std::optional<std::string> nearest_name(std::string_view typed,
                                        const std::vector<std::string>& candidates);

}  // namespace gpuvet::cli
