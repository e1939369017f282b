// `gpuvet which` as users and scripts meet it: the real binary in a child process, on a snapshot
// (two CUDA toolkits, LD_LIBRARY_PATH order) and on this machine.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/paths.hpp"

namespace gpuvet {
namespace {

using testing::line_count;
using testing::Outcome;

Outcome gpuvet(const std::string& arguments, const std::string& environment = "") {
  return testing::run_gpuvet(arguments, environment);
}

const char* kSnapshot = R"({
  "schema": "gpuvet.snapshot/1",
  "host": {"os": "linux", "arch": "x86_64"},
  "env": {"LD_LIBRARY_PATH": "/usr/local/cuda-11.8/lib64:/usr/local/cuda-12.2/lib64"},
  "files": {
    "/usr/local/cuda-11.8/lib64/libcudnn.so.8": {"link": "libcudnn.so.8.6.0"},
    "/usr/local/cuda-11.8/lib64/libcudnn.so.8.6.0": {"size": 1000},
    "/usr/local/cuda-12.2/lib64/libcudnn.so.8": {"link": "libcudnn.so.8.9.7"},
    "/usr/local/cuda-12.2/lib64/libcudnn.so.8.9.7": {"size": 1000},
    "/usr/lib/x86_64-linux-gnu/libc.so.6": {"size": 1},
    "/opt/app/_ext.so": {"elf": {"bits": 64, "machine": 62, "runpath": ["$ORIGIN/lib"]}}
  }
})";

TEST(WhichCli, HelpWorks) {
  const Outcome help = gpuvet("which --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--from"), std::string::npos);
  EXPECT_NE(help.out.find("--snapshot"), std::string::npos);
}

TEST(WhichCli, SnapshotJsonAndExitStatus) {
  testing::TempDir dir;
  const std::string snapshot = dir.file("two_toolkits.json", kSnapshot);
  const Outcome found = gpuvet("which --json --snapshot " + snapshot + " libcudnn.so.8");
  EXPECT_EQ(found.status, 0) << found.err;
  const auto doc = nlohmann::json::parse(found.out);
  EXPECT_EQ(doc["schema"], "gpuvet.which/1");
  const auto& r = doc["results"][0];
  EXPECT_EQ(r["name"], "libcudnn.so.8");
  EXPECT_EQ(r["resolved"], "/usr/local/cuda-11.8/lib64/libcudnn.so.8");
  EXPECT_EQ(r["version"], "8.6.0");
  EXPECT_EQ(r["steps"][0]["why"], "LD_LIBRARY_PATH");
  EXPECT_EQ(r["steps"][0]["found"], true);
  EXPECT_EQ(r["shadowed"][0]["path"], "/usr/local/cuda-12.2/lib64/libcudnn.so.8");
  EXPECT_EQ(r["shadowed"][0]["version"], "8.9.7");

  const Outcome missing =
      gpuvet("which --json --snapshot " + snapshot + " libcudnn.so.8 libcublas.so.12");
  EXPECT_EQ(missing.status, 1);
  const auto two = nlohmann::json::parse(missing.out);
  EXPECT_TRUE(two["results"][1]["resolved"].is_null());
}

TEST(WhichCli, FromModuleInTheSnapshot) {
  testing::TempDir dir;
  const std::string snapshot = dir.file("s.json", kSnapshot);
  const Outcome run =
      gpuvet("which --json --snapshot " + snapshot + " --from /opt/app/_ext.so libcudnn.so.8");
  EXPECT_EQ(run.status, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["from"], "/opt/app/_ext.so");
  const auto& steps = doc["results"][0]["steps"];
  EXPECT_EQ(steps[0]["why"], "LD_LIBRARY_PATH");  // RUNPATH comes after LD_LIBRARY_PATH
}

TEST(WhichCli, TextInEnglishAndChinese) {
  testing::TempDir dir;
  const std::string snapshot = dir.file("s.json", kSnapshot);
  const Outcome en = gpuvet("which --lang en --snapshot " + snapshot + " libcudnn.so.8");
  EXPECT_EQ(en.status, 0);
  EXPECT_NE(en.out.find("version 8.6.0"), std::string::npos) << en.out;
  EXPECT_EQ(en.out.find("\x1b["), std::string::npos);  // no colour into a pipe
  const Outcome zh = gpuvet("which --lang zh --snapshot " + snapshot + " libcudnn.so.8");
  EXPECT_NE(zh.out.find("版本 8.6.0"), std::string::npos) << zh.out;
}

