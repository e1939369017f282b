#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "facts/facts.hpp"
#include "probes/probes.hpp"
#include "system/real_path.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

using nlohmann::json;

const json kFile = {{"size", 1024}};

json link(const std::string& target) {
  return {{"link", target}};
}

json text(const std::string& contents) {
  return {{"text", contents}};
}

json version_json(const std::string& version) {
  return text(json{{"cuda", {{"name", "CUDA SDK"}, {"version", version}}},
                   {"cuda_cudart", {{"name", "CUDA Runtime (cudart)"}, {"version", version}}}}
                  .dump());
}

// A runfile toolkit as NVIDIA lays it out: lib64 and include are links into targets/.
json runfile_toolkit(const std::string& root, const std::string& version) {
  const std::string lib = root + "/targets/x86_64-linux/lib/";
  const std::string major = version.substr(0, version.find('.'));
  return {{root + "/version.json", version_json(version)},
          {root + "/bin/nvcc", kFile},
          {root + "/bin/ptxas", kFile},
          {root + "/lib64", link("targets/x86_64-linux/lib")},
          {root + "/include", link("targets/x86_64-linux/include")},
          {root + "/targets/x86_64-linux/include/cuda.h", kFile},
          {lib + "libcudart.so", link("libcudart.so." + major)},
          {lib + "libcudart.so." + major, link("libcudart.so." + version)},
          {lib + "libcudart.so." + version, kFile},
          {lib + "libcublas.so." + major, kFile},
          {lib + "libcublasLt.so." + major, kFile},
          {lib + "libnvrtc-builtins.so." + major, kFile},
          {lib + "stubs/libcuda.so", kFile},
          {root + "/nvvm/libdevice/libdevice.10.bc", kFile}};
}

Facts probe(const json& files, const json& env = json::object()) {
  const sys::ReplaySystem system(testing::linux_snapshot({{"files", files}, {"env", env}}));
  return collect_facts(system);
}

std::vector<std::string> roots(const Facts& facts) {
  std::vector<std::string> out;
  for (const auto& t : facts.cuda_toolkits)
    out.push_back(t.root);
  return out;
}

TEST(CudaToolkitProbe, RunfileInstallWithTheUsrLocalCudaLink) {
  json files = runfile_toolkit("/usr/local/cuda-12.2", "12.2.140");
  files["/usr/local/cuda"] = link("/usr/local/cuda-12.2");
  const Facts f = probe(files, {{"PATH", "/usr/local/bin:/usr/bin:/bin"}});
  ASSERT_EQ(f.cuda_toolkits.size(), 1u) << "the link and the folder are one toolkit";
  const auto& t = f.cuda_toolkits[0];
  EXPECT_EQ(t.root, "/usr/local/cuda-12.2");
  EXPECT_EQ(t.version, "12.2.140");
  EXPECT_EQ(t.version_source, "version.json");
  EXPECT_EQ(t.source, "default-location");
  EXPECT_FALSE(t.on_path);
  EXPECT_EQ(t.libraries, (std::vector<std::string>{"cudart", "cublas", "cublasLt"}));
  EXPECT_TRUE(t.libdevice);
  EXPECT_TRUE(t.ptxas);
}

TEST(CudaToolkitProbe, TwoToolkitsInPathOrder) {
  json files = runfile_toolkit("/usr/local/cuda-11.8", "11.8.89");
  files.update(runfile_toolkit("/usr/local/cuda-12.4", "12.4.131"));
  files["/usr/local/cuda"] = link("cuda-12.4");

  const Facts both =
      probe(files, {{"PATH", "/usr/local/cuda-12.4/bin:/usr/local/cuda-11.8/bin:/usr/bin"}});
  EXPECT_EQ(roots(both),
            (std::vector<std::string>{"/usr/local/cuda-12.4", "/usr/local/cuda-11.8"}));
  for (const auto& t : both.cuda_toolkits) {
    EXPECT_EQ(t.source, "path") << t.root;
    EXPECT_TRUE(t.on_path) << t.root;
  }
  EXPECT_EQ(both.cuda_toolkits[0].version, "12.4.131");
  EXPECT_EQ(both.cuda_toolkits[1].version, "11.8.89");

  const Facts one = probe(files, {{"PATH", "/usr/local/cuda-11.8/bin:/usr/bin"}});
  EXPECT_EQ(roots(one), (std::vector<std::string>{"/usr/local/cuda-11.8", "/usr/local/cuda-12.4"}));
  EXPECT_EQ(one.cuda_toolkits[0].source, "path");
  EXPECT_TRUE(one.cuda_toolkits[0].on_path);
  EXPECT_EQ(one.cuda_toolkits[1].source, "default-location");
  EXPECT_FALSE(one.cuda_toolkits[1].on_path);
}

