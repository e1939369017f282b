// CPUID decoding against register values whose meaning the Intel SDM and AMD's CPUID
// specification fix, and the live machine's own CPUID (the loader oracle compares that with
// ld.so).
#include "system/cpu_features.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "resolve/platform.hpp"

namespace gpuvet::sys {
namespace {

constexpr std::uint32_t bit(int n) {
  return std::uint32_t{1} << n;
}

// "GenuineIntel" / "AuthenticAMD" as CPUID leaf 0 returns them in ebx, edx, ecx.
constexpr CpuidRegisters kIntel{0x16, 0x756e6547, 0x6c65746e, 0x49656e69};
constexpr CpuidRegisters kAmd{0x10, 0x68747541, 0x444d4163, 0x69746e65};

// A Skylake-SP-like CPU: everything up to x86-64-v4.
X86Cpuid server_cpu(CpuidRegisters vendor, std::uint64_t xcr0) {
  X86Cpuid c;
  c.leaf0 = vendor;
  // ecx: SSE3 0, SSSE3 9, FMA 12, CX16 13, SSE4.1 19, SSE4.2 20, MOVBE 22, POPCNT 23, XSAVE 26,
  // OSXSAVE 27, AVX 28, F16C 29. edx: FPU 0, CX8 8, CMOV 15, MMX 23, FXSR 24, SSE 25, SSE2 26.
  c.leaf1.ecx = bit(0) | bit(9) | bit(12) | bit(13) | bit(19) | bit(20) | bit(22) | bit(23) |
                bit(26) | bit(27) | bit(28) | bit(29);
  c.leaf1.edx = bit(0) | bit(8) | bit(15) | bit(23) | bit(24) | bit(25) | bit(26);
  // ebx: BMI1 3, AVX2 5, BMI2 8, AVX512F 16, AVX512DQ 17, AVX512CD 28, AVX512BW 30, AVX512VL 31.
  c.leaf7.ebx = bit(3) | bit(5) | bit(8) | bit(16) | bit(17) | bit(28) | bit(30) | bit(31);
  c.ext1.ecx = bit(0) | bit(5);  // LAHF/SAHF in 64-bit mode, LZCNT
  c.xcr0 = xcr0;
  return c;
}

constexpr std::uint64_t kAllStates = 0xe7;  // x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
constexpr std::uint64_t kNoAvx512State = 0x07;

bool has(const CpuFeatures& f, const char* name) {
  return std::binary_search(f.usable.begin(), f.usable.end(), name);
}

TEST(CpuFeatures, VendorAndFullServerCpu) {
  const CpuFeatures f = usable_x86_features(server_cpu(kIntel, kAllStates));
  EXPECT_EQ(f.vendor, "GenuineIntel");
  EXPECT_TRUE(std::is_sorted(f.usable.begin(), f.usable.end()));
  for (const char* name : {"pni", "abm", "lahf_lm", "avx", "avx2", "fma", "f16c", "osxsave",
                           "xsave", "avx512f", "avx512vl"}) {
    EXPECT_TRUE(has(f, name)) << name;
  }
  EXPECT_EQ(resolve::x86_64_levels(f),
            (std::vector<std::string>{"x86-64-v4", "x86-64-v3", "x86-64-v2"}));
  EXPECT_EQ(resolve::x86_64_platform(f), "haswell");
  EXPECT_EQ(usable_x86_features(server_cpu(kAmd, kAllStates)).vendor, "AuthenticAMD");
  EXPECT_EQ(resolve::x86_64_platform(usable_x86_features(server_cpu(kAmd, kAllStates))), "x86_64");
}

// An OS (or hypervisor) that does not save the AVX-512 state: the CPU has it, nothing may use it.
TEST(CpuFeatures, Avx512NeedsTheOsToSaveItsState) {
  const CpuFeatures f = usable_x86_features(server_cpu(kIntel, kNoAvx512State));
  EXPECT_FALSE(has(f, "avx512f"));
  EXPECT_FALSE(has(f, "avx512bw"));
  EXPECT_TRUE(has(f, "avx2"));
  EXPECT_EQ(resolve::x86_64_levels(f), (std::vector<std::string>{"x86-64-v3", "x86-64-v2"}));
}

// No OSXSAVE: XGETBV may not be run, and AVX, FMA, F16C and AVX2 are unusable.
TEST(CpuFeatures, AvxNeedsOsxsave) {
  X86Cpuid c = server_cpu(kIntel, kAllStates);
  c.leaf1.ecx &= ~bit(27);
  c.xcr0.reset();
  const CpuFeatures f = usable_x86_features(c);
  for (const char* name : {"avx", "avx2", "fma", "f16c", "xsave", "osxsave", "avx512f"}) {
    EXPECT_FALSE(has(f, name)) << name;
  }
  EXPECT_TRUE(has(f, "bmi2"));  // needs no OS support
  EXPECT_EQ(resolve::x86_64_levels(f), (std::vector<std::string>{"x86-64-v2"}));
}

TEST(CpuFeatures, YmmStateOffMeansNoAvx) {
  const CpuFeatures f = usable_x86_features(server_cpu(kIntel, 0x03));
  EXPECT_FALSE(has(f, "avx"));
  EXPECT_TRUE(has(f, "xsave"));
  EXPECT_EQ(resolve::x86_64_levels(f), (std::vector<std::string>{"x86-64-v2"}));
}

TEST(CpuFeatures, WithoutLzcntThereIsNoV3) {
  X86Cpuid c = server_cpu(kAmd, kAllStates);
  c.ext1.ecx &= ~bit(5);
  EXPECT_EQ(resolve::x86_64_levels(usable_x86_features(c)),
            (std::vector<std::string>{"x86-64-v2"}));
  X86Cpuid bare;
  bare.leaf0 = kAmd;
  EXPECT_TRUE(resolve::x86_64_levels(usable_x86_features(bare)).empty());
}

TEST(CpuFeatures, FromCpuinfo) {
  const auto f = cpu_features_from_cpuinfo(
      "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: sse2 xsave avx\n\n"
      "processor\t: 1\nvendor_id\t: Other\nflags\t\t: sse2\n");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->vendor, "GenuineIntel");
  EXPECT_EQ(f->usable, (std::vector<std::string>{"avx", "osxsave", "sse2", "xsave"}));
  EXPECT_EQ(cpu_features_from_cpuinfo("processor: 0\n"), std::nullopt);
}

// The live machine: whatever it is, CPUID answers on x86 and agrees with itself.
TEST(CpuFeatures, LiveMachine) {
  const auto live = live_cpu_features();
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__) || defined(_M_IX86)
  ASSERT_TRUE(live);
  EXPECT_FALSE(live->vendor.empty());
  EXPECT_TRUE(has(*live, "sse2"));  // every x86-64 CPU
  EXPECT_EQ(live, live_cpu_features());
#else
  EXPECT_EQ(live, std::nullopt);
#endif
}

}  // namespace
}  // namespace gpuvet::sys
