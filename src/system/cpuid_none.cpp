// Processors without CPUID: the loader's hwcaps subdirectories are x86-64 only, so there is
// nothing to read.
#include "system/cpu_features.hpp"

namespace gpuvet::sys {

std::optional<X86Cpuid> read_x86_cpuid() {
  return std::nullopt;
}

}  // namespace gpuvet::sys
