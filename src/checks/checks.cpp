#include "checks/checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "core/paths.hpp"

namespace gpuvet::checks {

CheckContext::CheckContext(const Facts& facts, const kb::Kb& kb, const kb::Messages& messages)
    : facts_(facts), kb_(kb), messages_(messages) {}

Result<Finding> CheckContext::finding(std::string_view id, Severity severity,
                                      std::string_view title_key,
                                      const kb::MessageArgs& args) const {
  auto taxonomy = kb_.table("taxonomy");
  if (!taxonomy) return taxonomy.error();
  const kb::Table& t = **taxonomy;
  for (size_t row = 0; row < t.size(); ++row) {
    if (t.cell(row, "id") != id) continue;
    const auto layer = layer_from_string(t.cell(row, "layer"));
    if (!layer) {
      return make_error(fmt::format("{}:{}: unknown layer \"{}\"", t.name(), t.line_of(row),
                                    t.cell(row, "layer")));
    }
    Finding f;
    f.id = std::string(id);
    f.severity = severity;
    f.layer = *layer;
    f.title = messages_.text(title_key, args);
    return f;
  }
  return make_error(fmt::format("finding id \"{}\" is not in data/taxonomy.csv", id));
}

std::string env_python(const PythonEnvFact& env, bool windows) {
  return paths::join(env.path, windows ? "python.exe" : "bin/python3");
}

const std::vector<Check>& all_checks() {
  static const std::vector<Check> checks = {
      {"gpu_and_driver", check_gpu_and_driver},
      {"image_driver_libraries", check_image_driver_libraries},
      {"gpu_health", check_gpu_health},
      {"persistence", check_persistence},
      {"memory_pools", check_memory_pools},
      {"visible_devices", check_visible_devices},
      {"mig_devices", check_mig_devices},
      {"slurm_gres", check_slurm_gres},
      {"driver_too_old", check_driver_too_old},
      {"compute_capability", check_compute_capability},
      {"cuda_path_order", check_cuda_path_order},
      {"host_compiler", check_host_compiler},
      {"triton_compiler", check_triton_compiler},
      {"triton_libcuda", check_triton_libcuda},
      {"shadowed_copies", check_shadowed_copies},
      {"framework_builds", check_framework_builds},
      {"known_release_bugs", check_known_release_bugs},
      {"collectives", check_collectives},
      {"framework_libraries", check_framework_libraries},
      {"libdevice", check_libdevice},
      {"conflicting_packages", check_conflicting_packages},
      {"log_level", check_log_level},
      {"long_paths", check_long_paths},
      {"shm_size", check_shm_size},
  };
  return checks;
}

namespace {

// Whether the cause concerns what the consequence concerns: the whole machine, or a shared
// environment or toolkit.
bool same_concern(const Finding& cause, const Finding& consequence) {
  if (cause.affects.empty()) return true;
  return std::any_of(cause.affects.begin(), cause.affects.end(), [&](const std::string& a) {
    return std::find(consequence.affects.begin(), consequence.affects.end(), a) !=
           consequence.affects.end();
  });
}

bool is_problem(const Finding& f) {
  return f.severity == Severity::error || f.severity == Severity::warning;
}

}  // namespace

Result<bool> mark_what_follows(const kb::Kb& kb, std::vector<Finding>& findings) {
  auto tree = kb.table("fault_tree");
  if (!tree) return tree.error();
  const kb::Table& t = **tree;
  std::set<std::pair<std::string, std::string>> explains;
  for (size_t row = 0; row < t.size(); ++row)
    explains.emplace(t.cell(row, "cause"), t.cell(row, "consequence"));
  // Findings are sorted lowest layer first: the first cause that explains a finding is its root.
  for (auto& f : findings) {
    if (!is_problem(f)) continue;
    for (const auto& cause : findings) {
      if (&cause == &f || !is_problem(cause) || cause.id == f.id) continue;
      if (!explains.count({cause.id, f.id}) || !same_concern(cause, f)) continue;
      f.follows_from = cause.id;
      break;
    }
  }
  return true;
}

Result<std::vector<Finding>> run_checks(const CheckContext& context) {
  std::vector<Finding> findings;
  for (const auto& check : all_checks()) {
    if (auto ran = check.run(context, findings); !ran) {
      return make_error(fmt::format("check {}: {}", check.name, ran.error().message));
    }
  }
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.layer != b.layer) return a.layer < b.layer;
    return a.severity > b.severity;
  });
  if (auto marked = mark_what_follows(context.kb(), findings); !marked) return marked.error();
  return findings;
}

std::vector<std::string> errors_blocking(const std::vector<Finding>& findings,
                                         const std::string& env) {
  std::vector<std::string> ids;
  for (const auto& f : findings) {
    if (f.severity != Severity::error) continue;
    const bool about_env =
        f.affects.empty() || std::find(f.affects.begin(), f.affects.end(), env) != f.affects.end();
    if (about_env && std::find(ids.begin(), ids.end(), f.id) == ids.end()) ids.push_back(f.id);
  }
  return ids;
}

Summary summarize(const Facts& facts, const std::vector<Finding>& findings) {
  Summary s;
  for (const auto& f : findings) {
    if (f.severity == Severity::error) ++s.errors;
    if (f.severity == Severity::warning) ++s.warnings;
  }
  // Ready only when a GPU and a working driver are known and some environment holds a GPU build
  // that no error stops (an error about the whole machine stops every one).
  const bool usable_env = std::any_of(
      facts.python_envs.begin(), facts.python_envs.end(), [&](const PythonEnvFact& env) {
        const bool gpu_build =
            std::any_of(env.frameworks.begin(), env.frameworks.end(),
                        [](const FrameworkFact& f) { return f.gpu_build.value_or(false); });
        return gpu_build && errors_blocking(findings, env.path).empty();
      });
  s.gpu_ready =
      usable_env && !facts.gpus.empty() && facts.driver && facts.driver->installed.value_or(false);
  return s;
}

}  // namespace gpuvet::checks
