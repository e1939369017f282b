#include "checks/finding.hpp"

#include <nlohmann/json.hpp>

namespace gpuvet {

namespace {
constexpr std::string_view kSeverityNames[] = {"ok", "info", "warning", "error"};
constexpr std::string_view kLayerNames[] = {"hardware", "driver",    "cuda",   "cudnn",
                                            "python",   "framework", "runtime"};
}  // namespace

std::string_view to_string(Severity severity) {
  return kSeverityNames[static_cast<int>(severity)];
}

std::string_view to_string(Layer layer) {
  return kLayerNames[static_cast<int>(layer)];
}

std::optional<Severity> severity_from_string(std::string_view text) {
  for (int i = 0; i < 4; ++i) {
    if (kSeverityNames[i] == text) return static_cast<Severity>(i);
  }
  return std::nullopt;
}

std::optional<Layer> layer_from_string(std::string_view text) {
  for (int i = 0; i < 7; ++i) {
    if (kLayerNames[i] == text) return static_cast<Layer>(i);
  }
  return std::nullopt;
}

nlohmann::ordered_json finding_to_json(const Finding& f) {
  return {{"id", f.id},
          {"severity", to_string(f.severity)},
          {"layer", to_string(f.layer)},
          {"title", f.title},
          {"evidence", f.evidence},
          {"fix", f.fix},
          {"affects", f.affects},
          {"follows_from", f.follows_from ? nlohmann::ordered_json(*f.follows_from)
                                          : nlohmann::ordered_json(nullptr)}};
}

}  // namespace gpuvet
