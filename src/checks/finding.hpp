#pragma once
// A Finding: one root cause (an id from TAXONOMY.md), how bad it is, where in the fault tree it
// lives, and the evidence and fix that back it.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gpuvet {

enum class Severity { ok, info, warning, error };
// Fault-tree order, bottom-up: a failure in a lower layer explains the symptoms above it.
enum class Layer { hardware, driver, cuda, cudnn, python, framework, runtime };

inline constexpr Layer kAllLayers[] = {Layer::hardware, Layer::driver, Layer::cuda,
                                       Layer::cudnn,    Layer::python, Layer::framework,
                                       Layer::runtime};

std::string_view to_string(Severity severity);
std::string_view to_string(Layer layer);
std::optional<Severity> severity_from_string(std::string_view text);
std::optional<Layer> layer_from_string(std::string_view text);

struct Finding {
  std::string id;
  Severity severity = Severity::info;
  Layer layer = Layer::runtime;
  std::string title;
  std::vector<std::string> evidence;
  std::vector<std::string> fix;
  // The Python environments or toolkits (their paths) the finding is about; empty when it is
  // about the whole machine (no GPU, no driver ...). gpu_ready looks past a finding that concerns
  // other environments only.
  std::vector<std::string> affects;
  // The machine-wide failure in a lower layer (no GPU, no driver ...) that explains this one:
  // fix that first, and this may disappear with it.
  std::optional<std::string> follows_from;
  // What a repair acts on (gpuvet fix), by name: "variable", "old_entry" (a search-path entry to
  // put back), "stray" (a library file to move aside). Not part of the report.
  std::map<std::string, std::string> details;
};

nlohmann::ordered_json finding_to_json(const Finding& finding);

}  // namespace gpuvet
