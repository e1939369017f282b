// gpuvet fix and undo on this machine's real files, through the real binary where a user would
// see it: start-up scripts in a temporary home, a new `bash -i` as the judge of what a shell gets.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/text.hpp"
#include "fix/apply.hpp"
#include "fix/origins.hpp"
#include "fix/planner.hpp"
#include "fix/target_files.hpp"
#include "pipeline/diagnose.hpp"
#include "system/overlay_system.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::fix {
namespace {

using testing::Outcome;
using testing::run_command;
using testing::run_gpuvet;
using testing::TempDir;

std::string read(const std::string& path) {
  return paths::read_file(path, 1 << 20).value();
}

std::uint32_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

const std::string kBashrc =
    "# ~/.bashrc\nalias ll='ls -l'\nexport CUDA_VISIBLE_DEVICES=-1\nif [ -d ~/bin ]; then\n"
    "    export TF_CPP_MIN_LOG_LEVEL=3\nfi\nexport PATH=\"$HOME/bin:$PATH\"\n";

class FixCli : public ::testing::Test {
 protected:
  TempDir dir;
  std::string home = dir.path() + "/home";
  std::string rc = dir.file("home/.bashrc", kBashrc);
  std::string env(const std::string& extra = "") const {
    return "HOME=" + home + " CUDA_VISIBLE_DEVICES=-1 TF_CPP_MIN_LOG_LEVEL=3 " + extra;
  }
  // What a new interactive bash started with this home has of a variable.
  std::string new_shell_value(const std::string& name) const {
    const auto out = run_command("env -i PATH=/usr/bin:/bin HOME=" + home +
                                 " bash -i -c 'echo \"${" + name + "-unset}\"' 2>/dev/null");
    return std::string(text::trim(out.output));
  }
};

TEST_F(FixCli, DryRunShowsTheLinesAndChangesNothing) {
  const Outcome run = run_gpuvet("fix", env());
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_NE(run.out.find("env.origin.CUDA_VISIBLE_DEVICES"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(rc + ":3"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("- export CUDA_VISIBLE_DEVICES=-1"), std::string::npos);
  EXPECT_EQ(read(rc), kBashrc);

  const Outcome json = run_gpuvet("fix --json", env());
  EXPECT_EQ(json.status, 1);
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["schema"], "gpuvet.fix/1");
  bool found = false;
  for (const auto& f : doc["fixes"]) {
    if (f["id"] != "env.origin.TF_CPP_MIN_LOG_LEVEL") continue;
    found = true;
    EXPECT_EQ(f["finding"], "env.log_level_hides_errors");
    ASSERT_EQ(f["actions"].size(), 1u);
    const auto& a = f["actions"][0];
    EXPECT_EQ(a["kind"], "edit_line");
    EXPECT_EQ(a["target"], rc);
    EXPECT_EQ(a["before"], "    export TF_CPP_MIN_LOG_LEVEL=3");
    // Inside an if: the no-op ':' keeps the block non-empty for the shell.
    EXPECT_TRUE(a["after"].get<std::string>().starts_with("    : # export TF_CPP_MIN_LOG_LEVEL=3"));
  }
  EXPECT_TRUE(found) << json.out;
}

TEST_F(FixCli, ApplyReachesANewShellAndUndoGivesBackEveryByte) {
  ::chmod(rc.c_str(), 0600);
  ASSERT_EQ(new_shell_value("CUDA_VISIBLE_DEVICES"), "-1");
  const Outcome applied = run_gpuvet("fix --apply all --yes", env());
  ASSERT_EQ(applied.status, 0) << applied.out << applied.err;
  EXPECT_NE(applied.out.find("gone: gpu.not_visible, env.log_level_hides_errors"),
            std::string::npos)
      << applied.out;
  EXPECT_EQ(new_shell_value("CUDA_VISIBLE_DEVICES"), "unset");
  std::filesystem::create_directories(home + "/bin");  // the if now runs its body: still valid
  EXPECT_EQ(new_shell_value("TF_CPP_MIN_LOG_LEVEL"), "unset");
  const std::string edited = read(rc);
  EXPECT_NE(edited.find("alias ll='ls -l'\n"), std::string::npos);
  EXPECT_NE(edited.find("export PATH=\"$HOME/bin:$PATH\"\n"), std::string::npos);
  EXPECT_EQ(mode_of(rc), 0600u);

  const Outcome listed = run_gpuvet("undo --list", "HOME=" + home);
  EXPECT_EQ(listed.status, 0) << listed.err;
  EXPECT_NE(listed.out.find("applied"), std::string::npos);

  const Outcome undone = run_gpuvet("undo --last", "HOME=" + home);
  ASSERT_EQ(undone.status, 0) << undone.out << undone.err;
  EXPECT_EQ(read(rc), kBashrc);
  EXPECT_EQ(mode_of(rc), 0600u);
  EXPECT_EQ(new_shell_value("CUDA_VISIBLE_DEVICES"), "-1");

  const Outcome again = run_gpuvet("undo --last", "HOME=" + home);
  EXPECT_EQ(again.status, 2);
  EXPECT_EQ(testing::line_count(again.err), 1u) << again.err;
}

TEST_F(FixCli, ApplyingAsksOnATerminalAndRefusesWithoutOne) {
  const Outcome run = run_gpuvet("fix --apply all", env());
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--yes"), std::string::npos) << run.err;
  EXPECT_EQ(testing::line_count(run.err), 1u);
  EXPECT_EQ(read(rc), kBashrc);
  const Outcome unknown = run_gpuvet("fix --apply no.such.fix --yes", env());
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("no fix named no.such.fix"), std::string::npos);
  EXPECT_EQ(read(rc), kBashrc);
}

TEST_F(FixCli, OnlyOneFixById) {
  const Outcome applied = run_gpuvet("fix --apply env.origin.TF_CPP_MIN_LOG_LEVEL --yes", env());
  ASSERT_EQ(applied.status, 0) << applied.err;
  EXPECT_NE(read(rc).find("\nexport CUDA_VISIBLE_DEVICES=-1\n"), std::string::npos);
  EXPECT_EQ(read(rc).find("\n    export TF_CPP_MIN_LOG_LEVEL=3\n"), std::string::npos);
}

TEST_F(FixCli, FixesThatWouldChangeOneFileTwoWaysAreRefusedTogether) {
  const Outcome run =
      run_gpuvet("fix --apply all env.set.TF_FORCE_GPU_ALLOW_GROWTH --yes", env("SHELL=/bin/bash"));
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_NE(run.err.find("apply them one at a time"), std::string::npos) << run.err;
  EXPECT_EQ(read(rc), kBashrc);
}

TEST_F(FixCli, ADotfileLinkIsEditedWhereItLives) {
  std::filesystem::remove(rc);
  const std::string real = dir.file("dotfiles/bashrc", kBashrc);
  std::filesystem::create_symlink(real, rc);
  const Outcome applied = run_gpuvet("fix --apply env.origin.CUDA_VISIBLE_DEVICES --yes", env());
  ASSERT_EQ(applied.status, 0) << applied.err;
  EXPECT_TRUE(std::filesystem::is_symlink(rc));
  EXPECT_NE(read(real).find("# export CUDA_VISIBLE_DEVICES=-1"), std::string::npos);
  ASSERT_EQ(run_gpuvet("undo", "HOME=" + home).status, 0);
  EXPECT_EQ(read(real), kBashrc);
  EXPECT_TRUE(std::filesystem::is_symlink(rc));
}

TEST_F(FixCli, AllowGrowthGoesIntoTheShellsOwnFileAndUndoMovesItAway) {
  const Outcome applied =
      run_gpuvet("fix --apply env.set.TF_FORCE_GPU_ALLOW_GROWTH --yes", env("SHELL=/bin/zsh"));
  ASSERT_EQ(applied.status, 0) << applied.out << applied.err;
  const std::string zshrc = home + "/.zshrc";
  EXPECT_TRUE(read(zshrc).starts_with("export TF_FORCE_GPU_ALLOW_GROWTH=true  # gpuvet fix "));
  ASSERT_EQ(run_gpuvet("undo --last", "HOME=" + home).status, 0);
  EXPECT_FALSE(std::filesystem::exists(zshrc));
}

TEST_F(FixCli, ACorruptJournalIsAOneLineErrorAndExitTwo) {
  ASSERT_EQ(run_gpuvet("fix --apply all --yes", env()).status, 0);
  const std::string edited = read(rc);
  for (const auto& entry : std::filesystem::directory_iterator(home + "/.local/state/gpuvet")) {
    std::ofstream(entry.path() / "entry.json", std::ios::binary) << "{\"schema\": 7";
  }
  for (const char* verb : {"undo --list", "undo --last"}) {
    const Outcome run = run_gpuvet(verb, "HOME=" + home);
    EXPECT_EQ(run.status, 2) << verb;
    EXPECT_NE((run.out + run.err).find("corrupt"), std::string::npos) << verb << run.out << run.err;
  }
  EXPECT_EQ(testing::line_count(run_gpuvet("undo --last", "HOME=" + home).err), 1u);
  EXPECT_EQ(read(rc), edited);
}

TEST(FixTargets, LinksAreNeverWrittenThrough) {
  TempDir dir;
  const std::string target = dir.file("outside", "keep");
  const std::string link = dir.path() + "/link";
  std::filesystem::create_symlink(target, link);
  auto replaced = replace_target(link, "new");
  ASSERT_FALSE(replaced);
  EXPECT_NE(replaced.error().message.find("symbolic link"), std::string::npos);
  EXPECT_FALSE(read_target(link, 100));
  EXPECT_EQ(read(target), "keep");
}

TEST(FixPlannerLive, ACondaActivationScriptIsAnOrigin) {
  TempDir dir;
  const std::string env_path = dir.path() + "/miniconda3/envs/tf";
  const std::string hook = dir.file("miniconda3/envs/tf/etc/conda/activate.d/gpu.sh",
                                    "#!/bin/sh\nexport CUDA_VISIBLE_DEVICES=\"-1\"\n");
  dir.file("miniconda3/envs/tf/etc/conda/activate.d/notes.txt", "export CUDA_VISIBLE_DEVICES=-1\n");
  dir.file("home/.profile", "export CUDA_VISIBLE_DEVICES=-1; echo hi\n");
  const auto live = sys::make_live_system();
  const sys::EnvOverlaySystem system(
      *live, {{"HOME", dir.path() + "/home"}, {"CUDA_VISIBLE_DEVICES", "-1"}});
  pipeline::Report report;
  report.facts.os.family = "linux";
  PythonEnvFact env;
  env.path = env_path;
  env.kind = "conda";
  report.facts.python_envs.push_back(env);
  Finding hidden;
  hidden.id = "gpu.not_visible";
  hidden.severity = Severity::error;
  report.findings.push_back(hidden);
  auto plan = plan_fixes(report.facts, report.findings, system, live_registry(),
                         testing::embedded_kb(), testing::messages(), {"2026-12-01T10:00:00Z", {}});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->fixes.size(), 1u);
  ASSERT_EQ(plan->fixes[0].actions.size(), 1u);
  EXPECT_EQ(plan->fixes[0].actions[0].target, hook);
  EXPECT_EQ(plan->fixes[0].actions[0].line, 2u);
  // The compound line in ~/.profile is named, not edited.
  ASSERT_EQ(plan->refused.size(), 1u);
  EXPECT_NE(plan->refused[0].target.find(".profile:1"), std::string::npos);
  EXPECT_NE(plan->refused[0].reason.find("does more than set"), std::string::npos);
}

