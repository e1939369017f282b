#include "probes/programs.hpp"

#include "core/paths.hpp"

namespace gpuvet::probes {

bool is_program(const sys::System& system, const std::string& path) {
  const auto info = system.file_info(path);
  return info && info->kind == sys::FileKind::regular;
}

std::optional<std::string> on_path(const sys::System& system, const Facts& facts,
                                   std::string_view name) {
  for (const auto& dir : facts.env.path) {
    const std::string program = paths::join(dir, name);
    if (is_program(system, program)) return program;
  }
  return std::nullopt;
}

std::optional<std::string> command_program(const sys::System& system, const Facts& facts,
                                           const std::string& command) {
  if (paths::is_absolute(command)) {
    return is_program(system, command) ? std::optional(command) : std::nullopt;
  }
  if (command.find_first_of("/\\ ") != std::string::npos) return std::nullopt;
  if (auto found = on_path(system, facts, command)) return found;
  if (facts.os.family == "windows") return on_path(system, facts, command + ".exe");
  return std::nullopt;
}

}  // namespace gpuvet::probes
