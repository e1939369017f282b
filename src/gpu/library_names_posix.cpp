#include <cstdlib>

#include "gpu/library_names.hpp"

namespace gpuvet::gpu {

const char* nvml_library() {
  return "libnvidia-ml.so.1";
}

const char* cuda_driver_library() {
  return "libcuda.so.1";
}

// The driver's libraries are on the loader's path (ld.so.cache) wherever they work at all.
std::vector<std::string> nvml_fallback_paths() {
  return {};
}

const char* nvidia_smi_program() {
  return "nvidia-smi";
}

std::vector<std::string> nvidia_smi_fallback_paths() {
  return {};
}

char path_list_separator() {
  return ':';
}

std::string executable_search_path() {
  const char* path = std::getenv("PATH");
  return path ? path : "";
}

}  // namespace gpuvet::gpu