TEST(FixPlannerLive, ACondaEnvironmentVariableIsRemovedFromItsState) {
  TempDir dir;
  const std::string env_path = dir.path() + "/envs/tf";
  const std::string state_bytes =
      "{\n  \"env_vars\": {\n    \"CUDA_VISIBLE_DEVICES\": \"-1\",\n    \"OTHER\": \"x\"\n  }\n}";
  const std::string state = dir.file("envs/tf/conda-meta/state", state_bytes);
  const auto live = sys::make_live_system();
  const sys::EnvOverlaySystem system(
      *live, {{"HOME", dir.path() + "/home"}, {"CUDA_VISIBLE_DEVICES", "-1"}});
  Facts facts;
  facts.os.family = "linux";
  PythonEnvFact env;
  env.path = env_path;
  env.kind = "conda";
  facts.python_envs.push_back(env);
  Finding hidden;
  hidden.id = "gpu.not_visible";
  hidden.severity = Severity::error;
  auto plan = plan_fixes(facts, {hidden}, system, live_registry(), testing::embedded_kb(),
                         testing::messages(), {"2026-12-01T10:00:00Z", {}});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->fixes.size(), 1u);
  auto id = apply_fixes({&plan->fixes[0]}, dir.path() + "/j", plan->stamp, "t");
  ASSERT_TRUE(id) << id.error().message;
  const auto written = nlohmann::json::parse(read(state));
  EXPECT_FALSE(written["env_vars"].contains("CUDA_VISIBLE_DEVICES"));
  EXPECT_EQ(written["env_vars"]["OTHER"], "x");
  ASSERT_TRUE(undo_entry(dir.path() + "/j", *id, false, "x"));
  EXPECT_EQ(read(state), state_bytes);
}

