#include <gtest/gtest.h>

#include "probes/probes.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

using nlohmann::json;

constexpr const char* kDebianRelease =
    "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
    "NAME=\"Debian GNU/Linux\"\n"
    "VERSION_ID=\"12\"\n"
    "VERSION=\"12 (bookworm)\"\n"
    "VERSION_CODENAME=bookworm\n"
    "ID=debian\n";

Facts probe(const sys::Snapshot& snapshot) {
  const sys::ReplaySystem system(snapshot);
  return collect_facts(system);
}

TEST(OsRelease, ParsesShellStyleAssignments) {
  const auto pairs = parse_os_release(
      "# comment\nNAME='Ubuntu'\nVERSION_ID=\"22.04\"\n\nBROKEN\n=x\nX=\"a \\\"b\\\"\"\n");
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs[0], (std::pair<std::string, std::string>{"NAME", "Ubuntu"}));
  EXPECT_EQ(pairs[1].second, "22.04");
  EXPECT_EQ(pairs[2].second, "a \"b\"");
}

TEST(OsProbe, LinuxDistributionFromOsRelease) {
  const Facts f = probe(testing::linux_snapshot(
      {{"host", {{"os_name", "Linux"}, {"os_version", "6.1.0-13-amd64"}, {"arch", "x86_64"}}},
       {"files", {{"/etc/os-release", {{"text", kDebianRelease}}}}}}));
  EXPECT_EQ(f.os.family, "linux");
  EXPECT_EQ(f.os.name, "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(f.os.version, "12");
  EXPECT_EQ(f.os.release, "bookworm");
  EXPECT_EQ(f.os.kernel, "6.1.0-13-amd64");
  EXPECT_EQ(f.os.arch, "x86_64");
  EXPECT_FALSE(f.os.wsl);
  EXPECT_FALSE(f.os.container);
}

TEST(OsProbe, FallsBackToUsrLibOsReleaseThenToTheKernelName) {
  const Facts fallback = probe(testing::linux_snapshot(
      {{"files", {{"/usr/lib/os-release", {{"text", "NAME=Fedora\nVERSION_ID=39\n"}}}}}}));
  EXPECT_EQ(fallback.os.name, "Fedora");
  EXPECT_EQ(fallback.os.version, "39");
  const Facts bare = probe(testing::linux_snapshot({{"host", {{"os_name", "Linux"}}}}));
  EXPECT_EQ(bare.os.name, "Linux");
  EXPECT_FALSE(bare.os.version) << "unknown, not guessed";
}

TEST(OsProbe, RecognisesWsl2) {
  const Facts by_kernel = probe(testing::linux_snapshot(
      {{"files",
        {{"/proc/sys/kernel/osrelease", {{"text", "5.15.153.1-microsoft-standard-WSL2\n"}}}}}}));
  EXPECT_TRUE(by_kernel.os.wsl);
  const Facts by_env =
      probe(testing::linux_snapshot({{"env", {{"WSL_DISTRO_NAME", "Ubuntu-22.04"}}}}));
  EXPECT_TRUE(by_env.os.wsl);
  const Facts by_host = probe(testing::linux_snapshot({{"host", {{"wsl", true}}}}));
  EXPECT_TRUE(by_host.os.wsl);
}

struct ContainerCase {
  const char* name;
  json extra;
  const char* expected;
};

class OsProbeContainer : public ::testing::TestWithParam<ContainerCase> {};

TEST_P(OsProbeContainer, IsRecognised) {
  const Facts f = probe(testing::linux_snapshot(GetParam().extra));
  ASSERT_TRUE(f.os.container);
  EXPECT_EQ(*f.os.container, GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Signals, OsProbeContainer,
    ::testing::Values(
        ContainerCase{"dockerenv", {{"files", {{"/.dockerenv", {{"size", 0}}}}}}, "docker"},
        ContainerCase{"podman", {{"files", {{"/run/.containerenv", {{"size", 0}}}}}}, "podman"},
        ContainerCase{"env", {{"env", {{"container", "systemd-nspawn"}}}}, "systemd-nspawn"},
        ContainerCase{
            "kubernetes", {{"env", {{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}}}}, "kubernetes"},
        ContainerCase{
            "cgroup",
            {{"files", {{"/proc/1/cgroup", {{"text", "0::/kubepods/besteffort/pod1\n"}}}}}},
            "kubernetes"},
        ContainerCase{"lxc", {{"files", {{"/proc/1/cgroup", {{"text", "0::/lxc/ct1\n"}}}}}}, "lxc"},
        ContainerCase{"host", {{"host", {{"container", "docker"}}}}, "docker"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(OsProbe, WindowsFromTheHostAnswers) {
  const Facts f = probe(testing::windows_snapshot());
  EXPECT_EQ(f.os.family, "windows");
  EXPECT_EQ(f.os.name, "Windows 10 Pro");
  EXPECT_EQ(f.os.version, "10.0.18363");
  EXPECT_EQ(f.os.release, "1909");
  EXPECT_FALSE(f.os.kernel);
  EXPECT_FALSE(f.os.container);
  EXPECT_FALSE(f.os.memory_integrity);  // not configured: unknown
}

// Windows 11 keeps Windows 10's ProductName in the registry; from build 22000 on
// (data/windows_releases.csv, Microsoft's Windows 11 release information) it is Windows 11.
std::optional<std::string> windows_name(const std::string& product, const std::string& version) {
  return probe(
             testing::windows_snapshot({{"host", {{"os_name", product}, {"os_version", version}}}}))
      .os.name;
}

TEST(OsProbe, Windows11IsNamedFromItsBuildNotItsProductName) {
  EXPECT_EQ(windows_name("Windows 10 Pro", "10.0.22000"), "Windows 11 Pro");
  EXPECT_EQ(windows_name("Windows 10 Pro", "10.0.22631"), "Windows 11 Pro");
  EXPECT_EQ(windows_name("Windows 10 Enterprise", "10.0.26100"), "Windows 11 Enterprise");
  EXPECT_EQ(windows_name("Windows 10 Home", "10.0.19045"), "Windows 10 Home");
  EXPECT_EQ(windows_name("Windows 10 Pro", "10.0.21999"), "Windows 10 Pro");
  // A name Windows spells right, a server and an unreadable build stay as they are.
  EXPECT_EQ(windows_name("Windows 11 Pro", "10.0.22631"), "Windows 11 Pro");
  EXPECT_EQ(windows_name("Windows Server 2022 Datacenter", "10.0.20348"),
            "Windows Server 2022 Datacenter");
  EXPECT_EQ(windows_name("Windows Server 2025 Standard", "10.0.26100"),
            "Windows Server 2025 Standard");
  EXPECT_EQ(windows_name("Windows 10 Pro", "10.0"), "Windows 10 Pro");
  EXPECT_EQ(windows_name("Windows 10 Pro", "10.0.x"), "Windows 10 Pro");
}

TEST(OsProbe, TheWindows11ThresholdComesFromTheKnowledgeBaseWithItsSource) {
  const auto& t = testing::kb_table("windows_releases");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.cell(0, "registry_name"), "Windows 10");
  EXPECT_EQ(t.cell(0, "first_build"), "22000");
  EXPECT_EQ(t.cell(0, "product_name"), "Windows 11");
  EXPECT_TRUE(t.cell(0, "source").starts_with("https://learn.microsoft.com/"));
}

TEST(OsProbe, WindowsTdrDelayFromTheRegistryOrItsDefault) {
  const std::string key = "HKLM/SYSTEM/CurrentControlSet/Control/GraphicsDrivers";
  EXPECT_EQ(
      probe(testing::windows_snapshot({{"registry", {{key, {{"TdrDelay", 60}}}}}})).os.tdr_delay_s,
      60);
  EXPECT_EQ(probe(testing::windows_snapshot({{"registry", {{key, nlohmann::json::object()}}}}))
                .os.tdr_delay_s,
            2);
  EXPECT_FALSE(probe(testing::windows_snapshot()).os.tdr_delay_s);  // not recorded: unknown
}

TEST(OsProbe, WindowsMemoryIntegrityFromTheRegistry) {
  const std::string key =
      "HKLM/SYSTEM/CurrentControlSet/Control/DeviceGuard/Scenarios/HypervisorEnforcedCodeIntegrity";
  const Facts on = probe(testing::windows_snapshot({{"registry", {{key, {{"Enabled", 1}}}}}}));
  EXPECT_EQ(on.os.memory_integrity, true);
  const Facts off = probe(testing::windows_snapshot({{"registry", {{key, {{"Enabled", 0}}}}}}));
  EXPECT_EQ(off.os.memory_integrity, false);
  const Facts empty =
      probe(testing::windows_snapshot({{"registry", {{key, nlohmann::json::object()}}}}));
  EXPECT_FALSE(empty.os.memory_integrity);
}

TEST(Mountinfo, MountPointsAreTheFifthFieldUnescaped) {
  const auto points = mount_points(
      "1190 1150 0:52 / / rw - overlay overlay rw\n"
      "1200 1190 259:2 /home/a/b /workspace/my\\040data\\134x rw - ext4 /dev/sda1 rw\n"
      "short line\n\n"
      "1201 1190 259:2 /x /trailing\\04 rw - ext4 /dev/sda1 rw\n");
  EXPECT_EQ(points, (std::vector<std::string>{"/", "/workspace/my data\\x", "/trailing\\04"}));
}

TEST(Mountinfo, SharedMemorySizeIsThatOfTheLastTmpfsAtDevShm) {
  const std::string docker =
      "1193 1192 0:57 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm "
      "rw,size=65536k,inode64\n";
  EXPECT_EQ(shm_size_of("1190 1150 0:52 / / rw - overlay overlay rw,size=9k\n" + docker),
            std::int64_t{64} << 20);
  // --ipc=host: the host's tmpfs, no size= (the kernel's default, half the memory).
  EXPECT_FALSE(shm_size_of("40 23 0:25 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw\n"));
  // A later mount over /dev/shm hides the earlier one, whichever way.
  EXPECT_EQ(shm_size_of(docker + "1300 1193 0:60 / /dev/shm rw - tmpfs tmpfs rw,size=8g\n"),
            std::int64_t{8} << 30);
  EXPECT_FALSE(shm_size_of(docker + "1300 1193 0:60 / /dev/shm rw - tmpfs tmpfs rw,mode=1777\n"));
  EXPECT_FALSE(shm_size_of(docker + "1300 1193 259:2 /big /dev/shm rw - ext4 /dev/sda1 rw\n"));
  // Optional fields before the separator; a size without a suffix is in bytes.
  EXPECT_EQ(shm_size_of("7 1 0:5 / /dev/shm rw master:1 shared:2 - tmpfs none rw,size=1048576\n"),
            1048576);
  // Not /dev/shm, malformed, absurd: nothing.
  EXPECT_FALSE(shm_size_of("7 1 0:5 / /dev/shm2 rw - tmpfs none rw,size=64k\n"));
  EXPECT_FALSE(shm_size_of("7 1 0:5 / /dev/shm rw tmpfs none rw,size=64k\n"));
  EXPECT_FALSE(shm_size_of("7 1 0:5 / /dev/shm rw - tmpfs none rw,size=k\n"));
  EXPECT_FALSE(shm_size_of("7 1 0:5 / /dev/shm rw - tmpfs none rw,size=99999999999999g\n"));
  EXPECT_FALSE(shm_size_of("7 1 0:5 / /dev/shm rw - tmpfs none rw,size=12%\n"));
  EXPECT_FALSE(shm_size_of(""));
}

TEST(OsProbe, SharedMemorySizeFromTheMountTable) {
  const Facts f = probe(testing::linux_snapshot(
      {{"files",
        {{"/.dockerenv", {{"text", ""}}},
         {"/proc/self/mountinfo",
          {{"text", "1193 1192 0:57 / /dev/shm rw - tmpfs shm rw,size=65536k,inode64\n"}}}}}}));
  EXPECT_EQ(f.os.container, "docker");
  EXPECT_EQ(f.os.shm_bytes, std::int64_t{64} << 20);
  EXPECT_FALSE(probe(testing::linux_snapshot()).os.shm_bytes);  // not recorded: unknown
}

TEST(Mountinfo, DriverLibrariesAndTheirDirectoriesAreWhatTheProbeAsksAbout) {
  EXPECT_TRUE(is_versioned_driver_library("libcuda.so.550.54.15"));
  EXPECT_TRUE(is_versioned_driver_library("libnvidia-ml.so.535.104.05"));
  EXPECT_TRUE(is_versioned_driver_library("libcuda.so.418.87"));
  EXPECT_FALSE(is_versioned_driver_library("libcuda.so.1"));
  EXPECT_FALSE(is_versioned_driver_library("libcuda.so"));
  EXPECT_FALSE(is_versioned_driver_library("libcuda.so.550.54.15.bak"));
  EXPECT_FALSE(is_versioned_driver_library("libcudart.so.12.4.127"));
  EXPECT_FALSE(is_versioned_driver_library("libcuda.so..1"));
  EXPECT_TRUE(is_driver_mount("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"));
  EXPECT_TRUE(is_driver_mount("/usr/lib/x86_64-linux-gnu"));
  EXPECT_TRUE(is_driver_mount("/usr"));
  EXPECT_TRUE(is_driver_mount("/usr/local/nvidia"));
  EXPECT_FALSE(is_driver_mount("/"));
  EXPECT_FALSE(is_driver_mount("/us"));
  EXPECT_FALSE(is_driver_mount("/usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(is_driver_mount("/workspace"));
}

}  // namespace
}  // namespace gpuvet::probes
