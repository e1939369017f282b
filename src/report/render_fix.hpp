#pragma once
// `gpuvet fix` (dry run): gpuvet.fix/1 JSON (CONTRACTS.md) and text in the catalog's language.
#include <string>

#include "fix/fix.hpp"
#include "kb/messages.hpp"

namespace gpuvet::report {

std::string render_fix_json(const fix::FixPlan& plan);
std::string render_fix_text(const fix::FixPlan& plan, const kb::Messages& messages, bool color);

}  // namespace gpuvet::report
