#include <gtest/gtest.h>

#include "facts/facts.hpp"
#include "probes/probes.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

using nlohmann::json;

const json kFile = {{"size", 4096}};

json link(const std::string& target) {
  return {{"link", target}};
}

json text(const std::string& contents) {
  return {{"text", contents}};
}

std::string version_header(int major, int minor, int patch) {
  return "#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n"
         "#define CUDNN_MAJOR " +
         std::to_string(major) + "\n#define CUDNN_MINOR " + std::to_string(minor) +
         "\n#define CUDNN_PATCHLEVEL " + std::to_string(patch) +
         "\n\n#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n"
         "#endif\n";
}

// A toolkit the toolkit probe finds (a version.json), for cuDNN to be copied into.
json toolkit(const std::string& root, const std::string& version) {
  return {{root + "/version.json", text(json{{"cuda", {{"version", version}}}}.dump())},
          {root + "/bin/nvcc", kFile}};
}

// libcudnn.so -> libcudnn.so.M -> libcudnn.so.M.m.p, as NVIDIA's tarballs and packages have it.
json library_chain(const std::string& dir, const std::string& base, const std::string& version) {
  const std::string major = version.substr(0, version.find('.'));
  return {{dir + "/" + base + ".so", link(base + ".so." + major)},
          {dir + "/" + base + ".so." + major, link(base + ".so." + version)},
          {dir + "/" + base + ".so." + version, kFile}};
}

Facts probe(const json& files, const json& env = json::object()) {
  const sys::ReplaySystem system(testing::linux_snapshot({{"files", files}, {"env", env}}));
  return collect_facts(system);
}

TEST(CudnnProbe, Cudnn7DefinesItsVersionInCudnnH) {
  json files = toolkit("/usr/local/cuda-10.0", "10.0.130");
  files["/usr/local/cuda-10.0/include/cudnn.h"] =
      text("/* cudnn : Neural Networks Library */\n" + version_header(7, 6, 5));
  files.update(library_chain("/usr/local/cuda-10.0/lib64", "libcudnn", "7.6.5"));
  files["/usr/local/cuda-10.0/lib64/libcudnn_static.a"] = kFile;
  const Facts f = probe(files);
  ASSERT_EQ(f.cudnn.size(), 1u);
  const auto& c = f.cudnn[0];
  EXPECT_EQ(c.version, "7.6.5");
  EXPECT_EQ(c.source, "header");
  EXPECT_EQ(c.location, "/usr/local/cuda-10.0/lib64");
  EXPECT_EQ(c.header_version, "7.6.5");
  EXPECT_EQ(c.library_version, "7.6.5");
  EXPECT_TRUE(c.libraries.empty());
}

TEST(CudnnProbe, Cudnn8WithSplitLibraries) {
  json files = toolkit("/usr/local/cuda-11.8", "11.8.0");
  const std::string lib = "/usr/local/cuda-11.8/lib64";
  // From 8.0 on cudnn.h only includes cudnn_version.h.
  files["/usr/local/cuda-11.8/include/cudnn.h"] = text("#include \"cudnn_version.h\"\n");
  files["/usr/local/cuda-11.8/include/cudnn_version.h"] = text(version_header(8, 9, 7));
  files.update(library_chain(lib, "libcudnn", "8.9.7"));
  files.update(library_chain(lib, "libcudnn_ops_infer", "8.9.7"));
  files.update(library_chain(lib, "libcudnn_cnn_infer", "8.9.7"));
  files.update(library_chain(lib, "libcudnn_adv_train", "8.9.7"));
  const Facts f = probe(files);
  ASSERT_EQ(f.cudnn.size(), 1u);
  EXPECT_EQ(f.cudnn[0].version, "8.9.7");
  EXPECT_EQ(f.cudnn[0].source, "header");
  EXPECT_EQ(f.cudnn[0].library_version, "8.9.7");
  EXPECT_EQ(f.cudnn[0].libraries,
            (std::vector<std::string>{"cudnn_adv_train", "cudnn_cnn_infer", "cudnn_ops_infer"}));
}

