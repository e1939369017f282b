// Chinese everywhere: every verb's --help, usage errors, bad-input errors and the check report
// of every scenario, run through the real binary with --lang zh, hold no English sentence
// (product names, paths, commands, versions and quoted log text excepted).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "test_support.hpp"
#include "untranslated.hpp"

namespace gpuvet {
namespace {

using testing::run_gpuvet;
using testing::untranslated_sentences;

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines)
    text += line + "\n";
  return text;
}

// Chinese set with Chinese punctuation (gpuvet's own words; quoted logs are the log's).
void expect_well_set(const std::string& what, const std::string& text) {
  const auto flaws = testing::typography_flaws(text);
  EXPECT_TRUE(flaws.empty()) << what << ":\n" << joined(flaws);
}

TEST(Untranslated, TheDetectorFindsSentencesAndSparesNames) {
  EXPECT_FALSE(untranslated_sentences("无法读取快照 cannot read snapshot: no such file").empty());
  EXPECT_FALSE(untranslated_sentences("  --json   prints the report as JSON").empty());
  EXPECT_TRUE(untranslated_sentences("安装 NVIDIA GeForce RTX 3060 的驱动 for CUDA 12.4").empty());
  EXPECT_TRUE(untranslated_sentences("修复：pip install tensorflow and the rest").empty());
  EXPECT_TRUE(untranslated_sentences("日志：“Could not load dynamic library”").empty());
  EXPECT_TRUE(untranslated_sentences("见 /usr/lib/x86_64-linux-gnu/libcudnn.so.9").empty());
}

TEST(Untranslated, EveryVerbsHelp) {
  for (const char* verb :
       {"",       "check",   "verify",   "bench",        "snapshot",      "which",        "explain",
        "plan",   "fix",     "undo",     "fleet",        "fleet collect", "fleet report", "kb",
        "kb gpu", "kb cuda", "kb cudnn", "kb framework", "help",          "completion"}) {
    const auto help = run_gpuvet(std::string("--lang zh help ") + verb);
    EXPECT_EQ(help.status, 0) << verb << help.err;
    EXPECT_TRUE(untranslated_sentences(help.out).empty())
        << "gpuvet help " << verb << ":\n"
        << joined(untranslated_sentences(help.out));
  }
}

TEST(Untranslated, UsageErrorsAndBadInput) {
  testing::TempDir dir;
  const std::string truncated = dir.file("truncated.json", "{\"schema\": ");
  const std::string binary = dir.file("binary.log", std::string("ab\0cd", 5));
  const std::string empty = dir.file("empty.json", "");
  const std::string wrong = dir.file("wrong.json", "{\"schema\": \"something/1\"}");
  const std::string no_schema = dir.file("none.json", "{\"host\": {}}");
  const std::string bad_gzip = dir.file("bad.json.gz", std::string("\x1f\x8b\x08\x00garbage", 12));
  std::filesystem::create_directories(dir.path() + "/kb-empty");
  std::filesystem::create_directories(dir.path() + "/kb-broken");
  dir.file("kb-broken/gpus.csv", "name,compute_capability\nRTX 3060\n");
  for (const std::string& args : {std::string("chek"),
                                  std::string("check --jsn"),
                                  std::string("check --bogus"),
                                  std::string("check --format html"),
                                  std::string("check --lang fr"),
                                  std::string("plan"),
                                  std::string("plan torch --os mac"),
                                  std::string("plan torch --gpu \"\""),
                                  std::string("plan torch --gpu x --cc 3.0"),
                                  std::string("kb"),
                                  std::string("help chek"),
                                  std::string("completion tcsh"),
                                  std::string("fleet"),
                                  std::string("fleet report"),
                                  "--snapshot " + dir.path() + "/missing.json",
                                  "--snapshot " + truncated,
                                  "--snapshot " + empty,
                                  "--snapshot " + wrong,
                                  "--snapshot " + no_schema,
                                  "--snapshot " + bad_gzip,
                                  "--snapshot " + dir.path(),
                                  "explain " + binary,
                                  "explain " + dir.path() + "/missing.log",
                                  "fleet report " + dir.path() + "/missing",
                                  std::string("undo ../x"),
                                  std::string("fix --apply nosuch --yes"),
                                  std::string("fix cudnn-install"),
                                  std::string("fix --toolkit x"),
                                  std::string("--kb /nonexistent kb gpu x"),
                                  "--kb " + dir.path() + "/kb-empty kb gpu x",
                                  "--kb " + dir.path() + "/kb-broken kb gpu x"}) {
    const auto run = run_gpuvet("--lang zh " + args);
    EXPECT_EQ(run.status, 2) << args << ": " << run.err;
    EXPECT_TRUE(untranslated_sentences(run.err).empty()) << args << ": " << run.err;
  }
}

