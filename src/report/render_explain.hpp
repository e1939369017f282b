#pragma once
// `gpuvet explain`: gpuvet.explain/1 JSON (CONTRACTS.md) and text in the catalog's language.
#include <string>
#include <vector>

#include "explain/explain.hpp"
#include "kb/messages.hpp"

namespace gpuvet::report {

std::string render_explain_json(const std::vector<explain::Cause>& causes,
                                const explain::FactsUse& facts = {});
std::string render_explain_text(const std::vector<explain::Cause>& causes,
                                const kb::Messages& messages, bool color,
                                const explain::FactsUse& facts = {});
// For a GitHub issue: a heading per cause, its log lines in a fenced block, its fixes as a list;
// every label from the catalog.
std::string render_explain_md(const std::vector<explain::Cause>& causes,
                              const kb::Messages& messages, const explain::FactsUse& facts = {});

}  // namespace gpuvet::report
