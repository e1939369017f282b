#include "probes/probes.hpp"

namespace gpuvet::probes {

const std::vector<Probe>& all_probes() {
  static const std::vector<Probe> probes = {
      {"os", probe_os},
      {"env", probe_env},
      {"cuda_toolkits", probe_cuda_toolkits},
      {"cudnn", probe_cudnn},
      {"gpu_driver", probe_gpu_driver},
      {"slurm", probe_slurm},
      {"python_envs", probe_python_envs},
      {"libraries", probe_libraries},
      {"host_compiler", probe_host_compiler},
      {"container_toolkit", probe_container_toolkit},
  };
  return probes;
}

Facts collect_facts(const sys::System& system, const kb::Kb& kb) {
  Facts facts;
  for (const auto& probe : all_probes())
    probe.run(system, kb, facts);
  return facts;
}

Facts collect_facts(const sys::System& system) {
  // The embedded tables are checked by the test suite; an empty KB only makes probes that need
  // one find less.
  static const kb::Kb embedded = [] {
    auto loaded = kb::Kb::embedded();
    return loaded ? std::move(loaded).value() : kb::Kb{};
  }();
  return collect_facts(system, embedded);
}

}  // namespace gpuvet::probes
