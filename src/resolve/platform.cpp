#include "resolve/platform.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "core/text.hpp"
#include "system/cpu_features.hpp"

namespace gpuvet::resolve {

namespace {

struct ArchFacts {
  std::string_view arch;
  int bits;
  int machine;
  std::string_view triplet;  // Debian's multiarch directory name
  std::string_view lib64;    // "lib64" where the RPM-style layout puts 64-bit libraries
};

// e_machine values from the ELF gABI; triplets from Debian's multiarch tuples.
constexpr std::array<ArchFacts, 3> kArches = {{
    {"x86_64", 64, 62, "x86_64-linux-gnu", "lib64"},
    {"aarch64", 64, 183, "aarch64-linux-gnu", "lib64"},
    {"i386", 32, 3, "i386-linux-gnu", "lib"},
}};

const ArchFacts* facts_of(std::string_view arch) {
  if (arch == "amd64") arch = "x86_64";
  if (arch == "arm64") arch = "aarch64";
  if (arch == "i486" || arch == "i586" || arch == "i686") arch = "i386";
  for (const auto& facts : kArches) {
    if (facts.arch == arch) return &facts;
  }
  return nullptr;
}

bool is_real_directory(const sys::System& system, const std::string& path) {
  const auto info = system.file_info(path);
  return info && info->kind == sys::FileKind::directory && !info->link_target;
}

// Debian and Ubuntu build glibc with slibdir /lib/<triplet>: $LIB is "lib/<triplet>" and the
// trusted directories are /lib/<triplet>, /usr/lib/<triplet>, /lib, /usr/lib (ld.so --help,
// "System search path", on Debian 12 with glibc 2.36). Fedora, RHEL and SUSE use slibdir /lib64
// on 64-bit machines: $LIB is "lib64" and the trusted directories /lib64, /usr/lib64. $LIB is
// DL_DST_LIB, the last part of slibdir (glibc elf/Makefile); Debian's patch makes it
// "lib/<triplet>".
void set_layout(const sys::System& system, const ArchFacts& facts, Platform& platform) {
  const std::string triplet(facts.triplet);
  if (system.is_directory("/lib/" + triplet) || system.is_directory("/usr/lib/" + triplet)) {
    platform.lib = "lib/" + triplet;
    platform.default_dirs = {"/lib/" + triplet, "/usr/lib/" + triplet, "/lib", "/usr/lib"};
    return;
  }
  const std::string lib(facts.lib64);
  if (lib != "lib" && is_real_directory(system, "/usr/" + lib)) {
    platform.lib = lib;
    platform.default_dirs = {"/" + lib, "/usr/" + lib};
    return;
  }
  platform.lib = "lib";
  platform.default_dirs = {"/lib", "/usr/lib"};
}

bool has_all(const sys::CpuFeatures& cpu, std::initializer_list<std::string_view> wanted) {
  return std::all_of(wanted.begin(), wanted.end(), [&cpu](std::string_view f) {
    return std::binary_search(cpu.usable.begin(), cpu.usable.end(), f);
  });
}

// glibc-hwcaps subdirectories exist for x86-64 only among the modelled architectures (glibc
// 2.33+, sysdeps/x86_64/dl-hwcaps-subdirs.c), and so does a $PLATFORM other than AT_PLATFORM.
// The features come from CPUID as the System recorded it; a snapshot older than that record has
// only /proc/cpuinfo, whose flags a hypervisor may hide; without either every level is assumed
// and $PLATFORM stays AT_PLATFORM.
void set_cpu_dependent(const sys::System& system, Platform& platform) {
  if (platform.arch != "x86_64") return;
  std::optional<sys::CpuFeatures> cpu = system.host().cpu;
  platform.hwcaps_source = "cpuid";
  if (!cpu) {
    const auto cpuinfo = system.read_text("/proc/cpuinfo");
    if (cpuinfo) cpu = sys::cpu_features_from_cpuinfo(*cpuinfo);
    platform.hwcaps_source = "cpuinfo";
  }
  if (cpu) {
    if (const auto tunables = system.env("GLIBC_TUNABLES")) {
      cpu = without_tuned_off(std::move(*cpu), *tunables);
    }
    platform.hwcaps = x86_64_levels(*cpu);
    platform.platform = x86_64_platform(*cpu);
    return;
  }
  platform.hwcaps = {"x86-64-v4", "x86-64-v3", "x86-64-v2"};
  platform.hwcaps_assumed = true;
  platform.hwcaps_source = "assumed";
}

}  // namespace

std::optional<std::string> arch_of_machine(int machine) {
  for (const auto& facts : kArches) {
    if (facts.machine == machine) return std::string(facts.arch);
  }
  return std::nullopt;
}

std::vector<std::string> x86_64_levels(const sys::CpuFeatures& cpu) {
  std::vector<std::string> levels;
  // x86-64 psABI micro-architecture levels as glibc tests them (dl-hwcaps-subdirs.c), in
  // cpuinfo's spelling (pni = SSE3, abm = LZCNT).
  if (!has_all(cpu, {"cx16", "lahf_lm", "popcnt", "pni", "sse4_1", "sse4_2", "ssse3"})) {
    return levels;
  }
  levels.push_back("x86-64-v2");
  if (has_all(cpu, {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "osxsave"})) {
    levels.insert(levels.begin(), "x86-64-v3");
    if (has_all(cpu, {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"})) {
      levels.insert(levels.begin(), "x86-64-v4");
    }
  }
  return levels;
}

sys::CpuFeatures without_tuned_off(sys::CpuFeatures cpu, std::string_view glibc_tunables) {
  // The CPU features glibc's hwcaps tunable may turn off (CHECK_GLIBC_IFUNC_CPU_OFF in
  // cpu-tunables.c) that matter here, with /proc/cpuinfo's name for each; the loader oracle
  // checks each against ld.so (F16C, say, cannot be turned off).
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 21> kNames = {{
      {"AVX", "avx"},           {"AVX2", "avx2"},         {"AVX512F", "avx512f"},
      {"AVX512BW", "avx512bw"}, {"AVX512CD", "avx512cd"}, {"AVX512DQ", "avx512dq"},
      {"AVX512ER", "avx512er"}, {"AVX512PF", "avx512pf"}, {"AVX512VL", "avx512vl"},
      {"BMI1", "bmi1"},         {"BMI2", "bmi2"},         {"CMOV", "cmov"},
      {"CX8", "cx8"},           {"FMA", "fma"},           {"LZCNT", "abm"},
      {"MOVBE", "movbe"},       {"OSXSAVE", "osxsave"},   {"POPCNT", "popcnt"},
      {"SSE4_1", "sse4_1"},     {"SSE4_2", "sse4_2"},     {"SSSE3", "ssse3"},
  }};
  // GLIBC_TUNABLES=name=value:name=value; the hwcaps value is a comma-separated list.
  for (const auto& tunable : text::split(glibc_tunables, ':')) {
    constexpr std::string_view kHwcaps = "glibc.cpu.hwcaps=";
    if (!std::string_view(tunable).starts_with(kHwcaps)) continue;
    for (const auto& item : text::split(tunable.substr(kHwcaps.size()), ',')) {
      if (item.size() < 2 || item.front() != '-') continue;
      const std::string_view name = std::string_view(item).substr(1);
      for (const auto& [glibc, cpuinfo] : kNames) {
        if (glibc != name) continue;
        const auto it = std::lower_bound(cpu.usable.begin(), cpu.usable.end(), cpuinfo);
        if (it != cpu.usable.end() && *it == cpuinfo) cpu.usable.erase(it);
      }
    }
  }
  return cpu;
}

std::string x86_64_platform(const sys::CpuFeatures& cpu) {
  if (cpu.vendor != "GenuineIntel") return "x86_64";
  if (has_all(cpu, {"avx512cd", "avx512er", "avx512pf"})) return "xeon_phi";
  if (has_all(cpu, {"avx2", "fma", "bmi1", "bmi2", "abm", "movbe", "popcnt"})) return "haswell";
  return "x86_64";
}

Platform detect_platform(const sys::System& system, const std::string& arch) {
  Platform platform;
  std::string wanted = arch;
  if (wanted.empty()) wanted = system.host().arch.value_or("x86_64");
  const ArchFacts* facts = facts_of(wanted);
  if (!facts) {
    // Not modelled: no class check, the generic trusted directories, $PLATFORM = uname -m.
    platform.arch = wanted;
    platform.lib = "lib";
    platform.platform = wanted;
    platform.default_dirs = {"/lib", "/usr/lib"};
    return platform;
  }
  platform.arch = std::string(facts->arch);
  platform.bits = facts->bits;
  platform.machine = facts->machine;
  // $PLATFORM is AT_PLATFORM from the kernel ("x86_64", "aarch64", "i686") unless the CPU says
  // otherwise (x86_64_platform).
  platform.platform = platform.arch == "i386" ? "i686" : platform.arch;
  set_layout(system, *facts, platform);
  set_cpu_dependent(system, platform);
  return platform;
}

}  // namespace gpuvet::resolve
