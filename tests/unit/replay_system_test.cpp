#include "system/replay_system.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpuvet::sys {
namespace {

using nlohmann::json;

ReplaySystem linux_machine() {
  return ReplaySystem(testing::linux_snapshot({
      {"env", {{"PATH", "/usr/bin"}, {"path", "lower"}}},
      {"files",
       {{"/usr/local/cuda", {{"link", "/usr/local/cuda-13.0"}}},
        {"/usr/local/cuda-13.0/version.json", {{"text", "{\"cuda\": {}}"}}},
        {"/usr/local/cuda-13.0/lib64", {{"link", "lib"}}},
        {"/usr/local/cuda-13.0/lib/libcudart.so.13", {{"size", 700000}}},
        {"/usr/local/cuda-13.0/lib/libcudnn.so.9", {{"elf", {{"soname", "libcudnn.so.9"}}}}},
        {"/opt/empty", {{"dir", true}}},
        {"/dev/nvidia0", {{"other", true}, {"error", "/dev/nvidia0: Permission denied"}}},
        {"/loop/a", {{"link", "/loop/b"}}},
        {"/loop/b", {{"link", "/loop/a"}}},
        {"/dangling", {{"link", "/nowhere"}}}}},
      {"ld_cache", {{"libcuda.so.1", {"/usr/lib/x86_64-linux-gnu/libcuda.so.1"}}}},
  }));
}

TEST(ReplaySystem, WhatTheSnapshotLacksDoesNotExist) {
  const auto s = linux_machine();
  EXPECT_FALSE(s.exists("/etc/os-release"));
  EXPECT_FALSE(s.read_text("/etc/os-release"));
  EXPECT_FALSE(s.list_dir("/nope"));
  EXPECT_FALSE(s.env("HOME"));
  EXPECT_FALSE(s.driver());
  EXPECT_FALSE(s.gpus());
  EXPECT_FALSE(s.load("libcuda.so.1"));
  EXPECT_FALSE(s.registry_values("HKLM/SOFTWARE"));
}

TEST(ReplaySystem, DirectoriesExistThroughTheirChildrenOrTheirOwnEntry) {
  const auto s = linux_machine();
  EXPECT_TRUE(s.is_directory("/usr/local/cuda-13.0"));
  EXPECT_TRUE(s.is_directory("/usr"));
  EXPECT_TRUE(s.is_directory("/"));
  EXPECT_TRUE(s.is_directory("/opt/empty"));
  EXPECT_EQ(s.list_dir("/opt/empty")->size(), 0u);
  EXPECT_FALSE(s.is_directory("/usr/local/cuda-13.0/version.json"));
}

TEST(ReplaySystem, FollowsSymbolicLinksLikeTheKernel) {
  const auto s = linux_machine();
  const auto cuda = s.file_info("/usr/local/cuda");
  ASSERT_TRUE(cuda);
  EXPECT_EQ(cuda->kind, FileKind::directory);
  EXPECT_EQ(cuda->link_target, "/usr/local/cuda-13.0");
  // Through an absolute link in a parent, then a relative one.
  auto text = s.read_text("/usr/local/cuda/version.json");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "{\"cuda\": {}}");
  const auto lib = s.file_info("/usr/local/cuda/lib64/libcudart.so.13");
  ASSERT_TRUE(lib);
  EXPECT_EQ(lib->size, 700000u);
  EXPECT_EQ(s.elf_info("/usr/local/cuda/lib64/libcudnn.so.9")->soname, "libcudnn.so.9");
  const auto listing = s.list_dir("/usr/local/cuda/lib64");
  ASSERT_TRUE(listing);
  ASSERT_EQ(listing->size(), 2u);
  EXPECT_EQ((*listing)[0].name, "libcudart.so.13");
}

TEST(ReplaySystem, LinkLoopsAndDanglingLinksEndAsAbsent) {
  const auto s = linux_machine();
  EXPECT_FALSE(s.file_info("/loop/a"));
  EXPECT_FALSE(s.read_text("/loop/a/x"));
  EXPECT_FALSE(s.file_info("/dangling"));
}

TEST(ReplaySystem, ListsChildrenWithTheirKinds) {
  const auto s = linux_machine();
  const auto root = s.list_dir("/usr/local");
  ASSERT_TRUE(root);
  ASSERT_EQ(root->size(), 2u);
  EXPECT_EQ((*root)[0].name, "cuda");
  EXPECT_TRUE((*root)[0].is_link);
  EXPECT_EQ((*root)[0].kind, FileKind::directory);
  EXPECT_EQ((*root)[1].name, "cuda-13.0");
  EXPECT_FALSE((*root)[1].is_link);
  const auto dev = s.list_dir("/dev");
  ASSERT_TRUE(dev);
  EXPECT_EQ((*dev)[0].kind, FileKind::other);
}

TEST(ReplaySystem, UnreadableAndUnrecordedContentsAreErrors) {
  const auto s = linux_machine();
  const auto node = s.read_text("/dev/nvidia0");
  ASSERT_FALSE(node);
  EXPECT_NE(node.error().message.find("Permission denied"), std::string::npos);
  const auto lib = s.read_text("/usr/local/cuda-13.0/lib/libcudart.so.13");
  ASSERT_FALSE(lib);
  EXPECT_NE(lib.error().message.find("not recorded"), std::string::npos);
  EXPECT_FALSE(s.pe_version("/usr/local/cuda-13.0/lib/libcudart.so.13"));
}

