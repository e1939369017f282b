// `gpuvet kb` as users meet it: the real gpuvet binary in a child process.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "frameworks/framework.hpp"

namespace gpuvet {
namespace {

using testing::line_count;
using testing::Outcome;

Outcome gpuvet(const std::string& arguments, const std::string& environment = "") {
  return testing::run_gpuvet(arguments, environment);
}
TEST(CliKb, AnswersFromTheTablesWithSources) {
  Outcome run = gpuvet("kb gpu \"geforce rtx 3060\" --json");
  ASSERT_EQ(run.status, 0) << run.err;
  auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["schema"], "gpuvet.kb/1");
  EXPECT_EQ(doc["results"]["gpus"][0]["compute_capability"], "8.6");
  EXPECT_FALSE(doc["results"]["gpus"][0]["source"].get<std::string>().empty());

  run = gpuvet("kb cuda 10.1 --json");
  ASSERT_EQ(run.status, 0) << run.err;
  doc = nlohmann::json::parse(run.out);
  std::vector<std::string> versions;
  for (const auto& row : doc["results"]["cuda_releases"]) {
    if (row["version"].is_string()) versions.push_back(row["version"]);
  }
  EXPECT_NE(std::find(versions.begin(), versions.end(), "10.1.243"), versions.end());
  EXPECT_NE(std::find(versions.begin(), versions.end(), "10.1.105"), versions.end());
  EXPECT_EQ(doc["results"]["library_names"][0]["cuda"], "10.1");

  run = gpuvet("kb cudnn 7.6");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("cudnn64_7.dll"), std::string::npos);

  run = gpuvet("kb framework tensorflow==2.1 --json");
  ASSERT_EQ(run.status, 0) << run.err;
  doc = nlohmann::json::parse(run.out);
  ASSERT_FALSE(doc["results"]["tensorflow_builds"].empty());
  for (const auto& row : doc["results"]["tensorflow_builds"]) {
    EXPECT_TRUE(row["version"].get<std::string>().starts_with("2.1.")) << row.dump();
  }
  EXPECT_EQ(gpuvet("kb framework pytorch").status, 0);
  // Every framework of the registry answers, by family or by pip distribution.
  run = gpuvet("kb framework onnxruntime-gpu==1.17 --json");
  ASSERT_EQ(run.status, 0) << run.err;
  doc = nlohmann::json::parse(run.out);
  ASSERT_FALSE(doc["results"]["onnxruntime_builds"].empty());
  for (const char* spec : {"paddlepaddle-gpu==2.6", "cupy==13", "jax"}) {
    run = gpuvet(std::string("kb framework ") + spec + " --no-color --sources");
    EXPECT_EQ(run.status, 0) << spec << ": " << run.err;
    EXPECT_EQ(run.out.find("kb.table."), std::string::npos) << spec << ": " << run.out;
  }
  EXPECT_NE(gpuvet("kb framework torch --lang zh --sources").out.find("PyTorch 构建版本"),
            std::string::npos);
}

