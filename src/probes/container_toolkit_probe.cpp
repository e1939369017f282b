// The NVIDIA Container Toolkit on a Linux host (or in a WSL 2 distribution): its release as its
// own tools print it. Only `--version` runs, under the System's deadline; nothing is configured.
#include <cctype>
#include <optional>
#include <string>

#include "core/text.hpp"
#include "probes/probes.hpp"
#include "probes/programs.hpp"

namespace gpuvet::probes {

namespace {

// nvidia-ctk (1.11 and later) prints "NVIDIA Container Toolkit CLI version 1.17.8", the runtime
// "NVIDIA Container Runtime version 1.17.8" (after runc's lines in older releases).
constexpr const char* kVersionPrograms[] = {"nvidia-ctk", "nvidia-container-runtime"};
constexpr std::string_view kVersionWord = " version ";

std::optional<std::string> release_in(std::string_view output) {
  for (std::string_view line : text::split(output, '\n')) {
    line = text::trim(line);
    if (!line.starts_with("NVIDIA Container")) continue;
    const size_t at = line.find(kVersionWord);
    if (at == std::string_view::npos) continue;
    const std::string_view rest = line.substr(at + kVersionWord.size());
    const std::string_view release = rest.substr(0, rest.find_first_of(" \t"));
    if (!release.empty() && std::isdigit(static_cast<unsigned char>(release.front())))
      return std::string(release);
  }
  return std::nullopt;
}

}  // namespace

void probe_container_toolkit(const sys::System& system, const kb::Kb& /*kb*/, Facts& facts) {
  if (facts.os.family != "linux") return;
  for (const char* name : kVersionPrograms) {
    const auto program = on_path(system, facts, name);
    if (!program) continue;
    ContainerToolkitFact toolkit;
    toolkit.program = *program;
    if (const auto run = system.run_program(*program, {"--version"}); run && run->exit_code == 0)
      toolkit.version = release_in(run->output);
    facts.container_toolkit = std::move(toolkit);
    if (facts.container_toolkit->version) return;
  }
}

}  // namespace gpuvet::probes