TEST(CudaToolkitProbe, OnPathComparesRealDirectories) {
  json files = runfile_toolkit("/usr/local/cuda-12.4", "12.4.131");
  files["/usr/local/cuda"] = link("/usr/local/cuda-12.4");
  // PATH names the link, with a trailing slash; the toolkit's real bin is the same directory.
  const Facts f = probe(files, {{"PATH", "/usr/bin:/usr/local/cuda/bin/"}});
  ASSERT_EQ(f.cuda_toolkits.size(), 1u);
  EXPECT_TRUE(f.cuda_toolkits[0].on_path);
  EXPECT_EQ(f.cuda_toolkits[0].source, "path");
}

TEST(CudaToolkitProbe, DebianPackageIsOneToolkitAtUsrLibCuda) {
  const json files = {{"/usr/bin/nvcc", kFile},
                      {"/usr/bin/ptxas", kFile},
                      {"/usr/lib/cuda/version.txt", text("CUDA Version 11.5.119\n")},
                      {"/usr/lib/cuda/include", link("/usr/include")},
                      {"/usr/lib/cuda/lib64", link("/usr/lib/x86_64-linux-gnu")},
                      {"/usr/lib/cuda/nvvm/libdevice", link("../../nvidia-cuda-toolkit/libdevice")},
                      {"/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc", kFile},
                      {"/usr/include/cuda.h", kFile},
                      {"/usr/lib/x86_64-linux-gnu/libcudart.so.11.5.117", kFile},
                      {"/usr/lib/x86_64-linux-gnu/libcufft.so.10", kFile}};
  const Facts f = probe(files, {{"PATH", "/usr/local/bin:/usr/bin:/bin"}});
  ASSERT_EQ(f.cuda_toolkits.size(), 1u) << "/usr/bin/nvcc and /usr/lib/cuda are one toolkit";
  const auto& t = f.cuda_toolkits[0];
  EXPECT_EQ(t.root, "/usr/lib/cuda");
  EXPECT_EQ(t.version, "11.5.119");
  EXPECT_EQ(t.version_source, "version.txt");
  EXPECT_EQ(t.source, "path");
  EXPECT_TRUE(t.on_path);
  EXPECT_TRUE(t.ptxas);
  EXPECT_TRUE(t.libdevice);
  EXPECT_EQ(t.libraries, (std::vector<std::string>{"cudart", "cufft"}));
}

TEST(CudaToolkitProbe, DebianPackageWithoutVersionTxtHasNoVersion) {
  const json files = {{"/usr/bin/nvcc", kFile}, {"/usr/lib/cuda/bin", {{"dir", true}}}};
  const Facts f = probe(files, {{"PATH", "/usr/bin"}});
  ASSERT_EQ(f.cuda_toolkits.size(), 1u);
  EXPECT_EQ(f.cuda_toolkits[0].root, "/usr/lib/cuda");
  EXPECT_FALSE(f.cuda_toolkits[0].version) << "unknown, not guessed";
  EXPECT_FALSE(f.cuda_toolkits[0].version_source);
}

TEST(CudaToolkitProbe, EnvironmentVariableWinsOverTheDefaultLocation) {
  json files = runfile_toolkit("/usr/local/cuda-12.1", "12.1.105");
  files["/usr/local/cuda"] = link("cuda-12.1");
  const Facts home = probe(files, {{"CUDA_HOME", "/usr/local/cuda"}, {"PATH", "/usr/bin"}});
  ASSERT_EQ(home.cuda_toolkits.size(), 1u);
  EXPECT_EQ(home.cuda_toolkits[0].source, "CUDA_HOME");
  EXPECT_EQ(home.cuda_toolkits[0].root, "/usr/local/cuda-12.1");

  const Facts root = probe(files, {{"CUDA_ROOT", "/usr/local/cuda-12.1/"}});
  ASSERT_EQ(root.cuda_toolkits.size(), 1u);
  EXPECT_EQ(root.cuda_toolkits[0].source, "CUDA_ROOT");

  // The variable beats nvcc on PATH too.
  const Facts both = probe(
      files, {{"CUDA_PATH", "/usr/local/cuda-12.1"}, {"PATH", "/usr/local/cuda/bin:/usr/bin"}});
  ASSERT_EQ(both.cuda_toolkits.size(), 1u);
  EXPECT_EQ(both.cuda_toolkits[0].source, "CUDA_PATH");
  EXPECT_TRUE(both.cuda_toolkits[0].on_path);
}

