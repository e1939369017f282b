#pragma once
// Rendering of `gpuvet plan` answers (CONTRACTS.md `plan --json`).
#include <string>

#include "kb/messages.hpp"
#include "plan/plan.hpp"

namespace gpuvet::report {

std::string render_plan_json(const plan::Plan& plan, const std::string& kb_version);
std::string render_plan_text(const plan::Plan& plan, const kb::Messages& messages, bool color);
// For a GitHub issue: headings, lists, and each step's commands in fenced blocks (```sh, or on
// Windows ```bat for cmd and ```powershell), every label from the catalog.
std::string render_plan_md(const plan::Plan& plan, const kb::Messages& messages);

}  // namespace gpuvet::report