TEST(WhichCli, UsageErrorsAndUnreadableInputAreOneLineExitTwo) {
  testing::TempDir dir;
  const std::string not_elf = dir.file("not_elf.so", "this is not an ELF file at all, just text\n");
  const std::string snapshot = dir.file("s.json", kSnapshot);
  for (const std::string& args :
       {std::string("which"), std::string("which --lang fr libc.so.6"),
        std::string("which --from ") + not_elf + " libc.so.6",
        std::string("which --from ") + dir.path() + "/absent.so libc.so.6",
        std::string("which --from ") + dir.path() + " libc.so.6",
        "which --snapshot " + dir.path() + "/absent.json libc.so.6",
        "which --snapshot " + snapshot + " --from /opt/none.so libcudnn.so.8"}) {
    const Outcome run = gpuvet(args);
    EXPECT_EQ(run.status, 2) << args;
    EXPECT_EQ(line_count(run.err), 1u) << args << ": " << run.err;
    EXPECT_EQ(run.err.rfind("gpuvet: ", 0), 0u) << run.err;
    EXPECT_TRUE(run.out.empty()) << args;
  }
  const Outcome bad = gpuvet("which --from " + not_elf + " libc.so.6");
  EXPECT_NE(bad.err.find(not_elf), std::string::npos) << bad.err;
}

// On this machine: libc.so.6 always resolves; a made-up name never does.
TEST(WhichCli, LiveMachine) {
  const Outcome libc = gpuvet("which --json libc.so.6");
  EXPECT_EQ(libc.status, 0) << libc.err;
  const auto doc = nlohmann::json::parse(libc.out);
  EXPECT_FALSE(doc["results"][0]["resolved"].is_null());
  const Outcome none = gpuvet("which libgpuvet-no-such-library.so.1");
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.out.find("nothing would load"), std::string::npos) << none.out;
}

// A snapshot of this machine resolves with this machine's CPU: the hwcaps levels and $PLATFORM
// come from the CPUID features it recorded, not from a re-reading of /proc/cpuinfo.
TEST(WhichCli, ReplayedPlatformIsTheLiveOne) {
  testing::TempDir dir;
  const std::string snapshot = dir.path() + "/this.json";
  ASSERT_EQ(gpuvet("snapshot -o " + snapshot).status, 0);
  const auto live = nlohmann::json::parse(gpuvet("which --json libc.so.6").out);
  const auto replay =
      nlohmann::json::parse(gpuvet("which --json --snapshot " + snapshot + " libc.so.6").out);
  EXPECT_EQ(replay["platform"], live["platform"]);
  if (live["platform"]["arch"] == "x86_64") {
    EXPECT_EQ(live["platform"]["hwcaps_source"], "cpuid");
  }
}

// The seed's `where cudnn64_7.dll` on a Windows snapshot: System32's stray copy wins over PATH.
TEST(WhichCli, WindowsSnapshotSearchesLikeLoadLibrary) {
  testing::TempDir dir;
  const std::string bin = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1/bin";
  const nlohmann::json doc = {
      {"schema", "gpuvet.snapshot/1"},
      {"host", {{"os", "windows"}, {"cwd", "C:/Users/张伟/work"}}},
      {"env", {{"SystemRoot", "C:\\Windows"}, {"PATH", bin + ";%SystemRoot%\\system32"}}},
      {"files",
       {{"C:/Windows/System32/cudnn64_7.dll",
         {{"size", 1000}, {"pe", {{"file_version", "6.14.11.7041"}}}}},
        {bin + "/cudnn64_7.dll", {{"size", 1000}, {"pe", {{"file_version", "6.14.11.7065"}}}}}}}};
  const std::string path = dir.file("win.json", doc.dump());
  const auto out = testing::run_gpuvet("which cudnn64_7.dll --json --snapshot " + path);
  EXPECT_EQ(out.status, 0) << out.err;
  const auto j = nlohmann::json::parse(out.out);
  EXPECT_EQ(j["search"], "LoadLibrary");
  EXPECT_EQ(j["results"][0]["resolved"], "C:/Windows/System32/cudnn64_7.dll");
  EXPECT_EQ(j["results"][0]["shadowed"][0]["version"], "6.14.11.7065");
  const auto zh =
      testing::run_gpuvet("which cudnn64_7.dll --lang zh --no-color --snapshot " + path);
  EXPECT_NE(zh.out.find("LoadLibrary 的查找顺序"), std::string::npos) << zh.out;
}

}  // namespace
}  // namespace gpuvet