// Global options given before the verb reach every verb, the ones without output words too.
TEST(Untranslated, EveryVerbTakesTheLanguageBeforeIt) {
  testing::TempDir dir;
  for (const std::string& args : {"--lang zh --no-color snapshot -o " + dir.path() + "/s.json",
                                  std::string("--lang zh --no-color completion bash"),
                                  "--lang zh snapshot -o " + dir.path() + "/missing/s.json"}) {
    const auto run = run_gpuvet(args);
    EXPECT_EQ(run.err.find("不接受"), std::string::npos) << args << ": " << run.err;
    EXPECT_TRUE(untranslated_sentences(run.err).empty()) << args << ": " << run.err;
  }
  EXPECT_EQ(run_gpuvet("--lang zh --no-color snapshot -o " + dir.path() + "/t.json").status, 0);
  EXPECT_EQ(run_gpuvet("--lang zh completion bash").status, 0);
  EXPECT_EQ(run_gpuvet("--lang zh snapshot -o " + dir.path() + "/missing/s.json").status, 2);
}

TEST(Untranslated, CheckOfEveryScenario) {
  const std::string scenarios = std::string(GPUVET_SOURCE_DIR) + "/tests/scenarios";
  size_t index = 0;
  for (const auto& entry : std::filesystem::directory_iterator(scenarios)) {
    const std::string snapshot = entry.path().string() + "/snapshot.json";
    if (!std::filesystem::exists(snapshot) || !testing::sampled(index++)) continue;
    const auto run = run_gpuvet("--lang zh --no-color --snapshot " + snapshot);
    EXPECT_TRUE(untranslated_sentences(run.out).empty()) << entry.path().filename() << ":\n"
                                                         << joined(untranslated_sentences(run.out));
    expect_well_set(entry.path().filename().string(), run.out);
  }
}

std::string scenario(const std::string& name) {
  return std::string(GPUVET_SOURCE_DIR) + "/tests/scenarios/" + name + "/snapshot.json";
}

void expect_chinese(const std::string& what, const std::string& text) {
  EXPECT_TRUE(untranslated_sentences(text).empty()) << what << ":\n"
                                                    << joined(untranslated_sentences(text));
}

TEST(Untranslated, TypographyFindsAsciiPunctuationInChinese) {
  EXPECT_FALSE(testing::typography_flaws("未检查：GPU（用 --gpu 指定）, 驱动").empty());
  EXPECT_FALSE(testing::typography_flaws("驱动, GPU").empty());
  EXPECT_FALSE(testing::typography_flaws("linux (快照)").empty());
  EXPECT_FALSE(testing::typography_flaws("修复： 把 DLL 复制").empty());
  EXPECT_FALSE(testing::typography_flaws("- 证据: `x`").empty());
  EXPECT_TRUE(testing::typography_flaws("驱动 ≥ 525.60.13，CUDA 12.4（参数指定）").empty());
  EXPECT_TRUE(testing::typography_flaws("nvidia-smi --query-gpu=name,driver_version").empty());
}