TEST(CudaToolkitProbe, VariablesThatNameNothingInventNothing) {
  const Facts f = probe(json::object(), {{"CUDA_HOME", "/usr/local/cuda-10.0"},
                                         {"CUDA_PATH", "relative/cuda"},
                                         {"PATH", "/usr/bin:"}});
  EXPECT_TRUE(f.cuda_toolkits.empty());
}

TEST(CudaToolkitProbe, VersionFromCudaHeaderOnly) {
  const json files = {{"/opt/cuda/include/cuda.h", text("#ifndef __cuda_cuda_h__\n"
                                                        "#define __cuda_cuda_h__\n"
                                                        "#define CUDA_VERSION 11020\n")},
                      {"/opt/cuda/bin/nvcc", kFile}};
  const Facts f = probe(files);
  ASSERT_EQ(f.cuda_toolkits.size(), 1u);
  EXPECT_EQ(f.cuda_toolkits[0].root, "/opt/cuda");
  EXPECT_EQ(f.cuda_toolkits[0].version, "11.2");
  EXPECT_EQ(f.cuda_toolkits[0].version_source, "cuda.h");
  EXPECT_FALSE(f.cuda_toolkits[0].ptxas);
  EXPECT_FALSE(f.cuda_toolkits[0].libdevice);
}

TEST(CudaToolkitProbe, VersionTxtBeatsTheHeader) {
  const json files = {
      {"/usr/local/cuda-10.1/version.txt", text("CUDA Version 10.1.243\n")},
      {"/usr/local/cuda-10.1/include/cuda.h", text("#define CUDA_VERSION 10010\n")}};
  const Facts f = probe(files);
  ASSERT_EQ(f.cuda_toolkits.size(), 1u);
  EXPECT_EQ(f.cuda_toolkits[0].version, "10.1.243");
  EXPECT_EQ(f.cuda_toolkits[0].version_source, "version.txt");
}

TEST(CudaToolkitProbe, NvccOnPathOutsideTheUsualPlaces) {
  const std::string root = "/opt/nvidia/hpc_sdk/Linux_x86_64/24.1/cuda/12.3";
  const Facts f = probe(runfile_toolkit(root, "12.3.101"),
                        {{"PATH", "/usr/bin:" + root + "/bin:/opt/nvidia/hpc_sdk/bin"}});
  ASSERT_EQ(f.cuda_toolkits.size(), 1u);
  EXPECT_EQ(f.cuda_toolkits[0].root, root);
  EXPECT_EQ(f.cuda_toolkits[0].source, "path");
  EXPECT_TRUE(f.cuda_toolkits[0].on_path);
  EXPECT_EQ(f.cuda_toolkits[0].version, "12.3.101");
}

TEST(CudaToolkitProbe, NvccLinkOnPathLeadsToTheRealToolkit) {
  json files = runfile_toolkit("/usr/local/cuda-12.6", "12.6.77");
  files["/usr/bin/nvcc"] = link("/usr/local/cuda-12.6/bin/nvcc");
  const Facts f = probe(files, {{"PATH", "/usr/bin"}});
  ASSERT_EQ(f.cuda_toolkits.size(), 1u);
  EXPECT_EQ(f.cuda_toolkits[0].root, "/usr/local/cuda-12.6");
  EXPECT_EQ(f.cuda_toolkits[0].source, "path");
  EXPECT_TRUE(f.cuda_toolkits[0].on_path) << "its nvcc is what PATH finds";
}

TEST(CudaToolkitProbe, AWrapperScriptInAPlainPrefixIsNoToolkit) {
  const json files = {{"/usr/local/bin/nvcc", text("#!/bin/sh\nexec /x/bin/nvcc \"$@\"\n")},
                      {"/usr/local/lib/python3.11", {{"dir", true}}},
                      {"/usr/local/include", {{"dir", true}}}};
  const Facts f = probe(files, {{"PATH", "/usr/local/bin:/usr/bin"}});
  EXPECT_TRUE(f.cuda_toolkits.empty());
}