// The text answer opens with a verdict; the rows behind it only with --sources.
TEST(CliKb, GpuVerdictSaysWhatRunsOnIt) {
  Outcome run = gpuvet("kb gpu \"RTX 3060\" --no-color");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("Compute capability 8.6 (Ampere)"), std::string::npos) << run.out;
  // CUDA 11.1-11.7 build for sm_86 too (the 11.1-11.7 row), not only 11.8 and newer.
  EXPECT_NE(run.out.find("✔ CUDA 11.1 – "), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("source:"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("cuda_from"), std::string::npos) << run.out;
  // One line per framework of the registry.
  for (const auto* f : frameworks::all())
    EXPECT_NE(run.out.find(" " + std::string(f->display_name)), std::string::npos) << run.out;

  run = gpuvet("kb gpu \"GTX 780\" --no-color");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("Compute capability 3.5 (Kepler)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("✖ CUDA 9.0 – 11.8 can build for sm_35; CUDA 12.0 dropped it"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("✖ R470"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("✖ JAX: no GPU build runs on compute capability 3.5"), std::string::npos)
      << run.out;

  // A cut name meaning several GPUs of one compute capability: the candidates, then that CC.
  run = gpuvet("kb gpu \"NVIDIA GeForce RTX 306...\" --no-color");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("GPUs match: GeForce RTX 3060 Ti, GeForce RTX 3060"), std::string::npos);
  EXPECT_NE(run.out.find("all of them have compute capability 8.6"), std::string::npos);
  EXPECT_NE(run.out.find("✔ CUDA 11.1 – "), std::string::npos) << run.out;

  run = gpuvet("kb gpu \"RTX 3060\" --no-color --sources");
  EXPECT_NE(run.out.find("✔ CUDA 11.1 – "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("source: "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("from sm 3.5 · to sm 8.6"), std::string::npos) << run.out;
}

TEST(CliKb, VerdictsForCudaAndFrameworks) {
  Outcome run = gpuvet("kb cuda 12.4 --no-color");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("CUDA 12.4.0, released 2024-03: driver ≥ 550.54.14 on Linux, ≥ 551.61 on "
                         "Windows"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("CUDA 12.0 – 12.6 builds for sm_50 – sm_90"), std::string::npos);

  run = gpuvet("kb framework torch==2.1 --no-color");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("PyTorch 2.1 cu118 (linux, windows): CUDA 11.8"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("PyTorch 2.1 cu121"), std::string::npos) << run.out;

  run = gpuvet("kb cudnn 8.9 --no-color");
  EXPECT_NE(run.out.find("cuDNN 8.9.1: for CUDA 12.1,"), std::string::npos) << run.out;
}

// Chinese output is Chinese throughout: no English notes or sources without --sources.
TEST(CliKb, ChineseVerdictHasNoEnglishProvenance) {
  for (const char* args :
       {"gpu \"RTX 3060\"", "gpu \"GTX 780\"", "cuda 12.4", "cudnn 8.9", "framework torch==2.1"}) {
    const Outcome run = gpuvet(std::string("kb ") + args + " --lang zh --no-color");
    ASSERT_EQ(run.status, 0) << args << ": " << run.err;
    for (const char* english : {"source:", "http", "NOT CONFIRMED", "matched by", "Compute",
                                "can build", "unknown", "releases"})
      EXPECT_EQ(run.out.find(english), std::string::npos) << args << ": " << english << "\n"
                                                          << run.out;
  }
  EXPECT_NE(gpuvet("kb gpu \"RTX 3060\" --lang zh --no-color").out.find("计算能力 8.6"),
            std::string::npos);
}

TEST(CliKb, JsonCarriesTheVerdict) {
  const Outcome run = gpuvet("kb gpu \"RTX 3060\" --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_TRUE(doc["verdict"].is_array());
  bool cuda_line = false;
  for (const auto& line : doc["verdict"]) {
    if (line["key"] == "kb.verdict.gpu.cuda_open") {
      cuda_line = true;
      EXPECT_EQ(line["status"], "ok");
      EXPECT_EQ(line["args"]["from"], "11.1");
      EXPECT_EQ(line["args"]["sm"], "86");
    }
  }
  EXPECT_TRUE(cuda_line) << run.out;
  // The rows stay where they were.
  EXPECT_EQ(doc["results"]["gpus"][0]["compute_capability"], "8.6");
  EXPECT_EQ(doc["results"]["cuda_arch_support"][0]["cuda_from"], "11.1");
}

TEST(CliKb, UnknownNamesAndVersionsAreOneLineWithExitTwo) {
  for (const char* args :
       {"kb gpu \"RTX 3061\"", "kb cuda 99.9", "kb cuda ten", "kb cudnn 1.0", "kb framework caffe",
        "kb framework tensorflow==9.9", "kb", "kb gpu", "kb cuda 10.1 --kb /nonexistent"}) {
    const Outcome run = gpuvet(args);
    EXPECT_EQ(run.status, 2) << args;
    EXPECT_EQ(line_count(run.err), 1u) << args << ": " << run.err;
    EXPECT_TRUE(run.out.empty()) << args;
  }
  const Outcome unknown = gpuvet("kb gpu \"RTX 3061\"");
  EXPECT_NE(unknown.err.find("GeForce RTX 3060"), std::string::npos) << unknown.err;
}

TEST(CliKb, ANewerKnowledgeBaseReplacesTablesByName) {
  testing::TempDir dir;
  dir.file("VERSION", "2099.01.01\n");
  dir.file("gpus.csv",
           "name,compute_capability,architecture,family,notes,source\n"
           "NVIDIA Future 9000,13.0,Futura,GeForce,,https://example.org/future\n");
  Outcome run = gpuvet("kb gpu \"Future 9000\" --json --kb " + dir.path());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["kb_version"], "2099.01.01");
  EXPECT_EQ(doc["results"]["gpus"][0]["architecture"], "Futura");
  // The other tables are still the embedded ones.
  EXPECT_EQ(gpuvet("kb cuda 10.1 --kb " + dir.path()).status, 0);
  // The replaced table no longer knows the old GPUs (Jetson Nano has no PCI id, so no other
  // table names it).
  EXPECT_EQ(gpuvet("kb gpu \"Jetson Nano\" --kb " + dir.path()).status, 2);
  // check and which take --kb too; a broken table is one line, exit 2, naming the file.
  dir.file("broken/gpus.csv", "name,source\n\"unterminated\n");
  run = gpuvet("check --kb " + dir.path() + "/broken");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("gpus.csv"), std::string::npos) << run.err;
  EXPECT_EQ(line_count(run.err), 1u) << run.err;
}

// A newer knowledge base may hold versions of any length: explain compares them as versions and
// never as machine integers (a 20-digit toolkit major once ended in "internal error: stoi").
TEST(CliKb, ExplainTakesToolkitVersionsOfAnyLength) {
  testing::TempDir dir;
  dir.file("cuda_arch_support.csv",
           "cuda_from,cuda_to,min_sm,max_sm,deprecated_sm,notes,source\n"
           "10.0,10.2,3.0,7.5,,,https://example.org/a\n"
           "11.0,11.8,3.5,9.0,,,https://example.org/b\n"
           "99999999999999999999.0,99999999999999999999.5,7.5,,,,https://example.org/c\n");
  const Outcome run = gpuvet(
      "explain --no-facts --text \"nvcc fatal : Unsupported gpu architecture 'compute_30'\" --kb " +
      dir.path());
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("CUDA 10.2"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace gpuvet
