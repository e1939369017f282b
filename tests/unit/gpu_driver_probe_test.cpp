// The GPU and driver probe's reading of UEFI Secure Boot (efivarfs gives a variable's 4 attribute
// bytes, then its value: Documentation/filesystems/efivarfs.rst in the kernel) and of DKMS's and
// akmods' builds of the NVIDIA kernel module.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

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

// The module builds a Linux machine with `files` (and the running kernel 6.8.0-45-generic) has.
std::vector<ModuleBuildFact> module_builds_of(const nlohmann::json& files) {
  nlohmann::json all = files;
  all["/proc/modules"] = {{"text", "snd 1 0 - Live 0x0\n"}};
  const sys::ReplaySystem system(
      testing::linux_snapshot({{"host", {{"os_version", "6.8.0-45-generic"}}}, {"files", all}}));
  const Facts facts = collect_facts(system, testing::embedded_kb());
  if (!facts.driver) return {};
  return facts.driver->module_builds;
}

TEST(GpuDriverProbe, ReadsDkmsBuildsOfTheNvidiaModule) {
  const std::string v = "/var/lib/dkms/nvidia-current/550.163.01";
  const auto builds = module_builds_of({
      {v + "/6.1.0-27-amd64/x86_64/module/nvidia-current.ko", {{"text", ""}}},
      {v + "/6.1.0-28-amd64/x86_64/log/make.log", {{"text", "built\n"}}},  // no module in it
      {v + "/build/make.log", {{"text", "Error 2\n"}}},
      // DKMS's links beside the versions, and another vendor's module.
      {"/var/lib/dkms/nvidia-current/kernel-6.1.0-27-amd64-x86_64/module/x.ko", {{"text", ""}}},
      {"/var/lib/dkms/v4l2loopback/0.12.7/6.1.0-27-amd64/x86_64/module/v.ko", {{"text", ""}}},
  });
  ASSERT_EQ(builds.size(), 1u);
  EXPECT_EQ(builds[0].tool, "dkms");
  EXPECT_EQ(builds[0].module, "nvidia-current");  // Debian's name, no dkms.conf read
  EXPECT_EQ(builds[0].version, "550.163.01");
  EXPECT_EQ(builds[0].kernels, std::vector<std::string>{"6.1.0-27-amd64"});
  EXPECT_EQ(builds[0].failed_log, v + "/build/make.log");
  EXPECT_EQ(builds[0].failed_kernel, std::nullopt);  // a log without DKMS's heading
}

TEST(GpuDriverProbe, DkmsMakeLogsHeadingNamesTheKernelItFailedFor) {
  const std::string v = "/var/lib/dkms/nvidia/470.239.06";
  const auto builds = module_builds_of(
      {{v + "/build/make.log",
        {{"text",
          "DKMS make.log for nvidia-470.239.06 for kernel 6.12.7_1 (x86_64)\n"
          "Thu Jan  2 10:00:00 CET 2025\nmake: *** [Makefile:80: modules] Error 2\n"}}}});
  ASSERT_EQ(builds.size(), 1u);
  EXPECT_EQ(builds[0].failed_kernel, "6.12.7_1");
}

TEST(GpuDriverProbe, DkmsConfDecidesWhichModuleIsTheDriver) {
  const auto builds = module_builds_of({
      {"/var/lib/dkms/nvidia-fs/2.17.5/source/dkms.conf",
       {{"text", "BUILT_MODULE_NAME[0]=\"nvidia-fs\"\n"}}},
      {"/var/lib/dkms/nvidia-srv/535.183.01/source/dkms.conf",
       {{"text", "PACKAGE_NAME=nvidia-srv\nBUILT_MODULE_NAME[0]='nvidia'\n"}}},
  });
  ASSERT_EQ(builds.size(), 1u);
  EXPECT_EQ(builds[0].module, "nvidia-srv");
  EXPECT_TRUE(builds[0].kernels.empty());
  EXPECT_EQ(builds[0].failed_log, std::nullopt);
}

TEST(GpuDriverProbe, AkmodsFailedLogsCountForTheRunningKernelOnly) {
  const std::string cache = "/var/cache/akmods/nvidia/";
  const auto builds = module_builds_of({
      {cache + "575.64.05-1-for-6.8.0-45-generic.failed.log", {{"text", "FAILED\n"}}},
      {cache + "570.1-1-for-6.7.0-1-generic.failed.log", {{"text", "FAILED\n"}}},
      {cache + "-for-6.8.0-45-generic.failed.log", {{"text", "no version\n"}}},
  });
  ASSERT_EQ(builds.size(), 1u);
  EXPECT_EQ(builds[0].tool, "akmods");
  EXPECT_EQ(builds[0].version, "575.64.05-1");
  EXPECT_EQ(builds[0].failed_log, cache + "575.64.05-1-for-6.8.0-45-generic.failed.log");
  EXPECT_EQ(builds[0].failed_kernel, "6.8.0-45-generic");
}