TEST(Untranslated, PlanOfEveryFrameworkPlatformAndFormat) {
  size_t index = 0;
  for (const char* framework : {"tensorflow", "tensorflow==2.10", "tensorflow==2.1", "torch",
                                "torch==1.13", "jax", "cupy", "paddle", "onnxruntime"}) {
    for (const char* os : {"linux", "windows", "wsl2"}) {
      for (const char* given : {"", "--gpu \"RTX 3060\" --driver 531.14", "--gpu \"GTX 650\"",
                                "--cc 12.0 --driver 470", "--format md", "--python 3.6"}) {
        if (!testing::sampled(index++)) continue;
        const std::string args = std::string("--lang zh --no-color plan ") + framework + " --os " +
                                 os + " " + given + " --snapshot " + scenario("linux_debian_clean");
        const auto run = run_gpuvet(args);
        EXPECT_NE(run.status, 2) << args << run.err;
        expect_chinese(args, run.out + run.err);
        expect_well_set(args, run.out);
      }
    }
  }
}

TEST(Untranslated, PlanWritesChineseFiles) {
  testing::TempDir dir;
  for (const char* os : {"linux", "windows"}) {
    const std::string out = dir.path() + "/" + os;
    const auto run = run_gpuvet(std::string("--lang zh plan torch --os ") + os + " --write " + out +
                                " --snapshot " + scenario("linux_debian_clean"));
    EXPECT_EQ(run.status, 0) << run.err;
    expect_chinese(os, run.out + run.err);
  }
}

TEST(Untranslated, KnowledgeBaseAnswers) {
  for (const char* question : {"gpu \"RTX 3060\"",
                               "gpu \"GTX 650\"",
                               "gpu \"RTX 5090\"",
                               "gpu \"Quadro K600\"",
                               "gpu \"no such card\"",
                               "gpu \"H200\" --sources",
                               "cuda 10.1",
                               "cuda 12.4 --sources",
                               "cuda 13.0",
                               "cuda 99.9",
                               "cudnn 8.9",
                               "cudnn 7.6",
                               "cudnn 9 --sources",
                               "cudnn 1.0",
                               "framework tensorflow==2.1",
                               "framework torch",
                               "framework jax --sources",
                               "framework paddlepaddle-gpu",
                               "framework cupy",
                               "framework onnxruntime",
                               "framework nosuch"}) {
    const auto run = run_gpuvet(std::string("--lang zh --no-color kb ") + question);
    expect_chinese(std::string("kb ") + question, run.out + run.err);
    expect_well_set(std::string("kb ") + question, run.out);
  }
}

TEST(Untranslated, WhichOnSnapshotsAndHere) {
  for (const auto& [snapshot, names] :
       {std::pair<std::string, std::string>{"linux_old_cudnn_shadows_newer",
                                            "libcudnn.so.8 libcudart.so.12"},
        {"windows10_stray_cudnn_in_system32", "cudnn64_8.dll cudart64_110.dll"},
        {"windows10_msvcp140_1_missing", "msvcp140_1.dll"},
        {"linux_debian_clean", "libcuda.so.1 nosuch.so"}}) {
    const auto run =
        run_gpuvet("--lang zh --no-color which " + names + " --snapshot " + scenario(snapshot));
    expect_chinese(snapshot, run.out + run.err);
  }
  const auto here = run_gpuvet("--lang zh --no-color which libcudnn.so.9 libcuda.so.1 libc.so.6");
  expect_chinese("which here", here.out + here.err);
  testing::TempDir dir;
  const std::string truncated = dir.file("truncated.so", std::string("\x7f"
                                                                     "ELF\x02\x01\x01",
                                                                     7));
  const std::string text = dir.file("text.so", "just text, not a library\n");
  for (const std::string& module :
       {std::string("/nonexistent/module.so"), dir.path(), truncated, text}) {
    const auto from = run_gpuvet("--lang zh which libc.so.6 --from " + module);
    EXPECT_EQ(from.status, 2) << module;
    expect_chinese("which --from " + module, from.out + from.err);
  }
}

