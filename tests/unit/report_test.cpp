#include "report/report.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace gpuvet::report {
namespace {

Finding make(std::string id, Severity severity, Layer layer, std::string title) {
  Finding f;
  f.id = std::move(id);
  f.severity = severity;
  f.layer = layer;
  f.title = std::move(title);
  f.evidence = {"evidence | with pipe"};
  f.fix = {"do this"};
  return f;
}

Report sample() {
  Report r;
  r.tool = "gpuvet 0.1.0";
  r.facts.os.family = "linux";
  r.facts.os.name = "Debian GNU/Linux 12 (bookworm)";
  r.facts.os.arch = "x86_64";
  r.findings = {
      make("gpu.not_visible", Severity::error, Layer::hardware, "hidden GPU"),
      make("env.log_level_hides_errors", Severity::warning, Layer::framework, "quiet TF")};
  r.summary = {1, 1, false};
  return r;
}

TEST(JsonReport, FollowsTheCheckContract) {
  const auto doc = nlohmann::json::parse(render_json(sample()));
  EXPECT_EQ(doc["schema"], "gpuvet.check/1");
  EXPECT_EQ(doc["tool"], "gpuvet 0.1.0");
  for (const char* key : {"os", "driver", "gpus", "cuda_toolkits", "cudnn", "python_envs"}) {
    EXPECT_TRUE(doc["facts"].contains(key)) << key;
  }
  EXPECT_TRUE(doc["facts"]["driver"].is_null()) << "unknown is null, never invented";
  EXPECT_TRUE(doc["facts"]["gpus"].is_array());
  EXPECT_EQ(doc["facts"]["os"]["family"], "linux");
  EXPECT_FALSE(doc["facts"]["os"]["wsl"]);
  const auto& f = doc["findings"][0];
  EXPECT_EQ(f["id"], "gpu.not_visible");
  EXPECT_EQ(f["severity"], "error");
  EXPECT_EQ(f["layer"], "hardware");
  EXPECT_EQ(f["title"], "hidden GPU");
  EXPECT_EQ(f["evidence"][0], "evidence | with pipe");
  EXPECT_EQ(f["fix"][0], "do this");
  EXPECT_EQ(doc["summary"]["errors"], 1);
  EXPECT_EQ(doc["summary"]["warnings"], 1);
  EXPECT_EQ(doc["summary"]["gpu_ready"], false);
}

TEST(TextReport, LayersInOrderWithTheVerdictNamingWhatToFixFirst) {
  const std::string text = render_text(sample(), testing::messages(), false);
  const size_t hardware = text.find("Hardware");
  const size_t driver = text.find("Driver");
  const size_t framework = text.find("Framework");
  const size_t runtime = text.find("Runtime");
  ASSERT_NE(hardware, std::string::npos);
  EXPECT_LT(hardware, driver);
  EXPECT_LT(driver, framework);
  EXPECT_LT(framework, runtime);
  EXPECT_NE(text.find("✖ hidden GPU"), std::string::npos);
  EXPECT_NE(text.find("⚠ quiet TF"), std::string::npos);
  EXPECT_NE(text.find("fix: do this"), std::string::npos);
  EXPECT_NE(text.find("Fix first: hidden GPU (gpu.not_visible)"), std::string::npos) << text;
  EXPECT_NE(text.find("Then: env.log_level_hides_errors"), std::string::npos);
  EXPECT_NE(text.find("Debian GNU/Linux 12 (bookworm)"), std::string::npos);
}

TEST(TextReport, ColourOnlyWhenAsked) {
  EXPECT_EQ(render_text(sample(), testing::messages(), false).find('\x1b'), std::string::npos);
  EXPECT_NE(render_text(sample(), testing::messages(), true).find('\x1b'), std::string::npos);
}

TEST(TextReport, UnknownLayersSayUnknownAndKnownFactsShowUp) {
  Report r = sample();
  r.findings.clear();
  r.summary = {};
  GpuFact gpu;
  gpu.name = "NVIDIA H200";
  gpu.compute_capability = "9.0";
  gpu.memory_mib = 143771;
  r.facts.gpus.push_back(gpu);
  const std::string text = render_text(r, testing::messages(), false);
  EXPECT_NE(text.find("✔ GPU 0: NVIDIA H200 · compute capability 9.0 · 143771 MiB"),
            std::string::npos)
      << text;
  // An empty layer says what was searched, never "nothing known".
  EXPECT_NE(text.find("no CUDA toolkit: looked in PATH"), std::string::npos) << text;
  EXPECT_NE(text.find("gpuvet verify proves that the GPU computes"), std::string::npos) << text;
  EXPECT_EQ(text.find("nothing known yet"), std::string::npos) << text;
  EXPECT_NE(text.find("No problems found"), std::string::npos);
}

TEST(TextReport, ACudnnHeaderAndLibraryThatDisagreeAreNotAPass) {
  Report r = sample();
  r.findings.clear();
  CudnnFact agree;
  agree.version = "9.19.0";
  agree.location = "/a";
  agree.header_version = "9.19.0";
  agree.library_version = "9";  // a bare major agrees with any 9.x
  CudnnFact disagree;
  disagree.location = "/b";
  disagree.header_version = "8.9.7";
  disagree.loaded_version = "8.6.0";
  disagree.header_library_agree = false;
  r.facts.cudnn = {agree, disagree};
  const std::string text = render_text(r, testing::messages(), false);
  EXPECT_NE(text.find("✔ cuDNN 9.19.0 at /a"), std::string::npos) << text;
  EXPECT_NE(text.find("· cuDNN header 8.9.7 and library 8.6.0 disagree at /b"), std::string::npos)
      << text;
}

TEST(TextReport, ChineseLabelsStayAligned) {
  const std::string text = render_text(sample(), testing::messages(kb::Lang::zh), false);
  EXPECT_NE(text.find(" 硬件       ✖ hidden GPU"), std::string::npos) << text;
  EXPECT_NE(text.find(" CUDA       ·"), std::string::npos) << text;
  EXPECT_NE(text.find("最先修复"), std::string::npos);
}

TEST(MarkdownReport, PasteableIntoAnIssue) {
  const std::string md = render_md(sample(), testing::messages());
  EXPECT_EQ(md.rfind("## gpuvet report", 0), 0u);
  EXPECT_NE(md.find("| Hardware | ✖ | `gpu.not_visible` hidden GPU |"), std::string::npos) << md;
  EXPECT_NE(md.find("`evidence | with pipe`"), std::string::npos);
  EXPECT_NE(md.find("```json"), std::string::npos);
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
}

TEST(MarkdownReport, EscapesTableCells) {
  Report r = sample();
  r.findings[0].title = "a | b";
  const std::string md = render_md(r, testing::messages());
  EXPECT_NE(md.find("a \\| b"), std::string::npos) << md;
}

TEST(Verdict, ErrorsBeforeWarningsLowestLayerFirst) {
  std::vector<Finding> findings = {
      make("env.log_level_hides_errors", Severity::warning, Layer::framework, "w"),
      make("cudnn.missing", Severity::error, Layer::cudnn, "e2"),
      make("driver.missing", Severity::error, Layer::driver, "e1")};
  const auto order = findings_to_fix(findings);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0]->id, "driver.missing");
  EXPECT_EQ(order[1]->id, "cudnn.missing");
  EXPECT_EQ(order[2]->id, "env.log_level_hides_errors");
  findings.erase(findings.begin() + 1, findings.end());
  EXPECT_EQ(findings_to_fix(findings).at(0)->id, "env.log_level_hides_errors");
  findings[0].severity = Severity::info;
  EXPECT_TRUE(findings_to_fix(findings).empty());
}

