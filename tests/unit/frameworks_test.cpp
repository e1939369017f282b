// The framework registry: every plug-in complete and consistent with the knowledge base, the
// command line's names, and the build files the plug-ins read.
#include <set>

#include "frameworks/framework.hpp"
#include "frameworks/registry.hpp"
#include "kb/queries.hpp"
#include "plan/plan.hpp"
#include "python/framework_files.hpp"
#include "test_support.hpp"

namespace gpuvet::frameworks {
namespace {

TEST(FrameworkRegistry, FamiliesAndAliasesAreUnique) {
  std::set<std::string> names;
  for (const Framework* f : all()) {
    EXPECT_TRUE(names.insert(std::string(f->family)).second) << f->family;
    for (const auto alias : f->aliases)
      EXPECT_TRUE(names.insert(std::string(alias)).second) << alias;
    EXPECT_FALSE(f->display_name.empty()) << f->family;
    EXPECT_FALSE(f->short_name.empty()) << f->family;
    EXPECT_EQ(find(f->family), f);
  }
  EXPECT_EQ(find("PyTorch"), &torch());
  EXPECT_EQ(find(" paddlepaddle "), &paddle());
  EXPECT_EQ(find("caffe"), nullptr);
}

TEST(FrameworkRegistry, EveryFamilyHasItsPackagesInTheKnowledgeBase) {
  const kb::Kb& kb = testing::embedded_kb();
  for (const Framework* f : all()) {
    auto rows = kb::rows_where(kb, "python_packages", "family", std::string(f->family));
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    EXPECT_FALSE(rows->empty()) << f->family << " has no row in data/python_packages.csv";
  }
}

TEST(FrameworkRegistry, EveryPlannableFrameworkHasSourcedBuilds) {
  const kb::Kb& kb = testing::embedded_kb();
  for (const Framework* f : all()) {
    ASSERT_NE(f->builds, nullptr) << f->family << " cannot be planned";
    EXPECT_NE(f->verify_command, nullptr) << f->family;
    EXPECT_FALSE(f->kb_table.empty()) << f->family;
    auto builds = f->builds(kb);
    ASSERT_TRUE(builds.ok()) << f->family << ": " << builds.error().message;
    EXPECT_FALSE(builds->empty()) << f->family;
    for (const auto& b : *builds) {
      EXPECT_EQ(b.framework, f->family);
      EXPECT_TRUE(b.platform == "linux" || b.platform == "windows") << f->family << b.platform;
      EXPECT_FALSE(b.sources.empty()) << f->family << " " << b.version;
      EXPECT_FALSE(b.package.empty()) << f->family << " " << b.version;
    }
  }
}

TEST(FrameworkSpec, FamiliesAliasesAndDistributions) {
  const kb::Kb& kb = testing::embedded_kb();
  auto spec = parse_spec("PyTorch==2.1", kb);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->framework, &torch());
  EXPECT_EQ(spec->version, "2.1");
  for (const auto& [text, framework] : std::vector<std::pair<std::string, const Framework*>>{
           {"tensorflow-gpu==2.10", &tensorflow()},
           {"paddlepaddle-gpu", &paddle()},
           {"onnxruntime-gpu==1.18", &onnxruntime()},
           {"onnxruntime", &onnxruntime()},
           {"cupy-cuda12x", &cupy()},
           {"cupy_cuda102", &cupy()},
           {"jax-cuda12-plugin", &jax()}}) {
    auto parsed = parse_spec(text, kb);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.error().message;
    EXPECT_EQ(parsed->framework, framework) << text;
  }
  auto unknown = parse_spec("caffe", kb);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("onnxruntime"), std::string::npos);
  EXPECT_FALSE(parse_spec("tensorflow==two", kb).ok());
  EXPECT_FALSE(parse_spec("torch==", kb).ok());
}

TEST(FrameworkPlugins, CupyNamesItsCudaInTheDistributionName) {
  ASSERT_NE(cupy().unlisted_gpu_package, nullptr);
  EXPECT_EQ(cupy().unlisted_gpu_package("cupy-cuda12x"), "12");
  EXPECT_EQ(cupy().unlisted_gpu_package("cupy-cuda102"), "10.2");
  EXPECT_EQ(cupy().unlisted_gpu_package("cupy"), std::nullopt);
  EXPECT_EQ(cupy().unlisted_gpu_package("cupy-cudax"), std::nullopt);
}

TEST(FrameworkPlugins, MinimumCapabilityFamilies) {
  FrameworkFact f;
  f.name = "torch";
  f.cuda = "12.1";
  EXPECT_EQ(torch().min_cc_family(f), "torch-cu121");
  f.cuda.reset();
  EXPECT_EQ(torch().min_cc_family(f), "torch");
  f.name = "jax";
  f.cuda = "12";
  EXPECT_EQ(jax().min_cc_family(f), "jax-cuda12");
}

// onnxruntime's setup.py writes these lines into onnxruntime/capi/build_and_package_info.py.
TEST(OnnxRuntimeBuildInfo, CudaCpuAndRocmBuilds) {
  auto gpu = python::parse_onnxruntime_build_info(
      "package_name = 'onnxruntime-gpu'\n__version__ = '1.18.1'\ncuda_version = '12.4'\n"
      "cudnn_version = '9.1'\n");
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->version, "1.18.1");
  EXPECT_EQ(gpu->cuda_build, true);
  EXPECT_EQ(gpu->cuda, "12.4");
  EXPECT_EQ(gpu->cudnn, "9.1");
  auto cpu = python::parse_onnxruntime_build_info(
      "package_name = 'onnxruntime'\n__version__ = '1.18.1'\n");
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->cuda_build, false);
  EXPECT_EQ(cpu->cuda, std::nullopt);
  auto rocm = python::parse_onnxruntime_build_info(
      "package_name = 'onnxruntime-rocm'\n__version__ = '1.17.0'\nrocm_version = '5.7'\n");
  ASSERT_TRUE(rocm);
  EXPECT_EQ(rocm->rocm_build, true);
  EXPECT_FALSE(python::parse_onnxruntime_build_info("x = 1\n"));
  EXPECT_FALSE(python::parse_onnxruntime_build_info(""));
}

}  // namespace
}  // namespace gpuvet::frameworks
