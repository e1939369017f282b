#include "probes/probes.hpp"

namespace gpuvet::probes {

const std::vector<Probe>& all_probes() {
  static const std::vector<Probe> probes = {
      {"os", probe_os},
      {"env", probe_env},
      {"cuda_toolkits", probe_cuda_toolkits},
      {"cudnn", probe_cudnn},
      {"gpu_driver", probe_gpu_driver},
      {"libraries", probe_libraries},
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
