// Framework-layer checks over the Python environments: builds that cannot use a GPU, and
// environments holding several builds of one framework or CUDA libraries of several releases.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "checks/checks.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "kb/queries.hpp"

namespace gpuvet::checks {

namespace {

bool machine_has_nvidia_gpu(const Facts& f) {
  return !f.gpus.empty() || !f.hardware.pci_gpus.empty();
}

// Debian's and Ubuntu's own packages (python3-torch ...): apt owns them, pip may not touch them.
bool distribution_managed(const FrameworkFact& f) {
  return f.location == "/usr/lib/python3/dist-packages";
}

std::string public_version(const std::optional<std::string>& version) {
  if (!version) return "";
  const size_t plus = version->find('+');
  return plus == std::string::npos ? *version : version->substr(0, plus);
}

std::string what_it_declares(const CheckContext& context, const FrameworkFact& f) {
  if (f.rocm) return context.text("framework.declares.rocm", {{"rocm", *f.rocm}});
  return context.text("framework.declares.no_cuda");
}

Result<bool> report_cpu_only(const CheckContext& context, const PythonEnvFact& env,
                             const FrameworkFact& f, std::vector<Finding>& findings) {
  const Facts& facts = context.facts();
  const bool windows = facts.os.family == "windows";
  const bool gpu = machine_has_nvidia_gpu(facts);
  const kb::MessageArgs args = {{"package", f.package},
                                {"version", f.version.value_or("?")},
                                {"env", env.path},
                                {"family", f.name},
                                {"python", env_python(env, windows)}};
  auto finding = context.finding(
      "framework.cpu_only_build", gpu ? Severity::warning : Severity::info,
      f.rocm ? "framework.cpu_only_build.title_rocm" : "framework.cpu_only_build.title", args);
  if (!finding) return finding.error();
  finding->evidence.push_back(
      context.text("framework.evidence.declared",
                   {{"file", paths::join(f.location, f.declared_by.value_or("?"))},
                    {"declares", what_it_declares(context, f)}}));
  if (f.declared_by == "package name" || f.declared_by == "conda build string" ||
      f.declared_by == "package version") {
    finding->evidence.back() = context.text(
        "framework.evidence.by_name",
        {{"package", f.package}, {"version", f.version.value_or("?")}, {"how", *f.declared_by}});
  }
  if (!gpu) finding->evidence.push_back(context.text("framework.evidence.no_gpu"));
  // A family's Windows advice, where the catalog has one, wins over its general advice.
  std::string fix_key = distribution_managed(f)
                            ? std::string("framework.cpu_only_build.fix.distribution")
                            : fmt::format("framework.cpu_only_build.fix.{}", f.name);
  if (windows && context.messages().has(fix_key + ".windows")) fix_key += ".windows";
  if (context.messages().has(fix_key)) finding->fix.push_back(context.text(fix_key, args));
  finding->fix.push_back(context.text("framework.fix.plan", args));
  finding->affects.push_back(env.path);
  findings.push_back(std::move(*finding));
  return true;
}

// tensorflow + tensorflow-intel at one version is how TensorFlow installs on native Windows
// (tensorflow/python/platform/self_check.py: `tensorflow` requires `tensorflow-intel`).
bool windows_meta_pair(const std::vector<const FrameworkFact*>& builds) {
  if (builds.size() != 2) return false;
  const frameworks::Framework* framework = frameworks::of(*builds[0]);
  return framework &&
         frameworks::windows_companion_pair(*framework, builds[0]->package, builds[1]->package) &&
         public_version(builds[0]->version) == public_version(builds[1]->version);
}

Result<bool> report_builds(const CheckContext& context, const PythonEnvFact& env,
                           const std::vector<const FrameworkFact*>& builds,
                           std::vector<Finding>& findings) {
  const bool windows = context.facts().os.family == "windows";
  std::set<std::string> versions;
  std::vector<std::string> packages;
  for (const auto* b : builds) {
    versions.insert(public_version(b->version));
    if (std::find(packages.begin(), packages.end(), b->package) == packages.end()) {
      packages.push_back(b->package);
    }
  }
  const kb::MessageArgs args = {{"family", builds.front()->name},
                                {"env", env.path},
                                {"count", std::to_string(builds.size())},
                                {"packages", text::join(packages, " ")},
                                {"python", env_python(env, windows)}};
  // Different versions of one framework overwrite each other's files: the import is a mix.
  auto finding = context.finding("framework.conflicting_packages",
                                 versions.size() > 1 ? Severity::error : Severity::warning,
                                 "framework.conflicting_packages.title", args);
  if (!finding) return finding.error();
  for (const auto* b : builds) {
    finding->evidence.push_back(
        context.text("framework.evidence.build", {{"package", b->package},
                                                  {"version", b->version.value_or("?")},
                                                  {"installer", b->installer},
                                                  {"location", b->location}}));
  }
  finding->fix.push_back(context.text("framework.conflicting_packages.fix.uninstall", args));
  finding->fix.push_back(context.text("framework.fix.plan", args));
  finding->affects.push_back(env.path);
  findings.push_back(std::move(*finding));
  return true;
}

// A conda record of a framework next to a pip distribution of another version: pip replaced
// conda's files (or the reverse) and conda no longer knows what is installed.
Result<bool> report_conda_pip(const CheckContext& context, const PythonEnvFact& env,
                              std::vector<Finding>& findings) {
  auto table = context.kb().table("python_packages");
  if (!table) return table.error();
  const kb::Table& t = **table;
  for (const auto& record : env.conda_packages) {
    std::string family;
    for (size_t row = 0; row < t.size(); ++row) {
      if (t.cell(row, "ecosystem") == "conda" && t.cell(row, "package") == record.name &&
          t.cell(row, "role") == "build") {
        family = t.cell(row, "family");
      }
    }
    if (family.empty()) continue;
    for (const auto& f : env.frameworks) {
      if (f.name != family || f.installer != "pip") continue;
      if (version::compare(public_version(f.version), record.version) == 0) continue;
      const kb::MessageArgs args = {
          {"family", family},     {"env", env.path},
          {"conda", record.name}, {"conda_version", record.version},
          {"pip", f.package},     {"pip_version", f.version.value_or("?")}};
      auto finding = context.finding("framework.conflicting_packages", Severity::error,
                                     "framework.conflicting_packages.title_conda", args);
      if (!finding) return finding.error();
      finding->evidence.push_back(context.text("framework.evidence.conda_record", args));
      finding->evidence.push_back(
          context.text("framework.evidence.build", {{"package", f.package},
                                                    {"version", f.version.value_or("?")},
                                                    {"installer", f.installer},
                                                    {"location", f.location}}));
      finding->fix.push_back(context.text("framework.conflicting_packages.fix.conda", args));
      finding->affects.push_back(env.path);
      findings.push_back(std::move(*finding));
    }
  }
  return true;
}

// NVIDIA wheels of several CUDA releases in one environment: two runtimes, or a stale set left by
// an earlier framework build (cuDNN/NCCL of -cu12 and -cu13 even share one directory).
Result<bool> report_wheel_majors(const CheckContext& context, const PythonEnvFact& env,
                                 std::vector<Finding>& findings) {
  std::map<std::string, std::vector<const NvidiaWheelFact*>> by_major;
  for (const auto& w : env.nvidia_wheels)
    by_major[w.cuda_major].push_back(&w);
  if (by_major.size() < 2) return true;
  // The release the environment's GPU builds were made for, when they agree on one.
  std::set<std::string> wanted;
  for (const auto& f : env.frameworks) {
    if (f.gpu_build == true && f.cuda) wanted.insert(text::split(*f.cuda, '.').front());
  }
  std::vector<std::string> majors;
  for (const auto& [major, wheels] : by_major)
    majors.push_back(major);
  const kb::MessageArgs args = {{"env", env.path}, {"majors", text::join(majors, ", ")}};
  auto finding = context.finding("framework.conflicting_packages", Severity::warning,
                                 "framework.conflicting_packages.title_wheels", args);
  if (!finding) return finding.error();
  std::vector<std::string> stale;
  for (const auto& [major, wheels] : by_major) {
    std::vector<std::string> names;
    for (const auto* w : wheels) {
      names.push_back(w->package + "==" + w->version);
      if (wanted.size() == 1 && !wanted.count(major)) stale.push_back(w->package);
    }
    finding->evidence.push_back(context.text(
        "framework.evidence.wheels", {{"major", major}, {"wheels", text::join(names, " ")}}));
  }
  if (wanted.size() == 1) {
    finding->evidence.push_back(
        context.text("framework.evidence.wanted_major", {{"major", *wanted.begin()}}));
  }
  if (!stale.empty()) {
    const bool windows = context.facts().os.family == "windows";
    finding->fix.push_back(
        context.text("framework.conflicting_packages.fix.stale",
                     {{"python", env_python(env, windows)}, {"packages", text::join(stale, " ")}}));
  } else {
    finding->fix.push_back(context.text("framework.conflicting_packages.fix.wheels", args));
  }
  finding->affects.push_back(env.path);
  findings.push_back(std::move(*finding));
  return true;
}

}  // namespace

// The last version with GPU support on this platform (data/framework_platform_limits.csv), when
// the installed one is newer: TensorFlow after 2.10 on native Windows.
Result<std::optional<kb::Row>> platform_limit(const CheckContext& context, const FrameworkFact& f) {
  if (!f.version) return std::optional<kb::Row>();
  return kb::past_platform_gpu_limit(context.kb(), f.name, context.facts().os.family,
                                     public_version(f.version));
}

Result<bool> check_framework_builds(const CheckContext& context, std::vector<Finding>& findings) {
  for (const auto& env : context.facts().python_envs) {
    std::set<std::string> limited;  // tensorflow + tensorflow-intel are one install
    for (const auto& f : env.frameworks) {
      auto limit = platform_limit(context, f);
      if (!limit) return limit.error();
      if (*limit) {
        if (!limited.insert(f.name).second) continue;
        const kb::MessageArgs args = {{"package", f.package},
                                      {"version", f.version.value_or("?")},
                                      {"env", env.path},
                                      {"until", (*limit)->get("gpu_until")},
                                      {"source", (*limit)->get("source")}};
        auto finding = context.finding(
            "framework.windows_native_gpu_unsupported",
            machine_has_nvidia_gpu(context.facts()) ? Severity::error : Severity::info,
            "framework.windows_native.title", args);
        if (!finding) return finding.error();
        finding->evidence.push_back(context.text("framework.windows_native.evidence", args));
        finding->fix.push_back(context.text("framework.windows_native.fix_wsl", args));
        finding->fix.push_back(context.text("framework.windows_native.fix_old", args));
        finding->affects.push_back(env.path);
        findings.push_back(std::move(*finding));
        continue;  // more specific than framework.cpu_only_build
      }
      if (f.gpu_build != false) continue;
      if (auto r = report_cpu_only(context, env, f, findings); !r) return r;
    }
  }
  return true;
}

// Frameworks whose builds for this platform have no NCCL (data/framework_collectives.csv): on a
// machine with several GPUs, multi-GPU training asks for it. Information, as one GPU runs fine.
Result<bool> check_collectives(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& facts = context.facts();
  if (facts.gpus.size() < 2 && facts.hardware.pci_gpus.size() < 2) return true;
  for (const auto& env : facts.python_envs) {
    for (const auto& f : env.frameworks) {
      if (f.gpu_build != true) continue;
      auto rows = kb::rows_where(context.kb(), "framework_collectives", "family", f.name);
      if (!rows) return rows.error();
      const auto row = std::find_if(rows->begin(), rows->end(), [&](const kb::Row& r) {
        return r.get("platform") == facts.os.family;
      });
      if (row == rows->end()) continue;
      const std::string& instead = row->get("instead");
      const kb::MessageArgs args = {{"package", f.package},
                                    {"version", f.version.value_or("?")},
                                    {"env", env.path},
                                    {"instead", instead},
                                    {"source", row->get("source")}};
      auto finding = context.finding("nccl.unavailable_on_windows", Severity::info,
                                     "nccl.unavailable_on_windows.title", args);
      if (!finding) return finding.error();
      finding->evidence.push_back(context.text("nccl.unavailable_on_windows.evidence", args));
      finding->fix.push_back(context.text(instead.empty()
                                              ? "nccl.unavailable_on_windows.fix.single"
                                              : "nccl.unavailable_on_windows.fix.backend",
                                          args));
      finding->fix.push_back(context.text("nccl.unavailable_on_windows.fix.wsl", args));
      finding->affects.push_back(env.path);
      findings.push_back(std::move(*finding));
    }
  }
  return true;
}

Result<bool> check_conflicting_packages(const CheckContext& context,
                                        std::vector<Finding>& findings) {
  for (const auto& env : context.facts().python_envs) {
    std::map<std::string, std::vector<const FrameworkFact*>> pip_builds;
    for (const auto& f : env.frameworks) {
      if (f.installer == "pip") pip_builds[f.name].push_back(&f);
    }
    for (const auto& [family, builds] : pip_builds) {
      if (builds.size() < 2 || windows_meta_pair(builds)) continue;
      if (auto r = report_builds(context, env, builds, findings); !r) return r;
    }
    if (auto r = report_conda_pip(context, env, findings); !r) return r;
    if (auto r = report_wheel_majors(context, env, findings); !r) return r;
  }
  return true;
}

}  // namespace gpuvet::checks