TEST(Untranslated, FixPlansOfEveryScenario) {
  const std::string scenarios = std::string(GPUVET_SOURCE_DIR) + "/tests/scenarios";
  size_t index = 1;  // under the sanitizers, another quarter than check's
  for (const auto& entry : std::filesystem::directory_iterator(scenarios)) {
    const std::string snapshot = entry.path().string() + "/snapshot.json";
    if (!std::filesystem::exists(snapshot) || !testing::sampled(index++)) continue;
    const auto run = run_gpuvet("--lang zh --no-color fix --snapshot " + snapshot);
    expect_chinese("fix " + entry.path().filename().string(), run.out + run.err);
    expect_well_set("fix " + entry.path().filename().string(), run.out);
  }
}

TEST(Untranslated, FixAndUndoOnThisMachine) {
  testing::TempDir dir;
  const std::string state = "XDG_STATE_HOME=" + dir.path();
  for (const char* args : {"fix", "undo", "undo --list", "undo 7", "fix --apply all --yes",
                           "fix cudnn-install --from /nonexistent",
                           "fix cudnn-install --from /etc --toolkit /nonexistent"}) {
    const auto run = run_gpuvet(std::string("--lang zh --no-color ") + args, state);
    expect_chinese(args, run.out + run.err);
  }
}

TEST(Untranslated, VerifyAndBenchWhereNothingRuns) {
  testing::TempDir dir;
  const std::string page = dir.path() + "/bench.html";
  for (const std::string& args :
       {std::string("verify"), std::string("bench --quick --html ") + page}) {
    const auto run = run_gpuvet("--lang zh --no-color " + args);
    expect_chinese(args, run.out + run.err);
  }
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<html lang=\"zh-CN\">"), std::string::npos);
  expect_chinese("bench page", testing::visible_text_of_html(html));
}

TEST(Untranslated, FleetReportTextMarkdownAndPage) {
  testing::TempDir dir;
  const std::string nodes = std::string(GPUVET_SOURCE_DIR) + "/tests/fleet/nodes";
  for (const char* format : {"", "--format md"}) {
    const auto run =
        run_gpuvet(std::string("--lang zh --no-color fleet report ") + nodes + " " + format);
    expect_chinese(std::string("fleet report ") + format, run.out + run.err);
    expect_well_set(std::string("fleet report ") + format, run.out);
  }
  const std::string page = dir.path() + "/fleet.html";
  const auto run = run_gpuvet("--lang zh fleet report " + nodes + " --html " + page);
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<html lang=\"zh-CN\">"), std::string::npos) << run.err;
  expect_chinese("fleet page", testing::visible_text_of_html(html));
}

TEST(Untranslated, ExplainOfThePublicLogs) {
  testing::TempDir dir;
  std::ifstream in(std::string(GPUVET_EXPLAIN_FIXTURES) + "/public.jsonl");
  std::string line;
  size_t index = 0;
  while (std::getline(in, line)) {
    if (!testing::sampled(index++)) continue;
    const auto item = nlohmann::json::parse(line);
    const std::string log =
        dir.file("log" + std::to_string(index) + ".txt", item["log"].get<std::string>());
    for (const char* format : {"", "--format md"}) {
      const auto run = run_gpuvet(std::string("--lang zh --no-color explain ") + log + " " +
                                  format + " --snapshot " + scenario("windows10_cudnn_not_copied"));
      expect_chinese(item["id"].get<std::string>(), run.out + run.err);
    }
  }
}

TEST(Untranslated, MarkdownReportsOfEveryScenario) {
  const std::string scenarios = std::string(GPUVET_SOURCE_DIR) + "/tests/scenarios";
  size_t index = 2;  // and a third
  for (const auto& entry : std::filesystem::directory_iterator(scenarios)) {
    const std::string snapshot = entry.path().string() + "/snapshot.json";
    if (!std::filesystem::exists(snapshot) || !testing::sampled(index++)) continue;
    const auto run = run_gpuvet("--lang zh check --format md --snapshot " + snapshot);
    // The facts' JSON at the end is data, not words.
    const std::string words = run.out.substr(0, run.out.find("<details>"));
    expect_chinese(entry.path().filename().string(), words + run.err);
    expect_well_set(entry.path().filename().string(), words);
  }
}

}  // namespace
}  // namespace gpuvet
