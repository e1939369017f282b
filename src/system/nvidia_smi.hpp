#pragma once
// nvidia-smi as a fallback when NVML cannot be loaded by name (it finds its own libnvidia-ml),
// run with a deadline like every other driver call.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {

struct SmiAnswer {
  std::optional<std::string> driver_version;
  std::vector<GpuAnswer> gpus;
};

// Parses `nvidia-smi --query-gpu=index,name,uuid,pci.device_id,driver_version,memory.total,
// compute_cap --format=csv,noheader,nounits` output; compute_cap may be missing (older drivers).
Result<SmiAnswer> parse_smi_csv(const std::string& text);

// Runs the first nvidia-smi on PATH; an Error says why it gave nothing usable.
Result<SmiAnswer> query_nvidia_smi(std::chrono::milliseconds timeout);

}  // namespace gpuvet::sys
