// The loading rules of data/library_load_rules.csv: which row applies to a build, and its verdict
// on the version of the copy the search order loads. Every row has a source and a known rule.
#include <gtest/gtest.h>

#include <set>

#include "checks/load_rules.hpp"
#include "core/version.hpp"
#include "facts/facts.hpp"
#include "probes/copy_version.hpp"
#include "test_support.hpp"

namespace gpuvet::checks {
namespace {

const kb::Kb& kb() {
  return testing::embedded_kb();
}

LoadRule rule_for(const std::string& family, const std::string& library,
                  const std::string& platform, const std::string& compiled) {
  auto found = find_load_rule(kb(), family, library, platform, compiled);
  EXPECT_TRUE(found.ok());
  EXPECT_TRUE(found.ok() && found->has_value()) << family << " " << library << " " << compiled;
  return found.ok() && found->has_value() ? **found : LoadRule{};
}

TEST(LoadRules, EveryRowHasASourceAndAKnownRule) {
  const auto& t = testing::kb_table("library_load_rules");
  ASSERT_GT(t.size(), 0u);
  const std::set<std::string> rules = {"same_major_minor_at_least", "same_major_minor",
                                       "same_major"};
  for (size_t row = 0; row < t.size(); ++row) {
    EXPECT_FALSE(t.cell(row, "source").empty()) << t.line_of(row);
    EXPECT_TRUE(rules.contains(t.cell(row, "rule"))) << t.line_of(row);
    EXPECT_TRUE(version::is_dotted(t.cell(row, "compiled_from"))) << t.line_of(row);
    const std::string& to = t.cell(row, "compiled_to");
    EXPECT_TRUE(to.empty() || version::is_dotted(to)) << t.line_of(row);
  }
}

// TensorFlow 2.1 (cuDNN 7.6) refuses the 7.0.5 of CUDA 9.0's folder; TF 2.10 (8.1) the stray
// 8.0.4 in System32; a newer minor of the same major, or another patch level, is accepted.
TEST(LoadRules, TensorflowCudnnSameMajorMinorAtLeast) {
  const LoadRule r = rule_for("tensorflow", "cudnn", "windows", "7.6");
  EXPECT_EQ(r.rule, "same_major_minor_at_least");
  EXPECT_NE(r.source.find("IsSourceCompatibleWithCudnnLibrary"), std::string::npos);
  EXPECT_EQ(judge_load(r.rule, "7.6", std::string("7.0.5")), LoadVerdict::rejected);
  EXPECT_EQ(judge_load(r.rule, "7.6", std::string("7.6.5")), LoadVerdict::accepted);
  EXPECT_EQ(judge_load(r.rule, "7.6.5", std::string("7.6.0")), LoadVerdict::accepted);
  EXPECT_EQ(judge_load(r.rule, "8.1", std::string("8.0.4")), LoadVerdict::rejected);
  EXPECT_EQ(judge_load(r.rule, "8.1", std::string("8.2.1")), LoadVerdict::accepted);
  EXPECT_EQ(judge_load(r.rule, "8.1", std::string("9.1.0")), LoadVerdict::rejected);
  EXPECT_EQ(judge_load(r.rule, "8.7", std::string("8.10.0")), LoadVerdict::accepted);
}

TEST(LoadRules, UnknownVersionsAreUnknownNotGuessed) {
  const std::string rule = "same_major_minor_at_least";
  EXPECT_EQ(judge_load(rule, "8.1", std::nullopt), LoadVerdict::unknown);
  EXPECT_EQ(judge_load(rule, "8.1", std::string("8")), LoadVerdict::unknown);
  EXPECT_EQ(judge_load(rule, "8", std::string("8.0.4")), LoadVerdict::unknown);
  EXPECT_EQ(judge_load(rule, "8.1", std::string("6.14.11.7065")), LoadVerdict::rejected);
  // Another major is refused whatever the minor.
  EXPECT_EQ(judge_load(rule, "8.1", std::string("7")), LoadVerdict::rejected);
}

TEST(LoadRules, BeforeCudnn7TheMinorMustMatch) {
  for (const char* family : {"tensorflow", "torch"}) {
    const LoadRule r = rule_for(family, "cudnn", "linux", "6.0");
    EXPECT_EQ(r.rule, "same_major_minor") << family;
    EXPECT_EQ(judge_load(r.rule, "6.0", std::string("6.1.0")), LoadVerdict::rejected);
    EXPECT_EQ(judge_load(r.rule, "6.0", std::string("6.0.21")), LoadVerdict::accepted);
  }
}

// torch/backends/cudnn/__init__.py: "PyTorch was compiled against (8, 9, 2) but found runtime
// version (8, 4, 0)".
TEST(LoadRules, TorchCudnn) {
  const LoadRule r = rule_for("torch", "cudnn", "linux", "8.9");
  EXPECT_EQ(r.framework, "torch");
  EXPECT_NE(r.source.find("torch/backends/cudnn/__init__.py"), std::string::npos);
  EXPECT_EQ(judge_load(r.rule, "8.9", std::string("8.4.0")), LoadVerdict::rejected);
  EXPECT_EQ(judge_load(r.rule, "8.9", std::string("8.2.4")), LoadVerdict::rejected);
  EXPECT_EQ(judge_load(r.rule, "9.1", std::string("9.5.1")), LoadVerdict::accepted);
}

TEST(LoadRules, OtherFrameworksFallBackToNvidiasRule) {
  const LoadRule r = rule_for("jax", "cudnn", "linux", "9.1");
  EXPECT_EQ(r.framework, "*");
  EXPECT_EQ(r.rule, "same_major_minor_at_least");
}

// TensorFlow's cudart by name: cudart64_101.dll is CUDA 10.1 only; cudart64_110.dll any 11.x.
TEST(LoadRules, TensorflowCudart) {
  const LoadRule old = rule_for("tensorflow", "cudart", "windows", "10.1");
  EXPECT_EQ(old.rule, "same_major_minor");
  EXPECT_EQ(judge_load(old.rule, "10.1", std::string("10.0.130")), LoadVerdict::rejected);
  EXPECT_EQ(judge_load(old.rule, "10.1", std::string("10.1.243")), LoadVerdict::accepted);
  const LoadRule eleven = rule_for("tensorflow", "cudart", "windows", "11.2");
  EXPECT_EQ(eleven.rule, "same_major");
  EXPECT_EQ(judge_load(eleven.rule, "11.2", std::string("11.0.221")), LoadVerdict::accepted);
  EXPECT_EQ(judge_load(eleven.rule, "11.2", std::string("10.1")), LoadVerdict::rejected);
  EXPECT_EQ(rule_for("tensorflow", "cudart", "linux", "10.0").rule, "same_major_minor");
  EXPECT_EQ(rule_for("tensorflow", "cudart", "linux", "12.3").rule, "same_major");
  auto none = find_load_rule(kb(), "torch", "cudart", "linux", "12.1");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

Facts windows_facts() {
  Facts f;
  f.os.family = "windows";
  CudaToolkitFact t;
  t.root = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v9.0";
  t.version = "9.0.176";
  t.source = "path";
  f.cuda_toolkits.push_back(t);
  CudnnFact header_only;
  header_only.location = t.root + "/include";
  header_only.version = "7.0.5";
  f.cudnn.push_back(header_only);
  CudnnFact system32;
  system32.location = "C:/Windows/system32";
  system32.version = "8.0.4";
  f.cudnn.push_back(system32);
  return f;
}

TEST(CopyVersion, CudnnFromTheFactsNotFromNvidiasFileNumbering) {
  const Facts f = windows_facts();
  // The DLL in a toolkit's bin, its cudnn.h in include.
  EXPECT_EQ(probes::copy_version(f, "cudnn64_7.dll",
                                 "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v9.0/bin/"
                                 "cudnn64_7.dll",
                                 std::string("6.14.11.9000")),
            "7.0.5");
  // The cuDNN found in the copy's own folder (cudnnGetVersion() in the child), any case.
  EXPECT_EQ(
      probes::copy_version(f, "cudnn64_8.dll", "C:/Windows/System32/cudnn64_8.dll", std::nullopt),
      "8.0.4");
  // 6.14.11.7065 is no cuDNN version; nothing else is known.
  EXPECT_EQ(probes::copy_version(f, "cudnn64_7.dll", "D:/tools/cudnn64_7.dll",
                                 std::string("6.14.11.7065")),
            std::nullopt);
  // A version resource of cuDNN's own major is cuDNN's.
  EXPECT_EQ(
      probes::copy_version(f, "cudnn64_8.dll", "D:/tools/cudnn64_8.dll", std::string("8.1.0.77")),
      "8.1.0");
}

TEST(CopyVersion, CudartFromTheToolkitOrTheDllName) {
  const Facts f = windows_facts();
  EXPECT_EQ(probes::copy_version(
                f, "cudart64_90.dll",
                "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v9.0/bin/cudart64_90.dll",
                std::string("6.14.11.9000")),
            "9.0.176");
  EXPECT_EQ(probes::copy_version(f, "cudart64_101.dll", "C:/Windows/System32/cudart64_101.dll",
                                 std::string("6.14.11.10010")),
            "10.1");
  EXPECT_EQ(probes::copy_version(f, "cudart64_110.dll", "C:/Windows/System32/cudart64_110.dll",
                                 std::nullopt),
            "11");
  Facts linux_facts;
  linux_facts.os.family = "linux";
  EXPECT_EQ(probes::copy_version(linux_facts, "libcudnn.so.8", "/opt/cudnn/lib64/libcudnn.so.8.2.4",
                                 std::string("8.2.4")),
            "8.2.4");
  EXPECT_EQ(probes::copy_version(linux_facts, "libcudart.so.11.0",
                                 "/usr/local/cuda-11.8/lib64/libcudart.so.11.8.89",
                                 std::string("11.8.89")),
            "11.8.89");
}

}  // namespace
}  // namespace gpuvet::checks
