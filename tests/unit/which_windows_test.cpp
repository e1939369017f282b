// `which` on Windows snapshots: LoadLibrary's search order, the seeds' `where cudnn64_7.dll`
// answered right (System32 before PATH), KnownDLLs, SafeDllSearchMode, and Python 3.8's
// extension-module search without PATH.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "checks/checks.hpp"
#include "probes/probes.hpp"
#include "resolve/which.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::resolve {
namespace {

using nlohmann::json;

const char* kToolkitBin = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1/bin";
const char* kEnv = "C:/Users/张伟/Miniconda3/envs/tf";

json machine(json files, json extra = json::object()) {
  json doc = {{"host", {{"cwd", "C:/Users/张伟/work"}}},
              {"env",
               {{"SystemRoot", "C:\\Windows"},
                {"PATH", std::string(kToolkitBin) + ";%SystemRoot%\\system32;C:\\Windows;" +
                             "C:\\Users\\张伟\\Miniconda3\\envs\\tf\\Library\\bin"}}},
              {"files", std::move(files)}};
  doc.merge_patch(extra);
  return doc;
}

WhichReport run(const json& doc, std::vector<std::string> names, std::optional<std::string> from,
                std::vector<std::string> dll_dirs = {}) {
  const sys::ReplaySystem system(testing::windows_snapshot(doc));
  auto report = which(system, {std::move(names), std::move(from), std::move(dll_dirs)});
  EXPECT_TRUE(report.ok());
  return report.ok() ? *report : WhichReport{};
}

json dll(const std::string& version) {
  return {{"size", 1000}, {"pe", {{"file_version", version}}}};
}

// The seed's question: cudnn64_7.dll is in the toolkit's bin (on PATH) and a stray old copy is
// in System32. System32 comes first.
TEST(WhichWindows, System32BeatsPath) {
  const auto report =
      run(machine({{"C:/Windows/System32/cudnn64_7.dll", dll("6.14.11.7041")},
                   {std::string(kToolkitBin) + "/cudnn64_7.dll", dll("6.14.11.7065")},
                   {std::string(kEnv) + "/python.exe", {{"size", 1}}}}),
          {"cudnn64_7.dll"}, std::string(kEnv) + "/python.exe");
  ASSERT_TRUE(report.windows);
  EXPECT_EQ(report.windows_mode, "standard");
  const Resolution& r = report.results.at(0);
  EXPECT_EQ(r.resolved, "C:/Windows/System32/cudnn64_7.dll");
  EXPECT_EQ(r.version, "6.14.11.7041");
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].source, Source::app_dir);
  EXPECT_EQ(r.steps[1].source, Source::system32);
  ASSERT_EQ(r.shadowed.size(), 1u);
  EXPECT_EQ(r.shadowed[0].path, std::string(kToolkitBin) + "/cudnn64_7.dll");
  EXPECT_EQ(r.shadowed[0].version, "6.14.11.7065");
  EXPECT_EQ(r.shadowed[0].source, Source::path_env);
}

TEST(WhichWindows, TheOrderOfTheStandardSearch) {
  // Only on PATH: every earlier place is a step, then the toolkit's bin; %SystemRoot% expanded.
  const auto report =
      run(machine({{std::string(kToolkitBin) + "/cudart64_101.dll", dll("6.14.11.10010")},
                   {"C:/Windows/System32/kernel32.dll", dll("10.0")}}),
          {"cudart64_101.dll", "nothing.dll"}, std::nullopt);
  const Resolution& found = report.results.at(0);
  std::vector<Source> order;
  for (const auto& s : found.steps)
    order.push_back(s.source);
  EXPECT_EQ(order, (std::vector<Source>{Source::system32, Source::system16, Source::windows_dir,
                                        Source::current_dir, Source::path_env}));
  EXPECT_EQ(found.steps[2].where, "C:/Windows");
  EXPECT_EQ(found.steps[3].where, "C:/Users/张伟/work");
  const Resolution& missing = report.results.at(1);
  EXPECT_FALSE(missing.resolved.has_value());
  EXPECT_NE(missing.error->find("126"), std::string::npos);
  // %SystemRoot%\system32 on PATH is expanded.
  bool expanded = false;
  for (const auto& s : missing.steps) {
    expanded = expanded || (s.source == Source::path_env && s.where == "C:/Windows/system32");
  }
  EXPECT_TRUE(expanded);
}

TEST(WhichWindows, KnownDllsAndSafeDllSearchMode) {
  const json known = machine(
      {{"C:/Windows/System32/msvcp140.dll", dll("14.29")},
       {std::string(kEnv) + "/msvcp140.dll", dll("14.16")},
       {std::string(kEnv) + "/python.exe", {{"size", 1}}},
       {"C:/Users/张伟/work/zlibwapi.dll", dll("1.2.3")},
       {std::string(kToolkitBin) + "/zlibwapi.dll", dll("1.2.11")}},
      {{"registry",
        {{"HKLM/SYSTEM/CurrentControlSet/Control/Session Manager/KnownDLLs",
          {{"MSVCP140", "msvcp140.dll"}}},
         {"HKLM/SYSTEM/CurrentControlSet/Control/Session Manager", {{"SafeDllSearchMode", 0}}}}}});
  const auto report =
      run(known, {"msvcp140.dll", "zlibwapi.dll"}, std::string(kEnv) + "/python.exe");
  const Resolution& msvcp = report.results.at(0);
  EXPECT_EQ(msvcp.resolved, "C:/Windows/System32/msvcp140.dll");  // not the app folder's copy
  EXPECT_EQ(msvcp.steps.at(0).source, Source::known_dlls);
  // SafeDllSearchMode = 0: the current folder right after the application's, before System32.
  const Resolution& zlib = report.results.at(1);
  EXPECT_EQ(zlib.resolved, "C:/Users/张伟/work/zlibwapi.dll");
  EXPECT_EQ(zlib.steps.at(1).source, Source::current_dir);
}

