#include "probes/probes.hpp"

namespace gpuvet::probes {

const std::vector<Probe>& all_probes() {
  static const std::vector<Probe> probes = {
      {"os", probe_os},
      {"env", probe_env},
      {"native_gpu", probe_native_gpu},
  };
  return probes;
}

Facts collect_facts(const sys::System& system) {
  Facts facts;
  for (const auto& probe : all_probes())
    probe.run(system, facts);
  return facts;
}

}  // namespace gpuvet::probes
