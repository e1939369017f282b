#include <gtest/gtest.h>

#include "probes/probes.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

Facts probe(const sys::Snapshot& snapshot) {
  const sys::ReplaySystem system(snapshot);
  return collect_facts(system);
}

TEST(EnvProbe, KeepsTheGpuStackVariablesAndDropsTheRest) {
  const Facts f =
      probe(testing::linux_snapshot({{"env",
                                      {{"PATH", "/usr/local/cuda/bin:/usr/bin"},
                                       {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64:/opt/lib"},
                                       {"CUDA_VISIBLE_DEVICES", "0"},
                                       {"TF_CPP_MIN_LOG_LEVEL", "2"},
                                       {"XLA_FLAGS", "--xla_gpu_cuda_data_dir=/usr/local/cuda"},
                                       {"CONDA_PREFIX", "/opt/conda/envs/tf"},
                                       {"GITHUB_TOKEN", "ghp_secret"},
                                       {"SHELL", "/bin/bash"}}}}));
  const auto& v = f.env.variables;
  EXPECT_EQ(v.at("CUDA_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(v.at("TF_CPP_MIN_LOG_LEVEL"), "2");
  EXPECT_EQ(v.at("XLA_FLAGS"), "--xla_gpu_cuda_data_dir=/usr/local/cuda");
  EXPECT_EQ(v.at("CONDA_PREFIX"), "/opt/conda/envs/tf");
  EXPECT_FALSE(v.contains("GITHUB_TOKEN"));
  EXPECT_FALSE(v.contains("SHELL"));
  EXPECT_EQ(f.env.path, (std::vector<std::string>{"/usr/local/cuda/bin", "/usr/bin"}));
  EXPECT_EQ(f.env.ld_library_path, (std::vector<std::string>{"/usr/local/cuda/lib64", "/opt/lib"}));
}

TEST(EnvProbe, WindowsPathSplitsOnSemicolons) {
  const Facts f =
      probe(testing::windows_snapshot({{"env",
                                        {{"Path",
                                          "C:\\Program Files\\NVIDIA GPU Computing "
                                          "Toolkit\\CUDA\\v9.0\\bin;C:\\Windows\\system32"}}}}));
  ASSERT_EQ(f.env.path.size(), 2u);
  EXPECT_EQ(f.env.path[0], "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v9.0\\bin");
  EXPECT_TRUE(f.env.ld_library_path.empty());
}

// The saved Path as a new terminal expands it: the machine's variables, then the user's (which
// win, Path excepted), then this process's for what neither key holds.
TEST(EnvProbe, TheSavedPathIsExpandedAsANewTerminalWould) {
  const Facts f = probe(testing::windows_snapshot(
      {{"env", {{"Path", "C:\\Windows\\system32"}, {"SystemRoot", "C:\\Windows"}}},
       {"registry",
        {{"HKLM/SYSTEM/CurrentControlSet/Control/Session Manager/Environment",
          {{"Path", "%CUDA_PATH%\\bin;%SystemRoot%\\system32;%NOT_SET%\\bin;%TOOLS%\\sbin"},
           {"CUDA_PATH", "%ProgramRoot%\\CUDA\\v11.2"},
           {"ProgramRoot", "C:\\Machine"},
           {"TOOLS", "C:\\MachineTools"}}},
         {"HKCU/Environment", {{"Path", "%TOOLS%\\bin"}, {"TOOLS", "D:\\UserTools"}}}}}}));
  EXPECT_EQ(f.env.saved_path, (std::vector<std::string>{
                                  "C:/Machine/CUDA/v11.2/bin", "C:/Windows/system32",
                                  "%NOT_SET%/bin", "C:/MachineTools/sbin", "D:/UserTools/bin"}));
  EXPECT_EQ(f.env.saved_path_only,
            (std::vector<std::string>{"C:/Machine/CUDA/v11.2/bin", "%NOT_SET%/bin",
                                      "C:/MachineTools/sbin", "D:/UserTools/bin"}));
}

TEST(EnvProbe, CredentialsInsideKeptValuesAreScrubbed) {
  const Facts f = probe(testing::linux_snapshot(
      {{"env", {{"CONDA_CHANNEL_URL", "https://user:pass@conda.example.org/channel"}}}}));
  EXPECT_EQ(f.env.variables.at("CONDA_CHANNEL_URL"),
            "https://<redacted>@conda.example.org/channel");
}

TEST(EnvProbe, AnUnsetPathIsEmptyNotGuessed) {
  const Facts f = probe(testing::linux_snapshot());
  EXPECT_TRUE(f.env.path.empty());
  EXPECT_TRUE(f.env.variables.empty());
}

}  // namespace
}  // namespace gpuvet::probes