// Python 3.8+: an extension module's dependencies are not looked for on PATH, only in the
// module's folder, the application folder, System32 and os.add_dll_directory folders.
TEST(WhichWindows, PythonExtensionModulesDoNotSearchPath) {
  const std::string pyd =
      std::string(kEnv) + "/Lib/site-packages/tensorflow/python/_pywrap_tensorflow_internal.pyd";
  json files = {{std::string(kEnv) + "/python.exe", {{"size", 1}}},
                {std::string(kEnv) + "/python38.dll", {{"size", 1}}},
                {pyd, {{"size", 1}}},
                {std::string(kToolkitBin) + "/cudart64_110.dll", dll("6.14.11.11000")}};
  auto report = run(machine(files), {"cudart64_110.dll"}, pyd);
  EXPECT_EQ(report.windows_mode, "python38");
  EXPECT_FALSE(report.results.at(0).resolved.has_value());
  for (const auto& s : report.results.at(0).steps)
    EXPECT_NE(s.source, Source::path_env);
  EXPECT_EQ(report.results.at(0).steps.at(0).source, Source::dll_load_dir);
  report = run(machine(files), {"cudart64_110.dll"}, pyd, {kToolkitBin});
  EXPECT_EQ(report.results.at(0).resolved, std::string(kToolkitBin) + "/cudart64_110.dll");
  EXPECT_EQ(report.results.at(0).steps.back().source, Source::dll_directory);
  // Python 3.7 still searches PATH.
  files.erase(std::string(kEnv) + "/python38.dll");
  files[std::string(kEnv) + "/python37.dll"] = {{"size", 1}};
  report = run(machine(files), {"cudart64_110.dll"}, pyd);
  EXPECT_EQ(report.windows_mode, "standard");
  EXPECT_EQ(report.results.at(0).resolved, std::string(kToolkitBin) + "/cudart64_110.dll");
}

}  // namespace
}  // namespace gpuvet::resolve

namespace gpuvet::probes {
namespace {

// Device Manager's number for NVIDIA's driver: the last five digits are NVIDIA's version.
TEST(WindowsDisplayAdapters, NvidiaDriverFromTheWindowsVersion) {
  EXPECT_EQ(nvidia_driver_from_windows("27.21.14.5206"), "452.06");
  EXPECT_EQ(nvidia_driver_from_windows("26.21.14.4120"), "441.20");
  EXPECT_EQ(nvidia_driver_from_windows("31.0.15.3623"), "536.23");
  EXPECT_EQ(nvidia_driver_from_windows("30.0.14.7141"), "471.41");
  EXPECT_EQ(nvidia_driver_from_windows("32.0.15.6094"), "560.94");
  for (const char* bad : {"", "452.06", "27.21.14", "27.21.14.52066", "a.b.c.d", "27..14.5206"}) {
    EXPECT_FALSE(nvidia_driver_from_windows(bad).has_value()) << bad;
  }
}

// Windows listed its display adapters and none is NVIDIA's: no GPU, with what Windows listed as
// the evidence (or that it listed none).
std::vector<Finding> findings_on(const nlohmann::json& adapters) {
  const sys::ReplaySystem system(testing::windows_snapshot({{"display_adapters", adapters}}));
  const Facts facts = collect_facts(system, testing::embedded_kb());
  const checks::CheckContext context(facts, testing::embedded_kb(), testing::messages());
  auto findings = checks::run_checks(context);
  EXPECT_TRUE(findings.ok());
  return findings.ok() ? *findings : std::vector<Finding>{};
}

TEST(WindowsDisplayAdapters, NoNvidiaAdapterIsNoGpu) {
  const auto intel = findings_on(
      nlohmann::json::array({{{"name", "Intel(R) UHD Graphics 620"},
                              {"provider", "Intel Corporation"},
                              {"pnp_id", "PCI\\VEN_8086&DEV_5917&SUBSYS_00000000&REV_07"}}}));
  ASSERT_FALSE(intel.empty());
  EXPECT_EQ(intel[0].id, "gpu.none");
  EXPECT_NE(intel[0].evidence.at(0).find("Intel(R) UHD Graphics 620"), std::string::npos);
  const auto none = findings_on(nlohmann::json::array());
  ASSERT_FALSE(none.empty());
  EXPECT_EQ(none[0].id, "gpu.none");
  EXPECT_EQ(none[0].evidence.at(0), testing::messages().text("gpu.none.no_display_adapter"));
  // Without the adapters recorded (an older snapshot) nothing is known, and nothing is said.
  const sys::ReplaySystem bare(testing::windows_snapshot());
  const Facts facts = collect_facts(bare, testing::embedded_kb());
  const checks::CheckContext context(facts, testing::embedded_kb(), testing::messages());
  const auto quiet = checks::run_checks(context);
  ASSERT_TRUE(quiet.ok());
  for (const auto& f : *quiet)
    EXPECT_NE(f.id, "gpu.none");
}

}  // namespace
}  // namespace gpuvet::probes
