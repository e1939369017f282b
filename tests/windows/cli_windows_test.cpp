// gpuvet.exe run end to end as a Windows program: on Windows scenario snapshots (UTF-8 output
// with ✔ ✖ and Chinese, exit codes), on bad input, and live on this (Wine) Windows.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/paths.hpp"
#include "platform/child_process.hpp"
#include "platform/terminal.hpp"

namespace gpuvet {
namespace {

using namespace std::chrono_literals;

platform::ChildOutcome run_gpuvet(const std::vector<std::string>& arguments) {
  return platform::run_child(GPUVET_BINARY, arguments, 60s);
}

std::string scenario(const std::string& name) {
  return std::string(GPUVET_SCENARIO_DIR) + "/" + name + "/snapshot.json";
}

TEST(WindowsCli, CheckOnASnapshotPrintsUtf8) {
  const auto run = run_gpuvet({"check", "--snapshot", scenario("windows10_chinese_user_profile"),
                               "--lang", "zh", "--no-color"});
  ASSERT_EQ(run.kind, platform::ChildOutcome::Kind::exited) << run.detail;
  EXPECT_LE(run.exit_code, 1);
  EXPECT_NE(run.output.find("张伟"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("✔"), std::string::npos) << run.output;
}

TEST(WindowsCli, CheckJsonOnTheAllGreenMachine) {
  const auto run =
      run_gpuvet({"check", "--json", "--snapshot", scenario("windows10_gtx1060_tf21_all_green")});
  ASSERT_EQ(run.kind, platform::ChildOutcome::Kind::exited) << run.detail;
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const auto report = nlohmann::json::parse(run.output);
  EXPECT_EQ(report["facts"]["os"]["family"], "windows");
}

TEST(WindowsCli, MalformedSnapshotIsExitTwo) {
  const auto run = run_gpuvet({"check", "--snapshot", GPUVET_MISBEHAVE_EXE});
  ASSERT_EQ(run.kind, platform::ChildOutcome::Kind::exited) << run.detail;
  EXPECT_EQ(run.exit_code, 2);
}

// The live Windows System under Wine: no NVIDIA driver, so a report with findings (exit 1),
// never a crash or a hang.
TEST(WindowsCli, LiveCheckOnThisMachine) {
  const auto run = run_gpuvet({"check", "--json"});
  ASSERT_EQ(run.kind, platform::ChildOutcome::Kind::exited) << run.detail;
  EXPECT_EQ(run.exit_code, 1) << run.output;
  const auto report = nlohmann::json::parse(run.output);
  EXPECT_EQ(report["facts"]["os"]["family"], "windows");
  ASSERT_FALSE(report["findings"].empty());
  EXPECT_EQ(report["findings"][0]["id"], "gpu.none");
  EXPECT_EQ(report["findings"][0].dump().find("/proc"), std::string::npos) << "Linux evidence";
  EXPECT_EQ(report["facts"]["driver"]["error"].dump().find("no answer"), std::string::npos);
}

// A log in a folder with a Chinese name, named by a '/'-rooted path (which CLI11 would take for a
// Windows "/option" unless told not to).
TEST(WindowsCli, ExplainReadsALogWithAChinesePath) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / L"日志-gpuvet";
  std::filesystem::create_directories(dir);
  const std::filesystem::path log = dir / L"训练.log";
  std::ofstream(log, std::ios::binary)
      << "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n";
  const std::string path = paths::from_fs(log);
  const auto run = run_gpuvet({"explain", "--no-facts", "--json", path});
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  ASSERT_EQ(run.kind, platform::ChildOutcome::Kind::exited) << run.detail;
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("cuda.runtime_missing"), std::string::npos) << run.output;
  // A path rooted at the current drive ("/work/…", as ctest's working directory on Wine's Z:).
  const std::string cwd = paths::from_fs(std::filesystem::current_path());
  const std::string rooted = cwd.substr(cwd.find('/')) + "/gpuvet-rooted.log";
  std::ofstream(paths::to_fs(rooted), std::ios::binary)
      << "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n";
  const auto slash = run_gpuvet({"explain", "--no-facts", "--json", rooted});
  std::filesystem::remove(paths::to_fs(rooted), ec);
  EXPECT_EQ(slash.exit_code, 0) << rooted;
  EXPECT_NE(slash.output.find("cuda.runtime_missing"), std::string::npos) << slash.output;
}

TEST(WindowsCli, VerifyWithoutADriverSaysSo) {
  const auto run = run_gpuvet({"verify", "--json"});
  ASSERT_EQ(run.kind, platform::ChildOutcome::Kind::exited) << run.detail;
  EXPECT_EQ(run.exit_code, 1);
  // check's first cause (no GPU under Wine, or no driver), the loader's words kept as detail.
  EXPECT_NE(run.output.find("nvcuda.dll"), std::string::npos) << run.output;
  EXPECT_TRUE(run.output.find("\"gpu.none\"") != std::string::npos ||
              run.output.find("\"driver.missing\"") != std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("\"not_run\""), std::string::npos) << run.output;
}

// The crash-proof child that asks the driver: without NVIDIA's DLLs it still answers, with the
// loader's errors.
TEST(WindowsCli, NativeQueryChildAnswers) {
  const auto run = run_gpuvet({"__native-query"});
  ASSERT_EQ(run.kind, platform::ChildOutcome::Kind::exited) << run.detail;
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.output.find('\r'), std::string::npos) << "stdout must be binary, not text mode";
  const size_t result = run.output.find("@result");
  ASSERT_NE(result, std::string::npos) << run.output;
  const auto answer = nlohmann::json::parse(run.output.substr(result + 7));
  EXPECT_EQ(answer["driver"]["installed"], false);
  EXPECT_NE(answer["driver"]["error"].get<std::string>().find("nvcuda.dll"), std::string::npos);
}

TEST(WindowsCli, WhichOnThisMachine) {
  const auto run = run_gpuvet({"which", "kernel32.dll", "--json"});
  ASSERT_EQ(run.kind, platform::ChildOutcome::Kind::exited) << run.detail;
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const auto report = nlohmann::json::parse(run.output);
  EXPECT_EQ(report["search"], "LoadLibrary");
}

// Windows keeps the user's language outside the environment; gpuvet reads it when LANG and
// LC_* are unset (Wine reports en-US).
TEST(WindowsCli, UserLocaleIsALocaleName) {
  const auto locale = platform::user_locale();
  ASSERT_TRUE(locale);
  EXPECT_NE(locale->find('-'), std::string::npos) << *locale;
}

}  // namespace
}  // namespace gpuvet
