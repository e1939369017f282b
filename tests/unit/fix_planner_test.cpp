// From a diagnosis to the fixes gpuvet fix offers: scenario snapshots of machines we do not have
// (Windows above all), with their saved environment in a test registry.
#include <gtest/gtest.h>

#include <map>

#include "fix/planner.hpp"
#include "fix/target_files.hpp"
#include "pipeline/diagnose.hpp"
#include "report/render_fix.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::fix {
namespace {

class TestRegistry final : public RegistryReader {
 public:
  std::map<std::string, RegistryData> values;  // "key|name"
  Result<std::optional<RegistryData>> read(const std::string& key,
                                           const std::string& name) const override {
    const auto it = values.find(key + "|" + name);
    if (it == values.end()) return std::optional<RegistryData>();
    return std::optional<RegistryData>(it->second);
  }
};

const std::string kUser = "HKCU/Environment";
const std::string kMachine = "HKLM/SYSTEM/CurrentControlSet/Control/Session Manager/Environment";

struct Planned {
  pipeline::Report report;
  FixPlan plan;
};

Planned plan_scenario(const std::string& name, const TestRegistry& registry,
                      std::vector<std::string> requested = {}) {
  auto snapshot =
      sys::load_snapshot_file(std::string(GPUVET_SCENARIO_DIR) + "/" + name + "/snapshot.json");
  EXPECT_TRUE(snapshot) << name;
  const sys::ReplaySystem system(std::move(*snapshot));
  auto report = pipeline::diagnose(system, testing::embedded_kb(), testing::messages());
  EXPECT_TRUE(report) << name;
  auto plan = plan_fixes(report->facts, report->findings, system, registry, testing::embedded_kb(),
                         testing::messages(), {"2026-12-01T10:00:00Z", std::move(requested)});
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().message);
  return {std::move(*report), plan ? std::move(*plan) : FixPlan{}};
}