TEST(CudnnProbe, Cudnn9FromDebianPackagesInTheSystemDirectories) {
  const std::string lib = "/usr/lib/x86_64-linux-gnu";
  json files = {
      // Merged /usr: /lib/x86_64-linux-gnu is the same directory.
      {"/lib", link("usr/lib")},
      {"/usr/include/cudnn_version.h", link("/etc/alternatives/cudnn_version_h")},
      {"/etc/alternatives/cudnn_version_h",
       link("/usr/include/x86_64-linux-gnu/cudnn_version_v9.h")},
      {"/usr/include/x86_64-linux-gnu/cudnn_version_v9.h", text(version_header(9, 1, 0))}};
  files.update(library_chain(lib, "libcudnn", "9.1.0"));
  files.update(library_chain(lib, "libcudnn_graph", "9.1.0"));
  files.update(library_chain(lib, "libcudnn_ops", "9.1.0"));
  const Facts f = probe(files);
  ASSERT_EQ(f.cudnn.size(), 1u) << "not again through /lib -> usr/lib";
  EXPECT_EQ(f.cudnn[0].location, lib);
  EXPECT_EQ(f.cudnn[0].version, "9.1.0");
  EXPECT_EQ(f.cudnn[0].source, "header");
  EXPECT_EQ(f.cudnn[0].library_version, "9.1.0");
  EXPECT_EQ(f.cudnn[0].libraries, (std::vector<std::string>{"cudnn_graph", "cudnn_ops"}));
}

TEST(CudnnProbe, HeaderAndLibraryThatDisagreeAreBothVisible) {
  json files = toolkit("/usr/local/cuda-12.4", "12.4.1");
  files["/usr/local/cuda-12.4/include/cudnn_version.h"] = text(version_header(8, 9, 7));
  files.update(library_chain("/usr/local/cuda-12.4/lib64", "libcudnn", "9.1.0"));
  const Facts f = probe(files);
  ASSERT_EQ(f.cudnn.size(), 1u);
  EXPECT_EQ(f.cudnn[0].header_version, "8.9.7");
  EXPECT_EQ(f.cudnn[0].library_version, "9.1.0");
  EXPECT_EQ(f.cudnn[0].version, "8.9.7");
  EXPECT_EQ(f.cudnn[0].source, "header");
  const json j = facts_to_json(f);
  EXPECT_EQ(j["cudnn"][0]["header_version"], "8.9.7");
  EXPECT_EQ(j["cudnn"][0]["library_version"], "9.1.0");
}

TEST(CudnnProbe, LdLibraryPathCopiesOnceEach) {
  json files = toolkit("/usr/local/cuda-12.4", "12.4.1");
  files["/usr/local/cuda"] = link("/usr/local/cuda-12.4");
  files["/usr/local/cuda-12.4/include/cudnn_version.h"] = text(version_header(9, 1, 0));
  files.update(library_chain("/usr/local/cuda-12.4/lib64", "libcudnn", "9.1.0"));
  files["/opt/cudnn-8.6/include/cudnn_version.h"] = text(version_header(8, 6, 0));
  files.update(library_chain("/opt/cudnn-8.6/lib", "libcudnn", "8.6.0"));
  files["/opt/empty/lib/libfoo.so"] = kFile;
  const Facts f = probe(
      files, {{"LD_LIBRARY_PATH", "/opt/cudnn-8.6/lib:/usr/local/cuda/lib64::/opt/empty/lib"}});
  ASSERT_EQ(f.cudnn.size(), 2u) << facts_to_json(f).dump(2);
  EXPECT_EQ(f.cudnn[0].location, "/usr/local/cuda-12.4/lib64");
  EXPECT_EQ(f.cudnn[0].version, "9.1.0");
  EXPECT_EQ(f.cudnn[1].location, "/opt/cudnn-8.6/lib");
  EXPECT_EQ(f.cudnn[1].version, "8.6.0");
  EXPECT_EQ(f.cudnn[1].header_version, "8.6.0");
}

TEST(CudnnProbe, LdLibraryPathCopyWithoutHeadersTakesTheFileName) {
  json files = library_chain("/home/ana/cudnn/lib", "libcudnn", "8.2.1");
  const Facts f = probe(files, {{"LD_LIBRARY_PATH", "/home/ana/cudnn/lib"}});
  ASSERT_EQ(f.cudnn.size(), 1u);
  EXPECT_EQ(f.cudnn[0].version, "8.2.1");
  EXPECT_EQ(f.cudnn[0].source, "library");
  EXPECT_FALSE(f.cudnn[0].header_version);
}

