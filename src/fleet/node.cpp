// A node of the fleet: a diagnosed snapshot reduced to its row and to the facts that should agree
// across nodes.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/text.hpp"
#include "fleet/fleet.hpp"

namespace gpuvet::fleet {

namespace {

constexpr const char* kNone = "none";

std::string joined_or_none(std::vector<std::string> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values.empty() ? kNone : text::join(values, ", ");
}

std::string driver_value(const Facts& facts) {
  if (!facts.driver || !facts.driver->installed) return "unknown";
  if (!*facts.driver->installed) return kNone;
  return facts.driver->version.value_or("unknown");
}

// "NVIDIA H100 80GB HBM3", or "2 × NVIDIA A100-SXM4-40GB, 1 × NVIDIA A10" on a mixed node.
std::string gpu_models(const Facts& facts) {
  std::map<std::string, int> counts;
  for (const GpuFact& gpu : facts.gpus)
    ++counts[gpu.name.value_or("unknown")];
  if (counts.empty()) return kNone;
  if (counts.size() == 1) return counts.begin()->first;
  std::vector<std::string> parts;
  for (const auto& [name, count] : counts)
    parts.push_back(fmt::format("{} × {}", count, name));
  return text::join(parts, ", ");
}

// "enabled", "disabled", "mixed" over the node's GPUs, "unknown" when no GPU said.
std::string gpu_state(const Facts& facts, std::optional<bool> GpuFact::*field) {
  std::set<bool> states;
  for (const GpuFact& gpu : facts.gpus) {
    if (gpu.*field) states.insert(*(gpu.*field));
  }
  if (states.empty()) return "unknown";
  if (states.size() > 1) return "mixed";
  return *states.begin() ? "enabled" : "disabled";
}

std::string framework_text(const FrameworkFact& framework) {
  std::string out = framework.name + " " + framework.version.value_or("?");
  if (framework.gpu_build && !*framework.gpu_build) return out + " (CPU only)";
  std::vector<std::string> parts;
  if (framework.cuda) parts.push_back("CUDA " + *framework.cuda);
  if (framework.cudnn) parts.push_back("cuDNN " + *framework.cudnn);
  if (framework.rocm) parts.push_back("ROCm " + *framework.rocm);
  return parts.empty() ? out : out + " (" + text::join(parts, ", ") + ")";
}

// "Python 3.11.4: torch 2.5.1 (CUDA 12.1); jax 0.4.30 (CUDA 12)"
std::string environment_text(const PythonEnvFact& env) {
  std::vector<std::string> builds;
  for (const FrameworkFact& framework : env.frameworks)
    builds.push_back(framework_text(framework));
  std::sort(builds.begin(), builds.end());
  const std::string python = "Python " + env.python.value_or("?");
  return builds.empty() ? python : python + ": " + text::join(builds, "; ");
}

std::vector<std::string> gpu_names(const Facts& facts) {
  std::vector<std::string> names;
  for (const GpuFact& gpu : facts.gpus)
    names.push_back(gpu.name.value_or("unknown GPU"));
  return names;
}

Verdict verdict_of(const checks::Summary& summary) {
  if (summary.errors > 0) return Verdict::error;
  if (summary.warnings > 0) return Verdict::warning;
  return Verdict::ready;
}

}  // namespace

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::ready:
      return "ready";
    case Verdict::warning:
      return "warning";
    case Verdict::error:
      return "error";
    case Verdict::unreadable:
      return "unreadable";
  }
  return "unreadable";
}

NodeFacts compare_facts(const Facts& facts) {
  NodeFacts out;
  std::string os = facts.os.name.value_or(facts.os.family);
  // A distribution's pretty name carries its version already ("Ubuntu 22.04.4 LTS").
  if (facts.os.version && os.find(*facts.os.version) == std::string::npos)
    os += " " + *facts.os.version;
  out.emplace_back("os", os);
  out.emplace_back("os.kernel", facts.os.kernel.value_or("unknown"));
  out.emplace_back("driver.version", driver_value(facts));
  out.emplace_back("gpu.model", gpu_models(facts));
  out.emplace_back("gpu.count", std::to_string(facts.gpus.size()));
  out.emplace_back("gpu.persistence_mode", gpu_state(facts, &GpuFact::persistence_mode));
  out.emplace_back("gpu.ecc", gpu_state(facts, &GpuFact::ecc));
  std::vector<std::string> toolkits;
  for (const CudaToolkitFact& toolkit : facts.cuda_toolkits)
    toolkits.push_back(toolkit.version.value_or("unknown"));
  out.emplace_back("cuda.toolkits", joined_or_none(toolkits));
  std::vector<std::string> cudnn;
  for (const CudnnFact& copy : facts.cudnn)
    cudnn.push_back(copy.version.value_or("unknown"));
  out.emplace_back("cudnn.versions", joined_or_none(cudnn));
  const auto visible = facts.env.variables.find("CUDA_VISIBLE_DEVICES");
  out.emplace_back("env.CUDA_VISIBLE_DEVICES",
                   visible == facts.env.variables.end() ? "unset" : visible->second);
  // Per environment path: two nodes set up alike have the same environments in the same places.
  std::vector<std::pair<std::string, std::string>> envs;
  for (const PythonEnvFact& env : facts.python_envs) {
    if (env.frameworks.empty()) continue;
    envs.emplace_back("framework " + env.path, environment_text(env));
  }
  std::sort(envs.begin(), envs.end());
  out.insert(out.end(), envs.begin(), envs.end());
  return out;
}

Node node_of(const pipeline::Report& diagnosed, std::string host, std::string source) {
  Node node;
  node.host = std::move(host);
  node.source = std::move(source);
  node.verdict = verdict_of(diagnosed.summary);
  node.errors = diagnosed.summary.errors;
  node.warnings = diagnosed.summary.warnings;
  for (const Finding& finding : diagnosed.findings) {
    if (finding.severity != Severity::error) continue;
    node.first_error = finding.id;
    node.first_error_title = finding.title;
    break;
  }
  const Facts& facts = diagnosed.facts;
  node.gpus = gpu_names(facts);
  if (facts.driver && facts.driver->version) node.driver = facts.driver->version;
  for (const CudaToolkitFact& toolkit : facts.cuda_toolkits)
    node.toolkits.push_back(toolkit.version.value_or("unknown"));
  for (const CudnnFact& copy : facts.cudnn)
    node.cudnn.push_back(copy.version.value_or("unknown"));
  for (const PythonEnvFact& env : facts.python_envs) {
    for (const FrameworkFact& framework : env.frameworks)
      node.frameworks.push_back(framework_text(framework));
  }
  node.facts = compare_facts(facts);
  return node;
}

Node unreadable_node(std::string host, std::string source, std::string why, bool collected) {
  Node node;
  node.host = std::move(host);
  node.source = std::move(source);
  node.verdict = Verdict::unreadable;
  node.first_error = std::move(why);
  node.collected = collected;
  return node;
}

std::string file_safe_host(std::string_view host) {
  std::string out;
  for (const char c : host) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_';
    out += safe ? c : '_';
  }
  // Not "", ".", ".." or a hidden file.
  if (out.empty() || out.front() == '.') out.insert(out.begin(), '_');
  return out.substr(0, 200);
}

}  // namespace gpuvet::fleet
