// The env probe: the environment variables that steer the GPU stack, and the search paths.
#include "core/text.hpp"
#include "probes/probes.hpp"
#include "system/redact.hpp"

namespace gpuvet::probes {

namespace {
std::vector<std::string> split_search_path(const std::string& value, char separator) {
  if (value.empty()) return {};
  return text::split(value, separator);
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
  if (!windows) {
    if (const auto ld = system.env("LD_LIBRARY_PATH")) {
      facts.env.ld_library_path = split_search_path(redact::scrub_value(*ld), separator);
    }
  }
}

}  // namespace gpuvet::probes
