#pragma once
// What glibc's dynamic loader takes from the machine it runs on, beyond the search path itself:
// the ELF class and machine it accepts, the values of $LIB and $PLATFORM, its built-in default
// directories and the glibc-hwcaps subdirectories it tries first in every directory.
// These are compiled into ld.so or depend on the CPU, so they are read off what the System shows
// (host architecture, library directory layout, the CPU features CPUID reports); the oracle tests
// compare them with what `ld.so --help` prints.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "system/system.hpp"

namespace gpuvet::resolve {

struct Platform {
  std::string arch;            // "x86_64", "aarch64", "i386"
  std::optional<int> bits;     // ELF class the loading process accepts: 32 or 64
  std::optional<int> machine;  // e_machine it accepts: 62 x86-64, 183 AArch64, 3 i386
  std::string lib;             // $LIB
  std::string platform;        // $PLATFORM
  std::vector<std::string> default_dirs;
  // glibc-hwcaps subdirectory names, best first ("x86-64-v4", ...), tried in every directory.
  std::vector<std::string> hwcaps;
  // True when the hwcaps list was assumed (neither CPUID nor /proc/cpuinfo to read), not measured.
  bool hwcaps_assumed = false;
  // Where the CPU features came from: "cpuid" (recorded by the System), "cpuinfo" (a snapshot
  // older than that record) or "assumed"; empty where hwcaps do not apply.
  std::string hwcaps_source;
};

// The architecture named by an ELF e_machine (62 -> "x86_64"), or nullopt for one not modelled.
std::optional<std::string> arch_of_machine(int machine);

// The platform of an architecture on the System's library layout. arch empty: the host's
// (host().arch; x86_64 when the System does not say).
Platform detect_platform(const sys::System& system, const std::string& arch = "");

// x86-64 micro-architecture levels the usable CPU features reach, best first, as glibc names
// its hwcaps subdirectories ("x86-64-v4", "x86-64-v3", "x86-64-v2"). Levels follow the x86-64
// psABI; glibc checks the same features (sysdeps/x86_64/dl-hwcaps-subdirs.c).
std::vector<std::string> x86_64_levels(const sys::CpuFeatures& cpu);

// The features left after GLIBC_TUNABLES's glibc.cpu.hwcaps turned some off ("-AVX2,-AVX512F";
// glibc 2.33+ sysdeps/x86/cpu-tunables.c): the loader picks its subdirectories from what is left.
// Names glibc does not let a tunable turn off are ignored, as glibc ignores them.
sys::CpuFeatures without_tuned_off(sys::CpuFeatures cpu, std::string_view glibc_tunables);

// $PLATFORM on x86-64 as glibc sets it (sysdeps/x86/cpu-features.c, init_cpu_features, since
// glibc 2.26 and still in 2.41): "xeon_phi" or "haswell" on Intel CPUs with those features,
// otherwise AT_PLATFORM, "x86_64".
std::string x86_64_platform(const sys::CpuFeatures& cpu);

}  // namespace gpuvet::resolve