const Fix* fix_named(const FixPlan& plan, const std::string& id) {
  for (const auto& f : plan.fixes) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

// What the plan holds, for a failure's message.
std::string described(const FixPlan& plan) {
  std::string out;
  for (const auto& f : plan.fixes)
    out += "fix " + f.id + " (" + f.finding + ")\n";
  for (const auto& r : plan.refused)
    out += "refused " + r.finding + " " + r.target + ": " + r.reason + "\n";
  for (const auto& m : plan.manual)
    out += "manual " + m.finding + "\n";
  return out;
}

const Refusal* refusal_of(const FixPlan& plan, const std::string& finding) {
  for (const auto& r : plan.refused) {
    if (r.finding == finding) return &r;
  }
  return nullptr;
}

TEST(FixPlanner, StrayCudnnInSystem32MovesToTheQuarantine) {
  const auto planned = plan_scenario("windows10_stray_cudnn_in_system32", TestRegistry{});
  const Fix* move = fix_named(planned.plan, "lib.move.cudnn64_7.dll");
  ASSERT_NE(move, nullptr);
  ASSERT_EQ(move->actions.size(), 1u);
  EXPECT_EQ(move->actions[0].kind, ActionKind::move_file);
  EXPECT_EQ(move->actions[0].target, "C:/Windows/System32/cudnn64_7.dll");
  EXPECT_EQ(move->finding, "cudnn.version_mismatch");
}

TEST(FixPlanner, AStrayCudartInSystem32MovesToo) {
  const auto planned = plan_scenario("windows10_system32_cudart_shadows_toolkit", TestRegistry{});
  const Fix* move = fix_named(planned.plan, "lib.move.cudart64_101.dll");
  ASSERT_NE(move, nullptr);
  EXPECT_EQ(move->finding, "lib.shadowed_copy");
}

TEST(FixPlanner, AnOldCudnnEarlierOnLdLibraryPathMovesAside) {
  const auto planned = plan_scenario("linux_old_cudnn_shadows_newer", TestRegistry{});
  const Fix* move = fix_named(planned.plan, "lib.move.libcudnn.so.8");
  ASSERT_NE(move, nullptr) << described(planned.plan);
  // The name the loader opens, and the file that link leads to.
  ASSERT_EQ(move->actions.size(), 2u);
  EXPECT_EQ(move->actions[0].target, "/opt/old-project/lib/libcudnn.so.8");
  EXPECT_EQ(move->actions[1].target, "/opt/old-project/lib/libcudnn.so.8.2.4");
  EXPECT_EQ(move->needs_admin, !running_as_admin() && !may_write_beside(move->actions[0].target));
}

TEST(FixPlanner, OldToolkitFirstOnTheSavedPathIsReorderedKeepingItsSpelling) {
  TestRegistry registry;
  registry.values[kUser + "|Path"] = {
      "REG_EXPAND_SZ",
      "%CUDA_PATH_V9_0%\\bin;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin;"
      "%USERPROFILE%\\AppData\\Local\\Microsoft\\WindowsApps"};
  // The planner expands %VAR% from the snapshot's environment.
  auto planned = plan_scenario("windows10_old_toolkit_first_with_its_cudnn", registry);
  const Fix* order = fix_named(planned.plan, "path.order.Path");
  if (!order) {
    // The snapshot's environment lacks CUDA_PATH_V9_0: the entry cannot be matched and the fix
    // says so instead.
    ASSERT_NE(refusal_of(planned.plan, "cuda.path_order"), nullptr);
    registry.values[kUser + "|Path"].data =
        "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v9.0\\bin;"
        "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin;"
        "%USERPROFILE%\\AppData\\Local\\Microsoft\\WindowsApps";
    planned = plan_scenario("windows10_old_toolkit_first_with_its_cudnn", registry);
    order = fix_named(planned.plan, "path.order.Path");
  }
  ASSERT_NE(order, nullptr);
  ASSERT_EQ(order->actions.size(), 1u);
  const Action& a = order->actions[0];
  EXPECT_EQ(a.kind, ActionKind::set_registry);
  EXPECT_EQ(a.target, kUser);
  EXPECT_EQ(a.value_name, "Path");
  ASSERT_TRUE(a.new_value);
  EXPECT_EQ(a.new_value->type, "REG_EXPAND_SZ");
  EXPECT_TRUE(a.new_value->data.starts_with(
      "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin;"))
      << a.new_value->data;
  EXPECT_TRUE(
      a.new_value->data.ends_with(";%USERPROFILE%\\AppData\\Local\\Microsoft\\WindowsApps"));
  EXPECT_FALSE(order->needs_admin);
}

TEST(FixPlanner, TheCondaEnvironmentCanPutItsToolkitFirstForItself) {
  TestRegistry registry;
  registry.values[kUser + "|Path"] = {
      "REG_SZ",
      "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v9.0\\bin;"
      "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin"};
  const auto planned = plan_scenario("windows10_old_toolkit_first_with_its_cudnn", registry);
  const Fix* hook = fix_named(planned.plan, "path.hook.tf21-gpu");
  ASSERT_NE(hook, nullptr) << described(planned.plan);
  // The saved Path can be reordered: that is the default, the hook is there by name.
  EXPECT_TRUE(hook->only_by_id);
  // cmd's conda activation runs the .bat scripts, PowerShell's the .ps1 ones: both are written.
  ASSERT_EQ(hook->actions.size(), 4u);
  EXPECT_TRUE(hook->actions[0].target.ends_with("/etc/conda/activate.d/gpuvet-cuda.bat"));
  EXPECT_TRUE(hook->actions[1].target.ends_with("/etc/conda/deactivate.d/gpuvet-cuda.bat"));
  EXPECT_TRUE(hook->actions[2].target.ends_with("/etc/conda/activate.d/gpuvet-cuda.ps1"));
  EXPECT_TRUE(hook->actions[3].target.ends_with("/etc/conda/deactivate.d/gpuvet-cuda.ps1"));
  const std::string& script = *hook->actions[0].new_bytes;
  EXPECT_NE(script.find("@set \"PATH=C:\\Program Files\\NVIDIA GPU Computing "
                        "Toolkit\\CUDA\\v10.1\\bin;%PATH%\"\r\n"),
            std::string::npos)
      << script;
  const std::string& ps1 = *hook->actions[2].new_bytes;
  EXPECT_TRUE(ps1.starts_with("# gpuvet fix 2026-12-01T10:00:00Z\r\n")) << ps1;
  EXPECT_NE(ps1.find("$env:GPUVET_SAVED_PATH = $env:Path\r\n"), std::string::npos) << ps1;
  EXPECT_NE(ps1.find("$env:Path = \"C:\\Program Files\\NVIDIA GPU Computing "
                     "Toolkit\\CUDA\\v10.1\\bin;\" + $env:Path\r\n"),
            std::string::npos)
      << ps1;
  const std::string& undo_ps1 = *hook->actions[3].new_bytes;
  EXPECT_NE(undo_ps1.find("$env:Path = $env:GPUVET_SAVED_PATH\r\n"), std::string::npos) << undo_ps1;
  EXPECT_EQ(ps1.find('%'), std::string::npos) << "no cmd variable in a PowerShell script";
}

TEST(FixPlanner, TheTextShowsAWindowsMachinesPathsAndRegistryAsWindowsDoes) {
  TestRegistry registry;
  registry.values[kUser + "|Path"] = {
      "REG_SZ",
      "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v9.0\\bin;"
      "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin"};
  const auto planned = plan_scenario("windows10_old_toolkit_first_with_its_cudnn", registry);
  EXPECT_TRUE(planned.plan.windows);
  for (const kb::Lang lang : {kb::Lang::en, kb::Lang::zh}) {
    const std::string text = report::render_fix_text(planned.plan, testing::messages(lang), false);
    EXPECT_NE(text.find("HKCU\\Environment\\Path"), std::string::npos) << text;
    EXPECT_NE(text.find("C:\\Users\\zhang\\Miniconda3\\envs\\tf21-gpu\\etc\\conda\\activate.d\\"
                        "gpuvet-cuda.ps1"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("C:/"), std::string::npos) << text;
  }
  // JSON keeps the documented '/' form.
  EXPECT_NE(report::render_fix_json(planned.plan).find("\"target\": \"HKCU/Environment\""),
            std::string::npos);
}

TEST(FixPlanner, EntriesInTwoSavedPathsAreLeftToTheUser) {
  TestRegistry registry;
  registry.values[kMachine + "|Path"] = {
      "REG_EXPAND_SZ", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v9.0\\bin"};
  registry.values[kUser + "|Path"] = {
      "REG_SZ", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin"};
  const auto planned = plan_scenario("windows10_old_toolkit_first_with_its_cudnn", registry);
  EXPECT_EQ(fix_named(planned.plan, "path.order.Path"), nullptr);
  const Refusal* refused = refusal_of(planned.plan, "cuda.path_order");
  ASSERT_NE(refused, nullptr);
  EXPECT_NE(refused->reason.find("not in one saved Path"), std::string::npos);
}

TEST(FixPlanner, AHiddenGpuSavedInTheRegistryIsRemovedThere) {
  TestRegistry registry;
  registry.values[kUser + "|CUDA_VISIBLE_DEVICES"] = {"REG_SZ", "-1"};
  registry.values[kMachine + "|CUDA_VISIBLE_DEVICES"] = {"REG_SZ", "-1"};
  const auto planned = plan_scenario("windows10_tf21_hidden_gpu", registry);
  const Fix* origin = fix_named(planned.plan, "env.origin.CUDA_VISIBLE_DEVICES");
  ASSERT_NE(origin, nullptr);
  ASSERT_EQ(origin->actions.size(), 2u);
  for (const auto& a : origin->actions) {
    EXPECT_EQ(a.kind, ActionKind::set_env_persistent);
    EXPECT_FALSE(a.new_value);
    EXPECT_EQ(a.old_value, (RegistryData{"REG_SZ", "-1"}));
  }
  EXPECT_EQ(origin->needs_admin, !running_as_admin());  // the machine's needs an administrator
  EXPECT_EQ(origin->unsets, std::vector<std::string>{"CUDA_VISIBLE_DEVICES"});
}

TEST(FixPlanner, AVariableFromNowhereGpuvetReadsIsRefusedWithWhere) {
  const auto planned = plan_scenario("cvd_empty", TestRegistry{});
  EXPECT_EQ(fix_named(planned.plan, "env.origin.CUDA_VISIBLE_DEVICES"), nullptr);
  const Refusal* refused = refusal_of(planned.plan, "gpu.not_visible");
  ASSERT_NE(refused, nullptr);
  EXPECT_NE(refused->reason.find("no start-up or activation script"), std::string::npos);
}

TEST(FixPlanner, FindingsWithoutAnAutomaticFixKeepTheirStepsInWords) {
  const auto planned = plan_scenario("windows10_driver_older_than_cuda101", TestRegistry{});
  ASSERT_FALSE(planned.plan.manual.empty());
  for (const auto& m : planned.plan.manual) {
    EXPECT_FALSE(m.title.empty());
    EXPECT_EQ(fix_named(planned.plan, m.finding), nullptr);
  }
  bool driver = false;
  for (const auto& m : planned.plan.manual)
    driver = driver || m.finding.starts_with("driver.");
  EXPECT_TRUE(driver);
}

TEST(FixPlanner, AllowGrowthOnlyWhenAskedFor) {
  TestRegistry registry;
  auto planned = plan_scenario("windows10_gtx1060_tf21_all_green", registry);
  EXPECT_EQ(fix_named(planned.plan, kAllowGrowthFix), nullptr);
  planned = plan_scenario("windows10_gtx1060_tf21_all_green", registry, {kAllowGrowthFix});
  const Fix* growth = fix_named(planned.plan, kAllowGrowthFix);
  ASSERT_NE(growth, nullptr);
  ASSERT_EQ(growth->actions.size(), 1u);
  EXPECT_EQ(growth->actions[0].target, kUser);
  EXPECT_EQ(growth->actions[0].new_value, (RegistryData{"REG_SZ", "true"}));
}

TEST(FixPlanner, AnInstalledGccTheToolkitTakesBecomesNvccsForNewShells) {
  TestRegistry registry;
  const auto planned = plan_scenario("linux_gcc13_refused_gcc11_installed", registry);
  const Fix* ccbin = fix_named(planned.plan, "env.set.NVCC_CCBIN");
  ASSERT_NE(ccbin, nullptr) << described(planned.plan);
  EXPECT_EQ(ccbin->finding, "cuda.host_compiler_unsupported");
  EXPECT_FALSE(ccbin->only_by_id);
  ASSERT_EQ(ccbin->actions.size(), 1u);
  EXPECT_EQ(ccbin->actions[0].target, "/home/user/.bashrc");
  EXPECT_TRUE(
      ccbin->actions[0].after.starts_with("export NVCC_CCBIN=/usr/bin/gcc-11  # gpuvet fix"))
      << ccbin->actions[0].after;
  // Without an installed GCC the toolkit takes, the steps stay words.
  const auto none = plan_scenario("linux_gcc13_refused_by_cuda121", registry);
  EXPECT_EQ(fix_named(none.plan, "env.set.NVCC_CCBIN"), nullptr) << described(none.plan);
}

}  // namespace
}  // namespace gpuvet::fix
