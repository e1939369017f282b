// The env probe: the environment variables that steer the GPU stack, and the search paths.
#include <set>
#include <variant>

#include "core/text.hpp"
#include "probes/probes.hpp"
#include "resolve/windows_search.hpp"
#include "system/redact.hpp"

namespace gpuvet::probes {

namespace {
std::vector<std::string> split_search_path(const std::string& value, char separator) {
  if (value.empty()) return {};
  return text::split(value, separator);
}
// What a new process's Path is made of: the machine's Environment key, then the user's (Microsoft,
// "Environment Variables": the system variables are set first, the user's Path appended).
// https://learn.microsoft.com/windows/win32/procthread/environment-variables
void read_saved_path(const sys::System& system, EnvFacts& env) {
  const auto value_of = [&](const std::string& key) -> std::string {
    const auto values = system.registry_values(key);
    if (!values) return "";
    for (const auto& [name, value] : *values) {
      if (text::to_lower(name) != "path") continue;
      if (const auto* text = std::get_if<std::string>(&value)) return *text;
    }
    return "";
  };
  const std::string saved =
      value_of("HKLM/SYSTEM/CurrentControlSet/Control/Session Manager/Environment") + ";" +
      value_of("HKCU/Environment");
  std::set<std::string> current;
  for (const auto& entry : env.path) {
    current.insert(text::to_lower(resolve::windows_path_entry(system, entry)));
  }
  for (const auto& entry : text::split(saved, ';')) {
    if (text::trim(entry).empty()) continue;
    const std::string dir = resolve::windows_path_entry(system, entry);
    env.saved_path.push_back(dir);
    if (!current.contains(text::to_lower(dir))) env.saved_path_only.push_back(dir);
  }
}

}  // namespace

void probe_env(const sys::System& system, const kb::Kb& /*kb*/, Facts& facts) {
  const bool windows = facts.os.family == "windows";
  for (const auto& [name, value] : system.environment()) {
    // Only what may leave the machine becomes a fact, so reports never carry secrets.
    if (redact::is_kept(name)) facts.env.variables[name] = redact::scrub_value(value);
  }
  const char separator = windows ? ';' : ':';
  if (const auto path = system.env(windows ? "Path" : "PATH")) {
    facts.env.path = split_search_path(redact::scrub_value(*path), separator);
  }
  if (windows) read_saved_path(system, facts.env);
  if (!windows) {
    if (const auto ld = system.env("LD_LIBRARY_PATH")) {
      facts.env.ld_library_path = split_search_path(redact::scrub_value(*ld), separator);
    }
  }
}

}  // namespace gpuvet::probes
