// CPUID and XGETBV on x86 processors, through each compiler's intrinsics (the one leaf
// difference between GCC/MinGW/Clang and MSVC).
#include "system/cpu_features.hpp"

#if defined(_MSC_VER)
#include <immintrin.h>
#include <intrin.h>
#else
#include <cpuid.h>
#endif

namespace gpuvet::sys {

namespace {

CpuidRegisters cpuid(std::uint32_t leaf, std::uint32_t subleaf) {
  CpuidRegisters r;
#if defined(_MSC_VER)
  int out[4] = {};
  __cpuidex(out, static_cast<int>(leaf), static_cast<int>(subleaf));
  r = {static_cast<std::uint32_t>(out[0]), static_cast<std::uint32_t>(out[1]),
       static_cast<std::uint32_t>(out[2]), static_cast<std::uint32_t>(out[3])};
#else
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  __cpuid_count(leaf, subleaf, eax, ebx, ecx, edx);
  r = {eax, ebx, ecx, edx};
#endif
  return r;
}

// XGETBV(0); only valid when CPUID.1:ECX.OSXSAVE is set (else it faults).
std::uint64_t xcr0() {
#if defined(_MSC_VER)
  return _xgetbv(0);
#else
  unsigned eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<std::uint64_t>(edx) << 32) | eax;
#endif
}

constexpr std::uint32_t kOsxsaveBit = 1u << 27;

}  // namespace

std::optional<X86Cpuid> read_x86_cpuid() {
  X86Cpuid regs;
  regs.leaf0 = cpuid(0, 0);
  const std::uint32_t max_leaf = regs.leaf0.eax;
  if (max_leaf >= 1) regs.leaf1 = cpuid(1, 0);
  if (max_leaf >= 7) regs.leaf7 = cpuid(7, 0);
  if (cpuid(0x80000000u, 0).eax >= 0x80000001u) regs.ext1 = cpuid(0x80000001u, 0);
  if (regs.leaf1.ecx & kOsxsaveBit) regs.xcr0 = xcr0();
  return regs;
}

}  // namespace gpuvet::sys
