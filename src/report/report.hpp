#pragma once
// Renderers: text, json and md views of one Report. They decide nothing: every verdict comes
// from the checks, every word from the message catalogs.
#include <string>
#include <utility>
#include <vector>

#include "checks/checks.hpp"
#include "checks/finding.hpp"
#include "facts/facts.hpp"
#include "kb/messages.hpp"
#include "pipeline/diagnose.hpp"

namespace gpuvet::report {

inline constexpr const char* kCheckSchema = "gpuvet.check/1";

using Report = pipeline::Report;

enum class Format { text, json, md };

std::string render_json(const Report& report);
std::string render_text(const Report& report, const kb::Messages& messages, bool color);
std::string render_md(const Report& report, const kb::Messages& messages);

// Shared by the renderers.
std::string describe_os(const Facts& facts, const kb::Messages& messages);
// What a layer with no facts says: what was searched for it on this platform ("no CUDA toolkit:
// looked in PATH, …"), or for the runtime how to learn more.
std::string empty_layer_text(const Facts& facts, Layer layer, const kb::Messages& messages);
// What the facts say about one layer, a line per item; empty when nothing is known. A line that
// reports an absence ("no NVIDIA driver") is not a pass.
struct FactLine {
  FactLine(std::string text_, bool present_ = true, std::string env_ = {})
      : text(std::move(text_)), present(present_), env(std::move(env_)) {}
  std::string text;
  bool present = true;
  std::string env;  // the environment a framework line is about
};
std::vector<FactLine> layer_fact_lines(const Facts& facts, Layer layer,
                                       const kb::Messages& messages);
// The findings to act on, in the order to act: the causes first (those behind an error before the
// rest, lowest layer first), then what follows from them.
// A cause and what follows from it, as "cuda.path_order → cudnn.version_mismatch".
std::string chain_of(const Finding& root, const std::vector<Finding>& findings);

std::vector<const Finding*> findings_to_fix(const std::vector<Finding>& findings);

}  // namespace gpuvet::report
