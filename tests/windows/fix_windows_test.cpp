// gpuvet fix on a real Windows registry (Wine's HKCU\Environment): saved variables removed and
// put back with their type, and gpuvet.exe fix / undo end to end.
#include <gtest/gtest.h>
#include <windows.h>

#include <filesystem>

#include "core/paths.hpp"
#include "core/win32_text.hpp"
#include "fix/apply.hpp"
#include "fix/journal.hpp"
#include "fix/target_files.hpp"
#include "platform/child_process.hpp"
#include "test_support.hpp"

namespace gpuvet::fix {
namespace {

using namespace std::chrono_literals;

const std::string kUser = "HKCU/Environment";

// A variable of this process, set for the test's length.
class ScopedVariable {
 public:
  ScopedVariable(const std::string& name, const std::string& value) : name_(win32::widen(name)) {
    SetEnvironmentVariableW(name_.c_str(), win32::widen(value).c_str());
  }
  ~ScopedVariable() { SetEnvironmentVariableW(name_.c_str(), nullptr); }

 private:
  std::wstring name_;
};

TEST(FixRegistry, TextValuesRoundTripWithTheirType) {
  const std::string name = "GPUVET_TEST_ROUND_TRIP";
  const RegistryData expandable{"REG_EXPAND_SZ", "%USERPROFILE%\\张伟\\bin;C:\\x"};
  ASSERT_TRUE(write_registry_text(kUser, name, expandable));
  auto read = read_registry_text(kUser, name);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, expandable);
  ASSERT_TRUE(write_registry_text(kUser, name, std::nullopt));
  read = read_registry_text(kUser, name);
  ASSERT_TRUE(read);
  EXPECT_FALSE(*read);
  EXPECT_TRUE(write_registry_text(kUser, name, std::nullopt));  // absent already: fine
}

TEST(FixRegistry, ASavedVariableIsRemovedAndUndoPutsItBack) {
  testing::TempDir dir;
  const std::string journal = dir.path() + "/journal";
  const std::string name = "GPUVET_TEST_HIDDEN";
  const RegistryData saved{"REG_SZ", "-1"};
  ASSERT_TRUE(write_registry_text(kUser, name, saved));
  Action a;
  a.kind = ActionKind::set_env_persistent;
  a.target = kUser;
  a.value_name = name;
  a.before = "-1";
  a.old_value = saved;
  const Fix fix{"env.origin." + name, "gpu.not_visible", "", false, {a}, {name}};
  auto id = apply_fixes({&fix}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_FALSE(*read_registry_text(kUser, name));

  // Set again since: undo refuses, --force restores the journal's value.
  ASSERT_TRUE(write_registry_text(kUser, name, RegistryData{"REG_SZ", "0"}));
  auto refused = undo_entry(journal, *id, false, "x");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("changed since the fix"), std::string::npos);
  EXPECT_EQ(*read_registry_text(kUser, name), (RegistryData{"REG_SZ", "0"}));
  ASSERT_TRUE(write_registry_text(kUser, name, std::nullopt));
  ASSERT_TRUE(undo_entry(journal, *id, false, "x"));
  EXPECT_EQ(*read_registry_text(kUser, name), saved);
  ASSERT_TRUE(write_registry_text(kUser, name, std::nullopt));
}

TEST(FixRegistry, ThePathIsRewrittenAndRestoredAsExpandable) {
  testing::TempDir dir;
  const std::string name = "GPUVET_TEST_PATH";
  const RegistryData before{"REG_EXPAND_SZ", "%CUDA_PATH_V9_0%\\bin;C:\\CUDA\\v10.1\\bin"};
  ASSERT_TRUE(write_registry_text(kUser, name, before));
  Action a;
  a.kind = ActionKind::set_registry;
  a.target = kUser;
  a.value_name = name;
  a.old_value = before;
  a.new_value = RegistryData{"REG_EXPAND_SZ", "C:\\CUDA\\v10.1\\bin;%CUDA_PATH_V9_0%\\bin"};
  const Fix fix{"path.order.Path", "cuda.path_order", "", false, {a}, {}};
  auto id = apply_fixes({&fix}, dir.path() + "/j", "2026-12-01T10:00:00Z", "t");
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*read_registry_text(kUser, name), *a.new_value);
  ASSERT_TRUE(undo_entry(dir.path() + "/j", *id, false, "x"));
  EXPECT_EQ(*read_registry_text(kUser, name), before);
  ASSERT_TRUE(write_registry_text(kUser, name, std::nullopt));
}

TEST(FixRegistry, GpuvetExeFixesTheSavedVariableAndUndoesIt) {
  testing::TempDir dir;
  const ScopedVariable local("LOCALAPPDATA", dir.path());
  const ScopedVariable hidden("CUDA_VISIBLE_DEVICES", "-1");
  ASSERT_TRUE(write_registry_text(kUser, "CUDA_VISIBLE_DEVICES", RegistryData{"REG_SZ", "-1"}));

  auto dry = platform::run_child(GPUVET_BINARY, {"fix", "--json"}, 60s);
  ASSERT_EQ(dry.kind, platform::ChildOutcome::Kind::exited) << dry.detail;
  EXPECT_EQ(dry.exit_code, 1) << dry.output;
  EXPECT_NE(dry.output.find("\"set_env_persistent\""), std::string::npos) << dry.output;

  auto applied = platform::run_child(
      GPUVET_BINARY, {"fix", "--apply", "env.origin.CUDA_VISIBLE_DEVICES", "--yes"}, 60s);
  ASSERT_EQ(applied.kind, platform::ChildOutcome::Kind::exited) << applied.detail;
  EXPECT_EQ(applied.exit_code, 0) << applied.output;
  EXPECT_FALSE(*read_registry_text(kUser, "CUDA_VISIBLE_DEVICES"));
  EXPECT_TRUE(std::filesystem::exists(paths::to_fs(dir.path() + "/gpuvet")));

  auto undone = platform::run_child(GPUVET_BINARY, {"undo", "--last"}, 60s);
  ASSERT_EQ(undone.kind, platform::ChildOutcome::Kind::exited) << undone.detail;
  EXPECT_EQ(undone.exit_code, 0) << undone.output;
  EXPECT_EQ(*read_registry_text(kUser, "CUDA_VISIBLE_DEVICES"), (RegistryData{"REG_SZ", "-1"}));
  ASSERT_TRUE(write_registry_text(kUser, "CUDA_VISIBLE_DEVICES", std::nullopt));
}

}  // namespace
}  // namespace gpuvet::fix
