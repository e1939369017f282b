// The real gpuvet binary: `explain` and `plan` take --format text|json|md (--json is --format
// json), a Windows snapshot is described with Windows paths, and what kb --sources prints cites
// public sources only.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_support.hpp"

namespace gpuvet {
namespace {

using testing::Outcome;

Outcome gpuvet(const std::string& arguments) {
  return testing::run_gpuvet(arguments);
}

std::string scenario(const std::string& name) {
  return std::string(GPUVET_SCENARIO_DIR) + "/" + name + "/snapshot.json";
}

TEST(FormatMd, ExplainAndPlanPrintMarkdownAndJsonStaysJson) {
  const std::string message =
      "--text \"Could not load dynamic library 'cudnn64_7.dll'; dlerror: cudnn64_7.dll not found\"";
  Outcome md = gpuvet("explain " + message + " --no-facts --format md");
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_TRUE(md.out.starts_with("## Causes found by gpuvet explain\n")) << md.out;
  EXPECT_NE(md.out.find("```text\n"), std::string::npos) << md.out;
  Outcome zh = gpuvet("explain " + message + " --no-facts --format md --lang zh");
  ASSERT_EQ(zh.status, 0) << zh.err;
  EXPECT_TRUE(zh.out.starts_with("## gpuvet explain 找到的原因\n")) << zh.out;
  // --json and --format json are one thing.
  Outcome json = gpuvet("explain " + message + " --no-facts --format json");
  Outcome flag = gpuvet("explain " + message + " --no-facts --json");
  EXPECT_EQ(json.out, flag.out);
  EXPECT_EQ(nlohmann::json::parse(json.out)["schema"], "gpuvet.explain/1");

  const std::string wish =
      "plan tensorflow==2.1 --os windows --cc 6.1 --driver 452.06 --python 3.7";
  Outcome plan = gpuvet(wish + " --format md");
  ASSERT_EQ(plan.status, 0) << plan.err;
  EXPECT_TRUE(plan.out.starts_with("## gpuvet plan: TensorFlow 2.1\n")) << plan.out;
  EXPECT_NE(plan.out.find("```bat\n"), std::string::npos);
  EXPECT_NE(plan.out.find("```powershell\n"), std::string::npos);
  Outcome plan_json = gpuvet(wish + " --format json");
  EXPECT_EQ(plan_json.out, gpuvet(wish + " --json").out);
  EXPECT_EQ(nlohmann::json::parse(plan_json.out)["schema"], "gpuvet.plan/1");
  // Before the verb too, as the other global options.
  EXPECT_EQ(gpuvet("--format md " + wish).out, plan.out);
  Outcome bad = gpuvet(wish + " --format html");
  EXPECT_EQ(bad.status, 2);
}

TEST(FormatMd, AWindowsSnapshotIsDescribedWithWindowsPathsAndItsRelease) {
  Outcome run =
      gpuvet("check --snapshot " + scenario("windows11_tf215_cuda123_native") + " --no-color");
  EXPECT_NE(run.out.find("Windows 11 Pro 23H2 (10.0.22631)"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("C:/"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("C:\\"), std::string::npos) << run.out;
  Outcome which = gpuvet("which cudnn64_7.dll --snapshot " +
                         scenario("windows10_stray_cudnn_in_system32") + " --no-color");
  EXPECT_EQ(which.out.find("C:/"), std::string::npos) << which.out;
}

TEST(FormatMd, KbSourcesCiteOnlyPublicSources) {
  for (const char* query :
       {"kb framework tensorflow", "kb framework torch", "kb framework jax", "kb framework cupy",
        "kb framework paddle", "kb framework onnxruntime", "kb cudnn 8.9", "kb cudnn 7.6",
        "kb cuda 11.8", "kb gpu \"RTX 3060\""}) {
    for (const char* format : {" --sources --no-color", " --json"}) {
      Outcome run = gpuvet(std::string(query) + format);
      EXPECT_EQ(run.out.find("shared/"), std::string::npos) << query;
      EXPECT_EQ(run.out.find("reference/"), std::string::npos) << query;
      size_t hex = 0;
      for (char c : run.out) {
        hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ? hex + 1 : 0;
        ASSERT_LT(hex, 40u) << query << ": a full commit hash";
      }
    }
  }
}

}  // namespace
}  // namespace gpuvet