// What this build machine has: a toolkit that pip wheels assembled under /usr/local/cuda-13.0,
// lib64 -> lib, targets/x86_64-linux/{lib,include} -> ../../{lib,include}, a wrapper nvcc.
json pip_assembled_toolkit() {
  const std::string root = "/usr/local/cuda-13.0";
  json files = {
      {"/usr/local/cuda", link("/usr/local/cuda-13.0")},
      {"/usr/local/bin/nvcc", text("#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc \"$@\"\n")},
      {root + "/bin/nvcc", kFile},
      {root + "/bin/ptxas", kFile},
      {root + "/lib64", link("lib")},
      {root + "/targets/x86_64-linux/lib", link("../../lib")},
      {root + "/targets/x86_64-linux/include", link("../../include")},
      {root + "/include/cuda.h", {{"size", 1146681}}},
      {root + "/nvvm/libdevice/libdevice.10.bc", kFile},
      {root + "/dist-info/nvidia_cublas-13.1.0.3.dist-info/METADATA", kFile},
      {root + "/dist-info/nvidia_cuda_nvcc-13.0.88.dist-info/METADATA", kFile},
      {root + "/dist-info/nvidia_cuda_runtime-13.0.96.dist-info/METADATA", kFile},
      {root + "/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA", kFile}};
  for (const char* name :
       {"libcudart.so", "libcublas.so", "libcublasLt.so", "libcufft.so", "libcurand.so",
        "libcusolver.so", "libcusparse.so", "libnvrtc.so", "libnvJitLink.so"}) {
    files[root + "/lib/" + name] = link(std::string(name) + ".13");
    files[root + "/lib/" + name + ".13"] = kFile;
  }
  return files;
}

TEST(CudaToolkitProbe, PipAssembledToolkitLikeThisMachine) {
  const json env = {{"CUDA_HOME", "/usr/local/cuda"},
                    {"PATH", "/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin"}};
  const Facts f = probe(pip_assembled_toolkit(), env);
  ASSERT_EQ(f.cuda_toolkits.size(), 1u) << "not twice through lib64 -> lib or /usr/local/cuda";
  const auto& t = f.cuda_toolkits[0];
  EXPECT_EQ(t.root, "/usr/local/cuda-13.0");
  EXPECT_EQ(t.version, "13.0.96");
  EXPECT_EQ(t.version_source, "dist-info");
  EXPECT_EQ(t.source, "CUDA_HOME");
  EXPECT_TRUE(t.on_path);
  EXPECT_TRUE(t.libdevice);
  EXPECT_TRUE(t.ptxas);
  EXPECT_EQ(t.libraries,
            (std::vector<std::string>{"cudart", "cublas", "cublasLt", "cufft", "curand", "cusolver",
                                      "cusparse", "nvrtc", "nvJitLink"}));

  const Facts found_by_folder = probe(pip_assembled_toolkit(), {{"PATH", "/usr/bin"}});
  ASSERT_EQ(found_by_folder.cuda_toolkits.size(), 1u);
  EXPECT_EQ(found_by_folder.cuda_toolkits[0].source, "pip");
  EXPECT_FALSE(found_by_folder.cuda_toolkits[0].on_path);
}

TEST(CudaToolkitProbe, FactsJsonCarriesTheNewFields) {
  const Facts f = probe(pip_assembled_toolkit(), {{"PATH", "/usr/bin"}});
  const json j = json::parse(facts_to_json(f).dump());
  const json& t = j.at("cuda_toolkits").at(0);
  EXPECT_EQ(t.at("version_source"), "dist-info");
  EXPECT_EQ(t.at("libraries").at(0), "cudart");
  EXPECT_EQ(t.at("libdevice"), true);
  EXPECT_EQ(t.at("ptxas"), true);
}

TEST(ResolveLinks, FollowsRelativeAbsoluteAndChainedLinks) {
  const sys::ReplaySystem system(testing::linux_snapshot(
      {{"files",
        {{"/usr/local/cuda", link("/etc/alternatives/cuda")},
         {"/etc/alternatives/cuda", link("/usr/local/cuda-12.4")},
         {"/usr/local/cuda-12.4/lib64", link("targets/x86_64-linux/lib")},
         {"/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12", kFile},
         {"/opt/up/link", link("../../usr/local/cuda/lib64")},
         {"/loop/a", link("b")},
         {"/loop/b", link("a")}}}}));
  EXPECT_EQ(sys::real_path(system, "/usr/local/cuda/lib64/libcudart.so.12"),
            "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12");
  EXPECT_EQ(sys::real_path(system, "/opt/up/link"),
            "/usr/local/cuda-12.4/targets/x86_64-linux/lib");
  EXPECT_EQ(sys::real_path(system, "/usr//local/./cuda-12.4/"), "/usr/local/cuda-12.4");
  EXPECT_EQ(sys::real_path(system, "/not/there/.."), "/not");
  EXPECT_EQ(sys::real_path(system, "/"), "/");
  // A loop ends after a bounded number of hops instead of hanging.
  const std::string looped = sys::real_path(system, "/loop/a");
  EXPECT_TRUE(looped == "/loop/a" || looped == "/loop/b") << looped;
}

