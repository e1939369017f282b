#pragma once
// `gpuvet which`: gpuvet.which/1 JSON (CONTRACTS.md) and text in the catalog's language.
#include <string>

#include "kb/messages.hpp"
#include "resolve/which.hpp"

namespace gpuvet::report {

std::string render_which_json(const resolve::WhichReport& report);
std::string render_which_text(const resolve::WhichReport& report, const kb::Messages& messages,
                              bool color);

}  // namespace gpuvet::report
