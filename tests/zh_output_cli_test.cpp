// Chinese everywhere: every verb's --help, usage errors, bad-input errors and the check report
// of every scenario, run through the real binary with --lang zh, hold no English sentence
// (product names, paths, commands, versions and quoted log text excepted).
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_support.hpp"
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
                                  std::string("fix --toolkit x")}) {
    const auto run = run_gpuvet("--lang zh " + args);
    EXPECT_EQ(run.status, 2) << args << ": " << run.err;
    EXPECT_TRUE(untranslated_sentences(run.err).empty()) << args << ": " << run.err;
  }
}

TEST(Untranslated, CheckOfEveryScenario) {
  const std::string scenarios = std::string(GPUVET_SOURCE_DIR) + "/tests/scenarios";
  for (const auto& entry : std::filesystem::directory_iterator(scenarios)) {
    const std::string snapshot = entry.path().string() + "/snapshot.json";
    if (!std::filesystem::exists(snapshot)) continue;
    const auto run = run_gpuvet("--lang zh --no-color --snapshot " + snapshot);
    EXPECT_TRUE(untranslated_sentences(run.out).empty()) << entry.path().filename() << ":\n"
                                                         << joined(untranslated_sentences(run.out));
  }
}

}  // namespace
}  // namespace gpuvet
