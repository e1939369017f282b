// The probes over the live Windows System: a CUDA 10.1 toolkit with cuDNN copied into it, in a
// folder with a Chinese name, found through CUDA_PATH as on the seeds' machines, and `which`
// giving the DLL's version from its real version resource.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/paths.hpp"
#include "probes/probes.hpp"
#include "resolve/which.hpp"
#include "system/overlay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

namespace fs = std::filesystem;

TEST(WindowsLiveProbes, ToolkitWithCudnnCopiedInFromCudaPath) {
  testing::TempDir dir;
  const std::string root = dir.path() + "/张伟/CUDA/v10.1";
  dir.file("张伟/CUDA/v10.1/version.txt", "CUDA Version 10.1.243\n");
  dir.file("张伟/CUDA/v10.1/bin/nvcc.exe", "MZ");
  dir.file("张伟/CUDA/v10.1/include/cudnn.h",
           "#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 5\n");
  // A real DLL with a version resource stands in for cudnn64_7.dll.
  fs::copy_file(paths::to_fs(GPUVET_VERSIONED_DLL), paths::to_fs(root + "/bin/cudnn64_7.dll"));

  const auto live = sys::make_live_system();
  const sys::EnvOverlaySystem system(
      *live, {{"CUDA_PATH", root}, {"PATH", root + "/bin;" + live->env("PATH").value_or("")}});
  const Facts f = collect_facts(system);
  ASSERT_EQ(f.cuda_toolkits.size(), 1u) << facts_to_json(f)["cuda_toolkits"].dump(1);
  EXPECT_EQ(paths::comparison_key(f.cuda_toolkits[0].root, true),
            paths::comparison_key(root, true));
  EXPECT_EQ(f.cuda_toolkits[0].version, "10.1.243");
  EXPECT_EQ(f.cuda_toolkits[0].source, "CUDA_PATH");
  ASSERT_FALSE(f.cudnn.empty());
  EXPECT_EQ(f.cudnn[0].header_version, "7.6.5");

  const auto report = resolve::which(system, {{"cudnn64_7.dll"}, std::nullopt, {}});
  ASSERT_TRUE(report.ok());
  const auto& result = report->results.at(0);
  ASSERT_TRUE(result.resolved);
  EXPECT_EQ(paths::comparison_key(*result.resolved, true),
            paths::comparison_key(root + "/bin/cudnn64_7.dll", true));
  EXPECT_EQ(result.version, "9.1.0.70");  // from the DLL's VERSIONINFO
}

}  // namespace
}  // namespace gpuvet::probes