TEST(GpuDriverProbe, NoDkmsTreeMeansNoBuilds) {
  EXPECT_TRUE(module_builds_of(nlohmann::json::object()).empty());
}

// Whether nvidia-persistenced runs on a Linux machine with `files` (in a container: `container`).
std::optional<bool> persistenced_of(const nlohmann::json& files, bool container = false) {
  nlohmann::json all = files;
  all["/proc/modules"] = {{"text", "nvidia 1 0 - Live 0x0\n"}};
  if (container) all["/.dockerenv"] = {{"text", ""}};
  const sys::ReplaySystem system(testing::linux_snapshot({{"files", all}}));
  const Facts facts = collect_facts(system, testing::embedded_kb());
  if (!facts.driver) return std::nullopt;
  return facts.driver->persistenced_running;
}

TEST(GpuDriverProbe, PersistencedRunsWhenItsPidFileNamesALiveDaemon) {
  const std::string pid = "/var/run/nvidia-persistenced/nvidia-persistenced.pid";
  EXPECT_EQ(persistenced_of(
                {{pid, {{"text", "812\n"}}}, {"/proc/812/comm", {{"text", "nvidia-persiste\n"}}}}),
            true);
  EXPECT_EQ(persistenced_of({{pid, {{"text", "812\n"}}},  // a stale pid, now another program
                             {"/proc/812/comm", {{"text", "bash\n"}}}}),
            false);
  EXPECT_EQ(persistenced_of({{pid, {{"text", "812\n"}}}}), false);  // no such process
  EXPECT_EQ(persistenced_of({{pid, {{"text", "../1\n"}}}}), false);
  EXPECT_EQ(persistenced_of(nlohmann::json::object()), false);  // no pid file
  EXPECT_EQ(persistenced_of(nlohmann::json::object(), true), std::nullopt);
}

// ---- the driver's Xids in the kernel's log ---------------------------------------------------

constexpr const char* kJournalXids =
    "/usr/bin/journalctl -k -b -q --no-pager --no-hostname -o short-iso -r -n 64 --grep NVRM: "
    "Xid";

// The Xid events of a Linux machine whose journalctl answered `run` (none: no journalctl).
std::vector<XidEventFact> xid_events_of(const std::optional<nlohmann::json>& run) {
  nlohmann::json extra = {{"files", {{"/proc/modules", {{"text", "nvidia 1 0 - Live 0x0\n"}}}}}};
  if (run) extra["programs"] = {{kJournalXids, *run}};
  const sys::ReplaySystem system(testing::linux_snapshot(extra));
  const Facts facts = collect_facts(system, testing::embedded_kb());
  if (!facts.driver) return {};
  return facts.driver->xid_events;
}

TEST(GpuDriverProbe, ReadsTheDriversXidsFromTheKernelsJournal) {
  const auto events = xid_events_of(nlohmann::json{
      {"exit", 0},
      {"output",
       "2026-12-07T03:12:44+0000 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, "
       "name=python3, GPU has fallen off the bus.\n"
       "2026-12-07T03:12:40+0000 kernel: NVRM: Xid (PCI:0000:3b:00):13, Graphics "
       "Exception: ESR 0x405840=0xa0\n"
       "2026-12-07T03:12:39+0000 node01 kernel: NVRM: Xid (PCI:0000:3b:00) without a code\n"}});
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].time, "2026-12-07T03:12:44+0000");
  EXPECT_EQ(events[0].pci, "PCI:0000:3b:00");
  EXPECT_EQ(events[0].xid, 79);
  EXPECT_EQ(events[0].text, "pid=1234, name=python3, GPU has fallen off the bus.");
  EXPECT_EQ(events[1].xid, 13);
}

// No journal, a journalctl that failed (no permission, no journal of this boot): no events, and
// so no fault claimed.
TEST(GpuDriverProbe, NoJournalMeansNoXidsRatherThanAnError) {
  EXPECT_TRUE(xid_events_of(std::nullopt).empty());
  EXPECT_TRUE(
      xid_events_of(nlohmann::json{{"exit", 1},
                                   {"output",
                                    "2026-12-07T03:12:44+0000 kernel: NVRM: Xid (PCI:0000:3b:00): "
                                    "79, pid=1234\n"}})
          .empty());
}

}  // namespace
}  // namespace gpuvet::probes
