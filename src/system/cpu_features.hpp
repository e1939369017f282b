#pragma once
// What an x86 CPU lets user space run, decided as glibc decides it: from CPUID and the state the
// OS enabled in XCR0 (XGETBV), never from /proc/cpuinfo, whose flags a hypervisor or kernel may
// hide (issue 15: an AMD EPYC with AVX-512 whose cpuinfo lists no "abm" although it has LZCNT).
// The dynamic loader picks its glibc-hwcaps subdirectories and $PLATFORM from these features.
#include <cstdint>
#include <optional>
#include <string>

#include "system/system.hpp"

namespace gpuvet::sys {

struct CpuidRegisters {
  std::uint32_t eax = 0;
  std::uint32_t ebx = 0;
  std::uint32_t ecx = 0;
  std::uint32_t edx = 0;
};

// The CPUID leaves glibc's init_cpu_features reads for the features that matter to the loader.
struct X86Cpuid {
  CpuidRegisters leaf0;  // highest leaf (eax) and the vendor string (ebx, edx, ecx)
  CpuidRegisters leaf1;  // feature bits in ecx and edx
  CpuidRegisters leaf7;  // subleaf 0: structured extended feature bits (zero when absent)
  CpuidRegisters ext1;   // 0x80000001: LAHF/SAHF in 64-bit mode, LZCNT (zero when absent)
  std::optional<std::uint64_t> xcr0;  // XGETBV(0); read only when CPUID says OSXSAVE
};

// The features usable in user space (glibc sysdeps/x86/cpu-features.c, update_active): AVX and
// its dependants only when the OS saves the YMM state, AVX-512 only when it saves the opmask and
// ZMM states. Names are /proc/cpuinfo's spelling ("pni" = SSE3, "abm" = LZCNT), plus "osxsave",
// which cpuinfo does not list. Sorted.
CpuFeatures usable_x86_features(const X86Cpuid& cpuid);

// The same, as well as a /proc/cpuinfo text can say it (old snapshots have nothing better): the
// first CPU's "vendor_id" and "flags". A kernel lists "xsave" only when it enabled XSAVE, which
// stands in for OSXSAVE. nullopt when the text has no flags line.
std::optional<CpuFeatures> cpu_features_from_cpuinfo(const std::string& cpuinfo);

// This machine's CPUID (cpuid_x86.cpp); nullopt on processors without it (cpuid_none.cpp).
std::optional<X86Cpuid> read_x86_cpuid();

// This machine's usable features, from read_x86_cpuid; nullopt where there is no CPUID.
std::optional<CpuFeatures> live_cpu_features();

}  // namespace gpuvet::sys
