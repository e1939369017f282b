// Releases with a bug their maintainers confirmed (data/known_release_bugs.csv) installed on the
// machine (a framework in a Python environment, the NVIDIA Container Toolkit): the answer is
// another release, before the bug bites.
#include <algorithm>
#include <string>
#include <vector>

#include "checks/checks.hpp"
#include "core/text.hpp"
#include "kb/known_bugs.hpp"
#include "python/metadata.hpp"

namespace gpuvet::checks {

namespace {

std::string machine_platform(const Facts& facts) {
  return facts.os.wsl ? "wsl" : facts.os.family;
}

// A column's '|'-separated names; none for an empty cell.
std::vector<std::string> names_in(const kb::Row& bug, std::string_view column) {
  const std::string& cell = bug.get(column);
  return cell.empty() ? std::vector<std::string>{} : text::split(cell, '|');
}

bool on_platform(const kb::Row& bug, const std::string& platform) {
  const auto platforms = names_in(bug, "platforms");
  if (platforms.empty()) return true;
  const auto has = [&](const std::string& p) {
    return std::find(platforms.begin(), platforms.end(), p) != platforms.end();
  };
  return has(platform) || (platform == "wsl" && has("linux"));
}

// The bug's component is this build: its family (torch, tensorflow, cupy) or its distribution
// (jaxlib), and one of the distributions that have the bug where the row names them.
bool is_component(const kb::Row& bug, const FrameworkFact& f) {
  const std::string component = python::normalize_name(bug.get("component"));
  const std::string package = python::normalize_name(f.package);
  if (component != python::normalize_name(f.name) && component != package) return false;
  const auto packages = names_in(bug, "packages");
  return packages.empty() || std::any_of(packages.begin(), packages.end(), [&](const auto& p) {
           return python::normalize_name(p) == package;
         });
}

// Where the release was found: a Python environment's distribution, or a program of the host.
struct Installed {
  std::string version;
  std::string evidence_key;  // known_bug.evidence.installed, known_bug.evidence.program
  kb::MessageArgs args;      // the key's arguments
  std::vector<std::string> affects;
};

Result<Finding> known_bug_finding(const CheckContext& context, const kb::Row& bug,
                                  const Installed& installed) {
  const std::string& signature = bug.get("signature");
  auto cause = kb::known_bug_cause(context.kb(), bug);
  if (!cause) return cause.error();
  kb::MessageArgs args = {{"package", bug.get("name")},
                          {"version", installed.version},
                          {"affected", kb::affected_releases(bug, context.messages())},
                          {"fixed_in", bug.get("fixed_in")},
                          {"last_good", bug.get("last_good")}};
  args.insert(args.end(), installed.args.begin(), installed.args.end());
  auto finding =
      context.finding(*cause, bug.get("check") == "warning" ? Severity::warning : Severity::info,
                      "known_bug.title", args);
  if (!finding) return finding.error();
  finding->evidence.push_back(context.text(installed.evidence_key, args));
  const std::string what = "explain.bug." + signature;
  if (context.messages().has(what)) finding->evidence.push_back(context.text(what));
  std::vector<std::string> absent;
  for (const char* name : {"fixed_in", "last_good"}) {
    if (bug.get(name).empty()) absent.push_back(name);
  }
  const std::string fix = "explain.fix." + *cause;
  finding->fix.push_back(context.messages().text_without(
      bug.get("fixed_in").empty() ? fix + ".without_fixed_in" : fix, args, absent));
  finding->affects = installed.affects;
  finding->details = {{"signature", signature}, {"version", installed.version}};
  return finding;
}

// The releases of the bug's component on this machine: its builds in each Python environment, or
// the container toolkit's tools.
std::vector<Installed> installed_releases(const Facts& facts, const kb::Row& bug) {
  std::vector<Installed> out;
  if (bug.get("component") == "nvidia-container-toolkit") {
    if (facts.container_toolkit && facts.container_toolkit->version) {
      const auto& toolkit = *facts.container_toolkit;
      out.push_back(
          {*toolkit.version, "known_bug.evidence.program", {{"program", toolkit.program}}, {}});
    }
    return out;
  }
  for (const auto& env : facts.python_envs) {
    for (const auto& f : env.frameworks) {
      if (!f.version || !is_component(bug, f)) continue;
      out.push_back({*f.version,
                     "known_bug.evidence.installed",
                     {{"distribution", f.package}, {"env", env.path}},
                     {env.path}});
    }
  }
  return out;
}

// Whether the machine has a component a row may name: a framework build, the container toolkit.
bool has_components(const Facts& facts) {
  return (facts.container_toolkit && facts.container_toolkit->version) ||
         std::any_of(facts.python_envs.begin(), facts.python_envs.end(),
                     [](const PythonEnvFact& env) { return !env.frameworks.empty(); });
}

}  // namespace

Result<bool> check_known_release_bugs(const CheckContext& context, std::vector<Finding>& findings) {
  if (!has_components(context.facts())) return true;
  auto bugs = kb::known_release_bugs(context.kb());
  if (!bugs) return bugs.error();
  const std::string platform = machine_platform(context.facts());
  for (const auto& bug : *bugs) {
    if (bug.get("check").empty() || !on_platform(bug, platform)) continue;
    for (const auto& installed : installed_releases(context.facts(), bug)) {
      if (kb::bug_release(bug, installed.version) != kb::BugRelease::affected) continue;
      auto finding = known_bug_finding(context, bug, installed);
      if (!finding) return finding.error();
      findings.push_back(std::move(*finding));
    }
  }
  return true;
}

}  // namespace gpuvet::checks
