#pragma once
// Probes: one per fact family, each reading the machine only through the System door.
// Adding a probe means adding its file and one line in probes.cpp.
#include <string_view>
#include <vector>

#include "facts/facts.hpp"
#include "system/system.hpp"

namespace gpuvet::probes {

struct Probe {
  std::string_view name;
  void (*run)(const sys::System& system, Facts& facts);
};

// In dependency order: a probe may read what an earlier one put into Facts.
const std::vector<Probe>& all_probes();
Facts collect_facts(const sys::System& system);

void probe_os(const sys::System& system, Facts& facts);
void probe_env(const sys::System& system, Facts& facts);
void probe_native_gpu(const sys::System& system, Facts& facts);

// Parses /etc/os-release style KEY=VALUE lines (shell quoting, comments).
std::vector<std::pair<std::string, std::string>> parse_os_release(std::string_view text);

}  // namespace gpuvet::probes