// A GPU build whose only way to the GPU passes through an error says so on its own row; a build
// in another environment, and a CPU-only build, do not.
TEST(TextReport, FrameworkRowSaysItsGpuWillNotStart) {
  Report r = sample();
  r.findings.clear();
  Finding cudnn = make("cudnn.version_mismatch", Severity::error, Layer::cudnn, "old cuDNN loads");
  cudnn.affects = {"/envs/a"};
  r.findings.push_back(cudnn);
  for (const char* env : {"/envs/a", "/envs/b"}) {
    PythonEnvFact e;
    e.path = env;
    FrameworkFact fw;
    fw.name = "tensorflow";
    fw.package = "tensorflow";
    fw.version = "2.14.0";
    fw.gpu_build = true;
    e.frameworks.push_back(fw);
    r.facts.python_envs.push_back(e);
  }
  const std::string text = render_text(r, testing::messages(), false);
  const auto line_of = [&](const std::string& env) {
    const size_t at = text.rfind(env);  // the Framework row comes after the Python row
    return text.substr(text.rfind('\n', at) + 1, text.find('\n', at) - text.rfind('\n', at) - 1);
  };
  EXPECT_NE(line_of("/envs/a").find("cudnn.version_mismatch above"), std::string::npos) << text;
  EXPECT_NE(line_of("/envs/a").find("✖"), std::string::npos) << text;
  EXPECT_EQ(line_of("/envs/b").find("will not start"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpuvet::report