TEST(HeaderDefine, ReadsIntegerDefines) {
  const std::string header =
      "#define CUDA_VERSION_X 1\n"
      "#  define   CUDA_VERSION   12040 /* 12.4 */\n"
      "#define CUDNN_MAJOR 9\n";
  EXPECT_EQ(header_define(header, "CUDA_VERSION"), 12040);
  EXPECT_EQ(header_define(header, "CUDNN_MAJOR"), 9);
  EXPECT_FALSE(header_define(header, "CUDNN_MINOR"));
  EXPECT_FALSE(header_define("#define CUDNN_VERSION (CUDNN_MAJOR * 1000)\n", "CUDNN_VERSION"));
  EXPECT_FALSE(header_define("#define CUDA_VERSION 99999999999999999999\n", "CUDA_VERSION"));
}

TEST(DistInfoVersion, ParsesWheelDirectoryNames) {
  EXPECT_EQ(dist_info_version("nvidia_cudnn_cu13-9.19.0.56.dist-info", "nvidia_cudnn"), "9.19.0");
  EXPECT_EQ(dist_info_version("nvidia_cuda_runtime-13.0.96.dist-info", "nvidia_cuda_runtime"),
            "13.0.96");
  EXPECT_EQ(dist_info_version("nvidia_cuda_runtime_cu12-12.6.77.dist-info", "nvidia_cuda_runtime"),
            "12.6.77");
  EXPECT_FALSE(dist_info_version("nvidia_cudnn_frontend-1.5.2.dist-info", "nvidia_cudnn"));
  EXPECT_FALSE(dist_info_version("nvidia_cuda_runtime-13.0.96", "nvidia_cuda_runtime"));
  EXPECT_FALSE(dist_info_version("nvidia_cuda_runtime-x.dist-info", "nvidia_cuda_runtime"));
}

// On this build machine: CUDA 13.0 assembled from pip wheels with cuDNN 9.19 copied into it.
TEST(LiveMachineCudaStack, ToolkitAndCudnnAppearOnceEach) {
  const std::string root = "/usr/local/cuda-13.0";
  if (sys::make_live_system()->host().os != "linux") GTEST_SKIP() << "describes a Linux machine";
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) {
    GTEST_SKIP() << root << " does not exist here: not the build machine this test describes";
  }
  const auto live = sys::make_live_system();
  const Facts f = collect_facts(*live);

  const auto toolkits = std::count_if(f.cuda_toolkits.begin(), f.cuda_toolkits.end(),
                                      [&](const auto& t) { return t.root == root; });
  ASSERT_EQ(toolkits, 1) << facts_to_json(f).dump(2);
  // /usr/local/bin/nvcc here is a wrapper script: /usr/local is no toolkit of its own.
  EXPECT_EQ(f.cuda_toolkits.size(), 1u) << facts_to_json(f).dump(2);
  const auto& t = *std::find_if(f.cuda_toolkits.begin(), f.cuda_toolkits.end(),
                                [&](const auto& t) { return t.root == root; });
  ASSERT_TRUE(t.version);
  EXPECT_TRUE(t.version->starts_with("13.0.")) << *t.version;
  EXPECT_TRUE(t.version_source);
  EXPECT_FALSE(t.source.empty());
  EXPECT_TRUE(t.libdevice);
  for (const char* lib : {"cudart", "cublas"}) {
    EXPECT_NE(std::find(t.libraries.begin(), t.libraries.end(), lib), t.libraries.end()) << lib;
  }

  const auto cudnn = std::count_if(f.cudnn.begin(), f.cudnn.end(),
                                   [](const auto& c) { return c.version == "9.19.0"; });
  EXPECT_EQ(cudnn, 1) << facts_to_json(f).dump(2);
  for (const auto& c : f.cudnn) {
    if (c.version != "9.19.0") continue;
    EXPECT_TRUE(c.location.starts_with(root + "/")) << c.location;
  }
}

}  // namespace
}  // namespace gpuvet::probes
