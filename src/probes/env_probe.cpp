// The env probe: the environment variables that steer the GPU stack, and the search paths.
#include <map>
#include <optional>
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
constexpr const char* kMachineEnvironment =
    "HKLM/SYSTEM/CurrentControlSet/Control/Session Manager/Environment";
constexpr const char* kUserEnvironment = "HKCU/Environment";

// The variables a new terminal starts with. Explorer builds a new process's environment from the
// machine's Environment key, then the user's, which wins for a name both have (Path excepted: the
// user's is appended), and expands %VAR% references in them with what it has set so far
// (Microsoft, "Environment Variables"; "User Environment Variables").
// https://learn.microsoft.com/windows/win32/procthread/environment-variables
// https://learn.microsoft.com/windows/win32/shell/user-environment-variables
// What neither key holds (SystemRoot, USERPROFILE: the profile's) comes from this process.
class NewTerminalVariables {
 public:
  explicit NewTerminalVariables(const sys::System& system)
      : system_(system),
        machine_(strings_of(kMachineEnvironment)),
        user_(strings_of(kUserEnvironment)) {}

  // The saved Path, machine's then user's, each %VAR% expanded as the new terminal would.
  std::string path() const {
    return expand(value_in(machine_, "path").value_or(""), Scope::machine) + ";" +
           expand(value_in(user_, "path").value_or(""), Scope::user);
  }

 private:
  using Values = std::map<std::string, std::string>;  // lower-case name -> text
  // The machine's values are set (and expanded) before the user's exist.
  enum class Scope { machine, user };

  Values strings_of(const std::string& key) const {
    Values out;
    if (const auto values = system_.registry_values(key)) {
      for (const auto& [name, value] : *values) {
        if (const auto* text = std::get_if<std::string>(&value)) out[text::to_lower(name)] = *text;
      }
    }
    return out;
  }

  static std::optional<std::string> value_in(const Values& values, const std::string& name) {
    const auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  }

  std::optional<std::string> variable(const std::string& name, Scope scope) const {
    const std::string lower = text::to_lower(name);
    if (scope == Scope::user && lower != "path") {
      if (auto value = value_in(user_, lower)) return value;
    }
    if (auto value = value_in(machine_, lower)) return value;
    return system_.env(name);
  }

  // %VAR% references, a few levels deep (CUDA_PATH may itself name %ProgramFiles%); an unknown
  // variable stays as written, as Windows leaves it.
  std::string expand(const std::string& value, Scope scope, int depth = 0) const {
    std::string out;
    for (size_t i = 0; i < value.size(); ++i) {
      const size_t close = value[i] == '%' ? value.find('%', i + 1) : std::string::npos;
      if (close == std::string::npos || close == i + 1) {
        out.push_back(value[i]);
        continue;
      }
      const auto found = variable(value.substr(i + 1, close - i - 1), scope);
      out += found ? (depth < 4 ? expand(*found, scope, depth + 1) : *found)
                   : value.substr(i, close - i + 1);
      i = close;
    }
    return out;
  }

  const sys::System& system_;
  Values machine_;
  Values user_;
};

void read_saved_path(const sys::System& system, EnvFacts& env) {
  const std::string saved = NewTerminalVariables(system).path();
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
