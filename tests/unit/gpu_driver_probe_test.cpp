// The GPU and driver probe's reading of UEFI Secure Boot: efivarfs gives a variable's 4
// attribute bytes, then its value (Documentation/filesystems/efivarfs.rst in the kernel).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "probes/probes.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

constexpr const char* kSecureBoot =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";

// The facts of a Linux machine whose SecureBoot variable holds `bytes` (none: no such file).
std::optional<bool> secure_boot_of(const std::optional<std::string>& bytes) {
  nlohmann::json files = {{"/proc/modules", {{"text", "snd 1 0 - Live 0x0\n"}}}};
  if (bytes) files[kSecureBoot] = {{"text", *bytes}};
  const sys::ReplaySystem system(testing::linux_snapshot({{"files", files}}));
  const Facts facts = collect_facts(system, testing::embedded_kb());
  if (!facts.driver) return std::nullopt;
  return facts.driver->secure_boot;
}

TEST(GpuDriverProbe, ReadsSecureBootFromItsUefiVariable) {
  // Attributes 0x06 (boot-service and run-time access), then the value.
  EXPECT_EQ(secure_boot_of(std::string("\x06\x00\x00\x00\x01", 5)), true);
  EXPECT_EQ(secure_boot_of(std::string("\x06\x00\x00\x00\x00", 5)), false);
}

TEST(GpuDriverProbe, SecureBootIsUnknownWithoutAWellFormedVariable) {
  EXPECT_EQ(secure_boot_of(std::nullopt), std::nullopt);  // BIOS, or no efivarfs
  EXPECT_EQ(secure_boot_of(std::string("\x01", 1)), std::nullopt);
  EXPECT_EQ(secure_boot_of(std::string("\x06\x00\x00\x00\x01\x00", 6)), std::nullopt);
  EXPECT_EQ(secure_boot_of(std::string("\x06\x00\x00\x00\x07", 5)), std::nullopt);
}

}  // namespace
}  // namespace gpuvet::probes
