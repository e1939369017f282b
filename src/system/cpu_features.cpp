#include "system/cpu_features.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/text.hpp"

namespace gpuvet::sys {

namespace {

enum class Leaf { one_ecx, one_edx, seven_ebx, seven_ecx, ext1_ecx };

// What else must hold for user space to use a feature the CPU has (glibc update_active).
enum class Needs {
  nothing,  // copied from CPUID as it is
  osxsave,  // XSAVE and friends: the OS enabled XSAVE
  avx,      // AVX and what depends on it: the OS saves XMM and YMM state
  avx512,   // AVX512F: the OS saves opmask and both ZMM halves, as well as XMM and YMM
  avx512f,  // the other AVX-512 extensions: AVX512F usable
};

struct Feature {
  std::string_view name;  // as /proc/cpuinfo spells it (Linux arch/x86/include/asm/cpufeatures.h)
  Leaf leaf;
  int bit;
  Needs needs;
};

// Bits from the Intel SDM, vol. 2A, CPUID (table 3-8/3-10) and AMD's CPUID specification
// (Fn8000_0001_ECX). The set: what the x86-64 psABI levels, glibc's $PLATFORM and the
// frameworks' own CPU requirements (AVX for TensorFlow's wheels) look at.
constexpr std::array<Feature, 40> kFeatures = {{
    {"fpu", Leaf::one_edx, 0, Needs::nothing},
    {"cx8", Leaf::one_edx, 8, Needs::nothing},
    {"cmov", Leaf::one_edx, 15, Needs::nothing},
    {"mmx", Leaf::one_edx, 23, Needs::nothing},
    {"fxsr", Leaf::one_edx, 24, Needs::nothing},
    {"sse", Leaf::one_edx, 25, Needs::nothing},
    {"sse2", Leaf::one_edx, 26, Needs::nothing},
    {"pni", Leaf::one_ecx, 0, Needs::nothing},
    {"pclmulqdq", Leaf::one_ecx, 1, Needs::nothing},
    {"ssse3", Leaf::one_ecx, 9, Needs::nothing},
    {"fma", Leaf::one_ecx, 12, Needs::avx},
    {"cx16", Leaf::one_ecx, 13, Needs::nothing},
    {"sse4_1", Leaf::one_ecx, 19, Needs::nothing},
    {"sse4_2", Leaf::one_ecx, 20, Needs::nothing},
    {"movbe", Leaf::one_ecx, 22, Needs::nothing},
    {"popcnt", Leaf::one_ecx, 23, Needs::nothing},
    {"aes", Leaf::one_ecx, 25, Needs::nothing},
    {"xsave", Leaf::one_ecx, 26, Needs::osxsave},
    {"osxsave", Leaf::one_ecx, 27, Needs::nothing},
    {"avx", Leaf::one_ecx, 28, Needs::avx},
    {"f16c", Leaf::one_ecx, 29, Needs::avx},
    {"rdrand", Leaf::one_ecx, 30, Needs::nothing},
    {"bmi1", Leaf::seven_ebx, 3, Needs::nothing},
    {"avx2", Leaf::seven_ebx, 5, Needs::avx},
    {"bmi2", Leaf::seven_ebx, 8, Needs::nothing},
    {"avx512f", Leaf::seven_ebx, 16, Needs::avx512},
    {"avx512dq", Leaf::seven_ebx, 17, Needs::avx512f},
    {"adx", Leaf::seven_ebx, 19, Needs::nothing},
    {"avx512ifma", Leaf::seven_ebx, 21, Needs::avx512f},
    {"avx512pf", Leaf::seven_ebx, 26, Needs::avx512f},
    {"avx512er", Leaf::seven_ebx, 27, Needs::avx512f},
    {"avx512cd", Leaf::seven_ebx, 28, Needs::avx512f},
    {"sha_ni", Leaf::seven_ebx, 29, Needs::nothing},
    {"avx512bw", Leaf::seven_ebx, 30, Needs::avx512f},
    {"avx512vl", Leaf::seven_ebx, 31, Needs::avx512f},
    {"avx512vbmi", Leaf::seven_ecx, 1, Needs::avx512f},
    {"avx512_vnni", Leaf::seven_ecx, 11, Needs::avx512f},
    {"lahf_lm", Leaf::ext1_ecx, 0, Needs::nothing},
    {"abm", Leaf::ext1_ecx, 5, Needs::nothing},
    {"sse4a", Leaf::ext1_ecx, 6, Needs::nothing},
}};

// XCR0 state components (Intel SDM vol. 1, 13.1).
constexpr std::uint64_t kXmmState = 1u << 1;
constexpr std::uint64_t kYmmState = 1u << 2;
constexpr std::uint64_t kAvx512States = (1u << 5) | (1u << 6) | (1u << 7);  // opmask, ZMM

std::uint32_t register_of(const X86Cpuid& cpuid, Leaf leaf) {
  switch (leaf) {
    case Leaf::one_ecx:
      return cpuid.leaf1.ecx;
    case Leaf::one_edx:
      return cpuid.leaf1.edx;
    case Leaf::seven_ebx:
      return cpuid.leaf7.ebx;
    case Leaf::seven_ecx:
      return cpuid.leaf7.ecx;
    case Leaf::ext1_ecx:
      return cpuid.ext1.ecx;
  }
  return 0;
}

bool cpu_has(const X86Cpuid& cpuid, std::string_view name) {
  for (const auto& f : kFeatures) {
    if (f.name == name) return (register_of(cpuid, f.leaf) >> f.bit) & 1u;
  }
  return false;
}

std::string vendor_of(const CpuidRegisters& leaf0) {
  std::string vendor;
  for (const std::uint32_t word : {leaf0.ebx, leaf0.edx, leaf0.ecx}) {
    for (int byte = 0; byte < 4; ++byte) {
      const char c = static_cast<char>((word >> (8 * byte)) & 0xffu);
      if (c != '\0') vendor += c;
    }
  }
  return vendor;
}

}  // namespace

CpuFeatures usable_x86_features(const X86Cpuid& cpuid) {
  const bool osxsave = cpu_has(cpuid, "osxsave") && cpuid.xcr0.has_value();
  const std::uint64_t xcr0 = osxsave ? *cpuid.xcr0 : 0;
  const bool avx_state = (xcr0 & (kXmmState | kYmmState)) == (kXmmState | kYmmState);
  const bool avx = avx_state && cpu_has(cpuid, "avx");
  const bool avx512f =
      avx_state && (xcr0 & kAvx512States) == kAvx512States && cpu_has(cpuid, "avx512f");
  CpuFeatures features;
  features.vendor = vendor_of(cpuid.leaf0);
  for (const auto& f : kFeatures) {
    if (!((register_of(cpuid, f.leaf) >> f.bit) & 1u)) continue;
    const bool usable = f.needs == Needs::nothing || (f.needs == Needs::osxsave && osxsave) ||
                        (f.needs == Needs::avx && avx) ||
                        ((f.needs == Needs::avx512 || f.needs == Needs::avx512f) && avx512f);
    if (usable) features.usable.emplace_back(f.name);
  }
  std::sort(features.usable.begin(), features.usable.end());
  return features;
}

std::optional<CpuFeatures> cpu_features_from_cpuinfo(const std::string& cpuinfo) {
  std::optional<std::string> vendor;
  std::optional<std::string> flags;
  // The first CPU speaks for all: the first line of each key.
  for (const auto& line : text::split(cpuinfo, '\n')) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string_view whole(line);
    const std::string_view key = text::trim(whole.substr(0, colon));
    const std::string value(text::trim(whole.substr(colon + 1)));
    if (key == "vendor_id" && !vendor) vendor = value;
    if (key == "flags" && !flags) flags = value;
  }
  if (!flags) return std::nullopt;
  CpuFeatures features;
  features.vendor = vendor.value_or("");
  for (const auto& flag : text::split(*flags, ' ')) {
    if (!flag.empty()) features.usable.emplace_back(flag);
  }
  if (std::find(features.usable.begin(), features.usable.end(), "xsave") != features.usable.end()) {
    features.usable.emplace_back("osxsave");
  }
  std::sort(features.usable.begin(), features.usable.end());
  features.usable.erase(std::unique(features.usable.begin(), features.usable.end()),
                        features.usable.end());
  return features;
}

std::optional<CpuFeatures> live_cpu_features() {
  const auto cpuid = read_x86_cpuid();
  if (!cpuid) return std::nullopt;
  return usable_x86_features(*cpuid);
}

}  // namespace gpuvet::sys