TEST(ReplaySystem, DeviceNodePermissionsComeBack) {
  const ReplaySystem s(
      testing::linux_snapshot({{"files",
                                {{"/dev/nvidia0", {{"other", true}, {"read_write", false}}},
                                 {"/dev/nvidiactl", {{"other", true}}}}}}));
  EXPECT_EQ(s.file_info("/dev/nvidia0")->read_write, false);
  EXPECT_FALSE(s.file_info("/dev/nvidiactl")->read_write.has_value()) << "not recorded: unknown";
}

TEST(ReplaySystem, ProgramsAnswerOnlyWhatWasRecorded) {
  const ReplaySystem s(testing::linux_snapshot(
      {{"programs", {{"/opt/cuda/bin/nvcc --version", {{"exit", 0}, {"output", "V1"}}}}}}));
  EXPECT_EQ(s.run_program("/opt/cuda/bin/nvcc", {"--version"})->output, "V1");
  EXPECT_FALSE(s.run_program("/opt/cuda/bin/nvcc", {"-V"}));
  EXPECT_FALSE(s.run_program("/opt/cuda/bin/ptxas", {"--version"}));
}

TEST(ReplaySystem, LinuxNamesAreCaseSensitive) {
  const auto s = linux_machine();
  EXPECT_FALSE(s.exists("/USR/local/cuda-13.0/version.json"));
  EXPECT_EQ(s.env("PATH"), "/usr/bin");
  EXPECT_EQ(s.env("path"), "lower");
  EXPECT_FALSE(s.env("Path"));
}

TEST(ReplaySystem, LoaderCacheIsEmptyForUnknownNamesOnLinuxAndAbsentOnWindows) {
  const auto s = linux_machine();
  EXPECT_EQ(s.ld_cache_lookup("libcuda.so.1")->at(0), "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  EXPECT_TRUE(s.ld_cache_lookup("libnope.so")->empty());
  const ReplaySystem w(testing::windows_snapshot());
  EXPECT_FALSE(w.ld_cache_lookup("libcuda.so.1"));
}

ReplaySystem windows_machine() {
  return ReplaySystem(testing::windows_snapshot({
      {"env", {{"Path", "C:\\Windows\\system32"}}},
      {"files",
       {{"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1/bin/cudart64_101.dll",
         {{"size", 435200}, {"pe", {{"file_version", "6.14.11.10010"}}}}},
        {"C:/Windows/System32/nvcuda.dll", {{"size", 1}}}}},
      {"registry",
       {{"HKLM/SOFTWARE/NVIDIA Corporation/GPU Computing Toolkit/CUDA/v10.1",
         {{"InstallDir", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1"}}},
        {"HKLM/SOFTWARE/NVIDIA Corporation/GPU Computing Toolkit/CUDA/v9.0", json::object()}}},
  }));
}

TEST(ReplaySystem, WindowsPathsCompareCaseInsensitivelyWithEitherSeparator) {
  const auto s = windows_machine();
  EXPECT_TRUE(s.exists(
      "c:\\program files\\nvidia gpu computing toolkit\\cuda\\V10.1\\BIN\\cudart64_101.dll"));
  EXPECT_EQ(
      s.pe_version("C:/PROGRAM FILES/NVIDIA GPU Computing Toolkit/CUDA/v10.1/bin/CUDART64_101.DLL")
          ->file_version,
      "6.14.11.10010");
  EXPECT_TRUE(s.is_directory("C:\\Windows\\System32\\"));
  const auto listing = s.list_dir("c:/windows/system32");
  ASSERT_TRUE(listing);
  EXPECT_EQ(listing->at(0).name, "nvcuda.dll") << "names keep their own spelling";
  EXPECT_EQ(s.env("PATH"), "C:\\Windows\\system32");
}

TEST(ReplaySystem, ListsChildrenWhoseNamesArePrefixesOfEachOther) {
  // "python3.11" sorts before "python3/…": the child "python3" has no key of its own.
  const ReplaySystem s(
      testing::linux_snapshot({{"files",
                                {{"/usr/lib/python3.11/os.py", {{"text", ""}}},
                                 {"/usr/lib/python3/dist-packages/six.py", {{"text", ""}}}}}}));
  const auto listing = s.list_dir("/usr/lib");
  ASSERT_TRUE(listing);
  ASSERT_EQ(listing->size(), 2u);
  EXPECT_EQ(listing->at(0).name, "python3");
  EXPECT_EQ(listing->at(1).name, "python3.11");
  EXPECT_EQ(listing->at(0).kind, FileKind::directory);
}

TEST(ReplaySystem, RegistryKeysAndSubkeys) {
  const auto s = windows_machine();
  const auto values =
      s.registry_values("hklm/software/nvidia corporation/gpu computing toolkit/cuda/V10.1");
  ASSERT_TRUE(values);
  EXPECT_EQ(std::get<std::string>(values->at("InstallDir")),
            "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1");
  const auto subkeys =
      s.registry_subkeys("HKLM/SOFTWARE/NVIDIA Corporation/GPU Computing Toolkit/CUDA");
  EXPECT_EQ(subkeys, (std::vector<std::string>{"v10.1", "v9.0"}));
  EXPECT_EQ(s.registry_subkeys("HKLM/SOFTWARE"), (std::vector<std::string>{"NVIDIA Corporation"}));
}

}  // namespace
}  // namespace gpuvet::sys
