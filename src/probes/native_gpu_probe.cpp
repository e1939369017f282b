// The native GPU probe: what the driver itself answered (NVML / the CUDA driver API, asked by
// the System in a child process), as Facts. Nothing is inferred here; absent stays absent.
#include "probes/probes.hpp"

namespace gpuvet::probes {

void probe_native_gpu(const sys::System& system, Facts& facts) {
  if (const auto driver = system.driver()) {
    facts.driver =
        DriverFacts{driver->installed, driver->version, driver->cuda_driver_version, driver->error};
  }
  if (const auto gpus = system.gpus()) {
    for (const auto& g : *gpus) {
      facts.gpus.push_back(GpuFact{g.index, g.name, g.uuid, g.pci_id, g.compute_capability,
                                   g.memory_mib, g.driver_model});
    }
  }
}

}  // namespace gpuvet::probes