TEST(FixOwners, AFileDpkgInstalledIsNotMoved) {
  auto doc = nlohmann::json::parse(
      read(std::string(GPUVET_SCENARIO_DIR) + "/linux_old_cudnn_shadows_newer/snapshot.json"));
  doc["files"]["/var/lib/dpkg/info/libcudnn8:amd64.list"] = {
      {"text", "/.\n/opt\n/opt/old-project/lib\n/opt/old-project/lib/libcudnn.so.8\n"}};
  doc["files"]["/var/lib/dpkg/info/zlib1g:amd64.list"] = {{"text", "/usr/lib/libz.so.1\n"}};
  const sys::ReplaySystem system(testing::snapshot_from(doc));
  auto report = pipeline::diagnose(system, testing::embedded_kb(), testing::messages());
  ASSERT_TRUE(report);
  auto plan = plan_fixes(report->facts, report->findings, system, live_registry(),
                         testing::embedded_kb(), testing::messages(), {"2026-12-01T10:00:00Z", {}});
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->fixes.empty());
  ASSERT_EQ(plan->refused.size(), 1u);
  EXPECT_NE(plan->refused[0].reason.find("dpkg package libcudnn8"), std::string::npos)
      << plan->refused[0].reason;
  EXPECT_NE(plan->refused[0].reason.find("package manager"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet::fix

#include "fix/apply.hpp"
#include "fix/cudnn_install.hpp"

namespace gpuvet::fix {
namespace {

// A Linux archive as NVIDIA ships it (extracted): its sonames are links, copied as links.
TEST(FixCudnnInstallPosix, AFolderWithLinksKeepsThemLinks) {
  TempDir dir;
  const std::string archive = dir.path() + "/cudnn-linux-x86_64-9.1.0.70_cuda12-archive";
  dir.file("cudnn-linux-x86_64-9.1.0.70_cuda12-archive/include/cudnn_version.h",
           "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n");
  dir.file("cudnn-linux-x86_64-9.1.0.70_cuda12-archive/lib/libcudnn.so.9.1.0", "ELF cudnn");
  std::filesystem::create_symlink("libcudnn.so.9.1.0", archive + "/lib/libcudnn.so.9");
  std::filesystem::create_symlink("libcudnn.so.9", archive + "/lib/libcudnn.so");
  const std::string toolkit = dir.path() + "/cuda-12.4";
  for (const char* sub : {"include", "lib64", "bin"})
    std::filesystem::create_directories(toolkit + "/" + sub);
  Facts facts;
  facts.os.family = "linux";
  CudaToolkitFact t;
  t.root = toolkit;
  t.version = "12.4.131";
  t.source = "default-location";
  facts.cuda_toolkits.push_back(t);
  auto plan = plan_cudnn_install(facts, testing::embedded_kb(), testing::messages(),
                                 {archive, std::nullopt, "2026-12-01T10:00:00Z"});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->fixes.size(), 1u);
  auto id = apply_fixes({&plan->fixes[0]}, dir.path() + "/journal", plan->stamp, "t");
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(std::filesystem::read_symlink(toolkit + "/lib64/libcudnn.so.9"), "libcudnn.so.9.1.0");
  EXPECT_EQ(read(toolkit + "/lib64/libcudnn.so"), "ELF cudnn");  // through two links
  EXPECT_EQ(read(toolkit + "/include/cudnn_version.h").substr(0, 21), "#define CUDNN_MAJOR 9");
  ASSERT_TRUE(undo_entry(dir.path() + "/journal", *id, false, "x"));
  EXPECT_TRUE(std::filesystem::is_empty(toolkit + "/lib64"));
  EXPECT_TRUE(std::filesystem::is_empty(toolkit + "/include"));
}

TEST_F(FixCli, CudnnInstallNeedsItsSourceAndSaysWhyItWillNot) {
  EXPECT_EQ(run_gpuvet("fix cudnn-install", env()).status, 2);
  EXPECT_EQ(run_gpuvet("fix cudnn-install --from /no/such.zip", env()).status, 2);
  EXPECT_EQ(run_gpuvet("fix --from x", env()).status, 2);
  const Outcome refused = run_gpuvet("fix cudnn-install --toolkit /no/toolkit --from " +
                                         std::string(GPUVET_FIX_FIXTURES) +
                                         "/cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip",
                                     env());
  EXPECT_EQ(refused.status, 0) << refused.err;
  EXPECT_NE(refused.out.find("no CUDA toolkit"), std::string::npos) << refused.out;
}

}  // namespace
}  // namespace gpuvet::fix

namespace gpuvet::fix {
namespace {

// Two toolkits, the older first, and one environment of each kind with a CUDA 12.4 torch.
struct HookMachine {
  TempDir dir;
  std::string old_root = dir.path() + "/cuda-11.8";
  std::string new_root = dir.path() + "/cuda-12.4";
  std::string conda = dir.path() + "/miniconda3/envs/torch";
  std::string venv = dir.path() + "/venv";
  Facts facts;
  std::vector<Finding> findings;

  HookMachine() {
    dir.file("venv/bin/activate",
             "deactivate () {\n    export PATH=\"$_OLD_VIRTUAL_PATH\"\n}\n"
             "_OLD_VIRTUAL_PATH=\"$PATH\"\nexport PATH=\"" +
                 dir.path() + "/venv/bin:$PATH\"\n");
    dir.file("miniconda3/envs/torch/conda-meta/history", "");
    facts.os.family = "linux";
    for (const auto& [root, version] : {std::pair{old_root, "11.8.89"}, {new_root, "12.4.131"}}) {
      CudaToolkitFact t;
      t.root = root;
      t.version = version;
      t.source = "default-location";
      facts.cuda_toolkits.push_back(t);
    }
    for (const auto& [path, kind] : {std::pair{conda, "conda"}, {venv, "venv"}}) {
      PythonEnvFact env;
      env.path = path;
      env.kind = kind;
      FrameworkFact torch;
      torch.name = "torch";
      torch.package = "torch";
      torch.gpu_build = true;
      torch.cuda = "12.4";
      env.frameworks.push_back(torch);
      facts.python_envs.push_back(env);
    }
    Finding order;
    order.id = "cuda.path_order";
    order.severity = Severity::warning;
    order.details = {{"variable", "LD_LIBRARY_PATH"},
                     {"old_entry", old_root + "/lib64"},
                     {"new_entry", new_root + "/lib64"},
                     {"old_root", old_root},
                     {"new_root", new_root}};
    findings.push_back(order);
  }

  FixPlan plan() const {
    const auto live = sys::make_live_system();
    const sys::EnvOverlaySystem system(*live, {{"HOME", dir.path() + "/home"}});
    auto planned = plan_fixes(facts, findings, system, live_registry(), testing::embedded_kb(),
                              testing::messages(), {"2026-12-01T10:00:00Z", {}});
    EXPECT_TRUE(planned) << planned.error().message;
    return planned ? *planned : FixPlan{};
  }
};

std::string in_bash(const std::string& script) {
  return std::string(text::trim(
      run_command("env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=/opt/other bash -c '" + script + "'")
          .output));
}

TEST(FixHooks, EachEnvironmentPutsItsToolkitFirstWhileActive) {
  HookMachine machine;
  const FixPlan plan = machine.plan();
  const Fix* conda = nullptr;
  const Fix* venv = nullptr;
  for (const auto& f : plan.fixes) {
    if (f.id == "path.hook.torch") conda = &f;
    if (f.id == "path.hook.venv") venv = &f;
  }
  ASSERT_NE(conda, nullptr);
  ASSERT_NE(venv, nullptr);
  // Nothing machine-wide could be fixed (no start-up line adds the old toolkit): hooks are the
  // fix --apply all makes.
  EXPECT_FALSE(conda->only_by_id);
  const std::string journal = machine.dir.path() + "/journal";
  const std::string activate_before = read(machine.venv + "/bin/activate");
  auto id = apply_fixes({conda, venv}, journal, plan.stamp, "t");
  ASSERT_TRUE(id) << id.error().message;

  const std::string hooks = machine.conda + "/etc/conda/";
  EXPECT_EQ(in_bash(". " + hooks + "activate.d/gpuvet-cuda.sh; echo $LD_LIBRARY_PATH"),
            machine.new_root + "/lib64:/opt/other");
  EXPECT_EQ(
      in_bash(". " + hooks + "activate.d/gpuvet-cuda.sh; . " + hooks +
              "deactivate.d/gpuvet-cuda.sh; echo $LD_LIBRARY_PATH; echo ${GPUVET_SAVED_PATH-gone}"),
      "/opt/other\ngone");
  EXPECT_EQ(in_bash(". " + machine.venv + "/bin/activate; echo $LD_LIBRARY_PATH"),
            machine.new_root + "/lib64:/opt/other");
  EXPECT_TRUE(read(machine.venv + "/bin/activate").starts_with(activate_before));

  ASSERT_TRUE(undo_entry(journal, *id, false, "x"));
  EXPECT_EQ(read(machine.venv + "/bin/activate"), activate_before);
  EXPECT_FALSE(std::filesystem::exists(hooks + "activate.d/gpuvet-cuda.sh"));
  EXPECT_FALSE(std::filesystem::exists(hooks + "deactivate.d/gpuvet-cuda.sh"));
}

TEST(FixHooks, TheLineThatPutsTheOldToolkitFirstIsTheDefaultFix) {
  HookMachine machine;
  const std::string rc = machine.dir.file(
      "home/.bashrc",
      "export CUDA_HOME=" + machine.old_root + "\nexport LD_LIBRARY_PATH=" + machine.old_root +
          "/lib64:$LD_LIBRARY_PATH\nexport LD_LIBRARY_PATH=" + machine.new_root +
          "/lib64:" + machine.old_root + "/lib64\nexport CUDA_HOME=" + machine.new_root + "\n");
  const FixPlan plan = machine.plan();
  const Fix* order = nullptr;
  for (const auto& f : plan.fixes) {
    if (f.id == "path.order.LD_LIBRARY_PATH") order = &f;
    // The machine-wide order is fixed: the hooks wait to be named.
    if (f.id.starts_with("path.hook.")) {
      EXPECT_TRUE(f.only_by_id) << f.id;
    }
  }
  ASSERT_NE(order, nullptr);
  std::vector<size_t> lines;
  for (const auto& a : order->actions) {
    EXPECT_EQ(a.target, rc);
    lines.push_back(*a.line);
  }
  EXPECT_EQ(lines, (std::vector<size_t>{2, 1}));
  // The line that names both toolkits is named, not edited.
  ASSERT_EQ(plan.refused.size(), 1u);
  EXPECT_NE(plan.refused[0].target.find(".bashrc:3"), std::string::npos);
}

TEST(FixHooks, XlaFindsLibdeviceInTheToolkitForThatEnvironment) {
  HookMachine machine;
  Finding libdevice;
  libdevice.id = "cuda.nvvm_libdevice_missing";
  libdevice.severity = Severity::error;
  libdevice.details = {{"env", machine.conda}, {"toolkit", machine.new_root}};
  machine.findings = {libdevice};
  const FixPlan plan = machine.plan();
  ASSERT_EQ(plan.fixes.size(), 1u);
  EXPECT_EQ(plan.fixes[0].id, "xla.hook.torch");
  auto id = apply_fixes({&plan.fixes[0]}, machine.dir.path() + "/j", plan.stamp, "t");
  ASSERT_TRUE(id) << id.error().message;
  const std::string hooks = machine.conda + "/etc/conda/";
  EXPECT_EQ(in_bash("XLA_FLAGS=--xla_dump_to=/tmp/x; . " + hooks +
                    "activate.d/gpuvet-xla.sh; echo $XLA_FLAGS"),
            "--xla_dump_to=/tmp/x --xla_gpu_cuda_data_dir=" + machine.new_root);
  EXPECT_EQ(in_bash(". " + hooks + "activate.d/gpuvet-xla.sh; . " + hooks +
                    "deactivate.d/gpuvet-xla.sh; echo ${XLA_FLAGS-unset}"),
            "unset");
}

}  // namespace
}  // namespace gpuvet::fix