// This build machine: cuDNN 9.19 from pip wheels copied into /usr/local/cuda-13.0, whose
// lib64 -> lib; its libraries carry only the major (libcudnn.so.9).
json pip_assembled_with_cudnn(bool with_header) {
  const std::string root = "/usr/local/cuda-13.0";
  json files = {{"/usr/local/cuda", link(root)},
                {root + "/bin/nvcc", kFile},
                {root + "/lib64", link("lib")},
                {root + "/targets/x86_64-linux/lib", link("../../lib")},
                {root + "/targets/x86_64-linux/include", link("../../include")},
                {root + "/dist-info/nvidia_cuda_runtime-13.0.96.dist-info/METADATA", kFile},
                {root + "/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA", kFile},
                {root + "/lib/libcudart.so.13", kFile}};
  if (with_header) {
    files[root + "/include/cudnn_version.h"] = text(version_header(9, 19, 0));
    files[root + "/include/cudnn.h"] = text("#include \"cudnn_version.h\"\n");
  }
  for (const char* base : {"libcudnn", "libcudnn_adv", "libcudnn_cnn", "libcudnn_graph",
                           "libcudnn_engines_precompiled", "libcudnn_ops"}) {
    files[root + "/lib/" + base + ".so"] = link(std::string(base) + ".so.9");
    files[root + "/lib/" + base + ".so.9"] = kFile;
  }
  return files;
}

TEST(CudnnProbe, CopyInsideAPipAssembledToolkitOnce) {
  const json env = {{"CUDA_HOME", "/usr/local/cuda"},
                    {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64:/usr/local/cuda-13.0/lib"}};
  const Facts f = probe(pip_assembled_with_cudnn(true), env);
  ASSERT_EQ(f.cudnn.size(), 1u) << facts_to_json(f).dump(2);
  const auto& c = f.cudnn[0];
  EXPECT_EQ(c.location, "/usr/local/cuda-13.0/lib");
  EXPECT_EQ(c.version, "9.19.0");
  EXPECT_EQ(c.source, "header");
  EXPECT_EQ(c.library_version, "9") << "the file name says only the major";
  EXPECT_EQ(c.libraries,
            (std::vector<std::string>{"cudnn_adv", "cudnn_cnn", "cudnn_engines_precompiled",
                                      "cudnn_graph", "cudnn_ops"}));
}

TEST(CudnnProbe, DistInfoGivesTheVersionWhenNoHeaderDoes) {
  const Facts f = probe(pip_assembled_with_cudnn(false));
  ASSERT_EQ(f.cudnn.size(), 1u);
  EXPECT_EQ(f.cudnn[0].version, "9.19.0");
  EXPECT_EQ(f.cudnn[0].source, "dist-info");
  EXPECT_FALSE(f.cudnn[0].header_version);
  EXPECT_EQ(f.cudnn[0].library_version, "9");
}

TEST(CudnnProbe, HeadersWithoutALibraryAreACopyToo) {
  const Facts f = probe({{"/usr/include/cudnn.h", text(version_header(7, 6, 5))}});
  ASSERT_EQ(f.cudnn.size(), 1u);
  EXPECT_EQ(f.cudnn[0].location, "/usr/include");
  EXPECT_EQ(f.cudnn[0].version, "7.6.5");
  EXPECT_EQ(f.cudnn[0].source, "header");
  EXPECT_FALSE(f.cudnn[0].library_version);
}

TEST(CudnnProbe, OnlyTheSonameGivesOnlyTheMajor) {
  const Facts f = probe({{"/usr/lib64/libcudnn.so.8", kFile}});
  ASSERT_EQ(f.cudnn.size(), 1u);
  EXPECT_EQ(f.cudnn[0].location, "/usr/lib64");
  EXPECT_EQ(f.cudnn[0].version, "8");
  EXPECT_EQ(f.cudnn[0].library_version, "8");
  EXPECT_EQ(f.cudnn[0].source, "library");
}

TEST(CudnnProbe, TwoMajorsInOneDirectoryAreTwoCopies) {
  json files = library_chain("/usr/lib/x86_64-linux-gnu", "libcudnn", "8.9.7");
  files["/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0"] = kFile;
  files["/usr/lib/x86_64-linux-gnu/libcudnn.so.9"] = link("libcudnn.so.9.1.0");
  const Facts f = probe(files);
  ASSERT_EQ(f.cudnn.size(), 2u);
  EXPECT_EQ(f.cudnn[0].library_version, "8.9.7");
  EXPECT_EQ(f.cudnn[1].library_version, "9.1.0");
}

TEST(CudnnProbe, NothingFoundIsNothingReported) {
  const Facts f = probe({{"/usr/lib/x86_64-linux-gnu/libcudnn.so", link("libcudnn.so.8")},
                         {"/usr/include/cudnn.h", text("#include \"cudnn_version.h\"\n")},
                         {"/usr/lib/x86_64-linux-gnu/libcudnn_frontend.a", kFile}},
                        {{"LD_LIBRARY_PATH", "relative/lib:/missing/lib"}});
  EXPECT_TRUE(f.cudnn.empty()) << facts_to_json(f).dump(2);
}

}  // namespace
}  // namespace gpuvet::probes
