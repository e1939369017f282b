// gpuvet fix's journal on real files: every apply is recorded before it is made, and undo gives
// back every byte, or refuses and touches nothing.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/paths.hpp"
#include "fix/apply.hpp"
#include "fix/journal.hpp"
#include "fix/target_files.hpp"
#include "test_support.hpp"

namespace gpuvet::fix {
namespace {

using testing::TempDir;

std::string read(const std::string& path) {
  return paths::read_file(path, 1 << 20).value();
}

bool exists(const std::string& path) {
  std::error_code error;
  return std::filesystem::exists(paths::to_fs(path), error);
}

Fix comment_line(const std::string& id, const std::string& file, size_t line,
                 const std::string& before) {
  Action a;
  a.kind = ActionKind::edit_line;
  a.target = file;
  a.line = line;
  a.before = before;
  a.after = "# " + before + "  # gpuvet fix T";
  return Fix{id, "gpu.not_visible", "", false, {a}, {}};
}

class FixJournal : public ::testing::Test {
 protected:
  TempDir dir;
  std::string journal = dir.path() + "/state/gpuvet";
  const std::string original =
      "alias ll='ls -l'\r\nexport CUDA_VISIBLE_DEVICES=-1\r\n"
      "export TF_CPP_MIN_LOG_LEVEL=3\r\n# end";
  std::string rc = dir.file("home/.bashrc", original);
};

TEST_F(FixJournal, ApplyThenUndoGivesBackEveryByte) {
  const Fix fix = comment_line("a", rc, 2, "export CUDA_VISIBLE_DEVICES=-1");
  auto id = apply_fixes({&fix}, journal, "2026-12-01T10:00:00Z", "gpuvet test");
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*id, "20261201T100000Z");
  EXPECT_EQ(read(rc),
            "alias ll='ls -l'\r\n# export CUDA_VISIBLE_DEVICES=-1  # gpuvet fix T\r\n"
            "export TF_CPP_MIN_LOG_LEVEL=3\r\n# end");
  auto entry = read_entry(journal, *id);
  ASSERT_TRUE(entry) << entry.error().message;
  ASSERT_EQ(entry->actions.size(), 1u);
  EXPECT_TRUE(entry->actions[0].done);
  EXPECT_EQ(entry->actions[0].original_sum, checksum_of(original));
  EXPECT_EQ(read(entry_directory(journal, *id) + "/" + *entry->actions[0].original), original);

  auto undone = undo_entry(journal, *id, false, "2026-12-01T11:00:00Z");
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_EQ(read(rc), original);
  EXPECT_EQ(read_entry(journal, *id)->undone, "2026-12-01T11:00:00Z");
  auto again = undo_entry(journal, *id, false, "later");
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("undone already"), std::string::npos);
}

TEST_F(FixJournal, FixesOnOneFileComposeAndUndoStepsBackThroughHistory) {
  const Fix first = comment_line("a", rc, 2, "export CUDA_VISIBLE_DEVICES=-1");
  const Fix second = comment_line("b", rc, 3, "export TF_CPP_MIN_LOG_LEVEL=3");
  auto one = apply_fixes({&first}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_TRUE(one) << one.error().message;
  const std::string after_one = read(rc);
  auto two = apply_fixes({&second}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_TRUE(two) << two.error().message;
  EXPECT_EQ(*two, "20261201T100000Z-2");  // one second, two entries
  EXPECT_NE(read(rc).find("# export TF_CPP_MIN_LOG_LEVEL=3"), std::string::npos);

  EXPECT_EQ(*last_undoable_entry(journal), *two);
  ASSERT_TRUE(undo_entry(journal, *two, false, "x"));
  EXPECT_EQ(read(rc), after_one);
  EXPECT_EQ(*last_undoable_entry(journal), *one);
  ASSERT_TRUE(undo_entry(journal, *one, false, "y"));
  EXPECT_EQ(read(rc), original);
  EXPECT_FALSE(last_undoable_entry(journal));
}

TEST_F(FixJournal, BothLinesInOneApply) {
  const Fix first = comment_line("a", rc, 2, "export CUDA_VISIBLE_DEVICES=-1");
  const Fix second = comment_line("b", rc, 3, "export TF_CPP_MIN_LOG_LEVEL=3");
  auto id = apply_fixes({&first, &second}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_TRUE(id) << id.error().message;
  ASSERT_TRUE(undo_entry(journal, *id, false, "x"));
  EXPECT_EQ(read(rc), original);
}

TEST_F(FixJournal, AFileChangedSinceThePlanIsNotTouched) {
  const Fix fix = comment_line("a", rc, 2, "export CUDA_VISIBLE_DEVICES=0");
  auto id = apply_fixes({&fix}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_FALSE(id);
  EXPECT_NE(id.error().message.find("changed since gpuvet read it"), std::string::npos);
  EXPECT_EQ(read(rc), original);
  EXPECT_FALSE(exists(journal + "/20261201T100000Z"));
}

TEST_F(FixJournal, UndoRefusesATargetChangedSinceAndForceKeepsItAside) {
  const Fix fix = comment_line("a", rc, 2, "export CUDA_VISIBLE_DEVICES=-1");
  auto id = apply_fixes({&fix}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_TRUE(id);
  const std::string edited = read(rc) + "\nexport NEW=1\n";
  dir.file("home/.bashrc", edited);
  auto refused = undo_entry(journal, *id, false, "x");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("changed since the fix"), std::string::npos);
  EXPECT_NE(refused.error().message.find("--force"), std::string::npos);
  EXPECT_EQ(read(rc), edited);
  EXPECT_FALSE(read_entry(journal, *id)->undone);

  auto forced = undo_entry(journal, *id, true, "x");
  ASSERT_TRUE(forced) << forced.error().message;
  EXPECT_EQ(read(rc), original);
  ASSERT_EQ(forced->kept_aside.size(), 1u);
  EXPECT_EQ(read(entry_directory(journal, *id) + "/kept/0/.bashrc"), edited);
}

TEST_F(FixJournal, AMovedFileWaitsInTheQuarantineAndComesBack) {
  const std::string stray = dir.file("System32/cudnn64_7.dll", std::string("MZ\0\x01stray", 8));
  Action move;
  move.kind = ActionKind::move_file;
  move.target = stray;
  const Fix fix{"lib.move.cudnn64_7.dll", "lib.shadowed_copy", "", false, {move}, {}};
  auto id = apply_fixes({&fix}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_FALSE(exists(stray));
  const std::string waiting = entry_directory(journal, *id) + "/quarantine/0/cudnn64_7.dll";
  EXPECT_EQ(read(waiting), std::string("MZ\0\x01stray", 8));

  dir.file("System32/cudnn64_7.dll", "another");
  auto refused = undo_entry(journal, *id, false, "x");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("another file is there now"), std::string::npos);
  std::filesystem::remove(paths::to_fs(stray));
  ASSERT_TRUE(undo_entry(journal, *id, false, "x"));
  EXPECT_EQ(read(stray), std::string("MZ\0\x01stray", 8));
  EXPECT_FALSE(exists(waiting));
}

TEST_F(FixJournal, ANewFileIsMovedIntoTheEntryOnUndoNotDeleted) {
  Action write;
  write.kind = ActionKind::write_file;
  write.target = dir.path() + "/home/.zshrc";
  write.after = "export TF_FORCE_GPU_ALLOW_GROWTH=true";
  write.new_bytes = "export TF_FORCE_GPU_ALLOW_GROWTH=true\n";
  const Fix fix{"env.set.X", "cudnn.init_failed_oom", "", false, {write}, {}};
  auto id = apply_fixes({&fix}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(read(write.target), *write.new_bytes);
  ASSERT_TRUE(undo_entry(journal, *id, false, "x"));
  EXPECT_FALSE(exists(write.target));
  EXPECT_EQ(read(entry_directory(journal, *id) + "/kept/0/.zshrc"), *write.new_bytes);
}

TEST_F(FixJournal, AFailedActionTakesBackTheOnesBeforeIt) {
  const Fix first = comment_line("a", rc, 2, "export CUDA_VISIBLE_DEVICES=-1");
  Action move;
  move.kind = ActionKind::move_file;
  move.target = dir.file("lib/libcudnn.so.7", "x");
  const Fix second{"b", "lib.shadowed_copy", "", false, {move}, {}};
  Action write;  // under a file, not a folder: the write fails after two actions
  write.kind = ActionKind::write_file;
  write.target = rc + "/under-a-file";
  write.new_bytes = "y";
  const Fix third{"c", "cudnn.init_failed_oom", "", false, {write}, {}};
  auto id = apply_fixes({&first, &second, &third}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_FALSE(id);
  EXPECT_NE(id.error().message.find("the 2 action(s) made before it were taken back"),
            std::string::npos)
      << id.error().message;
  EXPECT_EQ(read(rc), original);
  EXPECT_EQ(read(move.target), "x");
  auto entry = read_entry(journal, "20261201T100000Z");
  ASSERT_TRUE(entry);
  EXPECT_TRUE(entry->undone);
}

TEST_F(FixJournal, ACorruptEntryIsAClearErrorAndNothingIsTouched) {
  const Fix fix = comment_line("a", rc, 2, "export CUDA_VISIBLE_DEVICES=-1");
  auto id = apply_fixes({&fix}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_TRUE(id);
  const std::string changed = read(rc);
  std::string escaping = read(entry_directory(journal, *id) + "/entry.json");
  escaping.replace(escaping.find("originals/0"), 11, "originals/../../x");
  for (const std::string& corrupt :
       {std::string("{not json"), std::string("\x00\x01\x02", 3), std::string("{}"), escaping}) {
    dir.file("state/gpuvet/" + *id + "/entry.json", corrupt);
    auto undone = undo_entry(journal, *id, false, "x");
    ASSERT_FALSE(undone);
    EXPECT_NE(undone.error().message.find("journal entry " + *id), std::string::npos)
        << undone.error().message;
    EXPECT_EQ(undone.error().message.find('\n'), std::string::npos);
    EXPECT_EQ(read(rc), changed);
  }
  auto listed = list_entries(journal);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_FALSE((*listed)[0].entry);
}

TEST_F(FixJournal, AUtf16BatchFileStaysUtf16WithItsBom) {
  std::string bytes = "\xFF\xFE";
  for (const char c : std::string("@echo off\r\nset CUDA_VISIBLE_DEVICES=-1\r\n")) {
    bytes.push_back(c);
    bytes.push_back('\0');
  }
  const std::string bat = dir.file("env/etc/conda/activate.d/gpu.bat", bytes);
  Action a;
  a.kind = ActionKind::edit_line;
  a.target = bat;
  a.line = 2;
  a.before = "set CUDA_VISIBLE_DEVICES=-1";
  a.after = "rem set CUDA_VISIBLE_DEVICES=-1  gpuvet fix T";
  const Fix fix{"a", "gpu.not_visible", "", false, {a}, {}};
  auto id = apply_fixes({&fix}, journal, "2026-12-01T10:00:00Z", "t");
  ASSERT_TRUE(id) << id.error().message;
  const std::string edited = read(bat);
  ASSERT_TRUE(edited.starts_with("\xFF\xFE@\0e\0"));
  EXPECT_NE(edited.find(std::string("r\0e\0m\0 \0s\0e\0t\0", 14)), std::string::npos);
  EXPECT_EQ(edited.size() % 2, 0u);
  ASSERT_TRUE(undo_entry(journal, *id, false, "x"));
  EXPECT_EQ(read(bat), bytes);
}

TEST(FixJournalDirectory, FollowsXdgThenHomeAndLocalAppDataOnWindows) {
  EXPECT_EQ(journal_directory({{"XDG_STATE_HOME", "/x/state"}, {"HOME", "/home/u"}}, false),
            "/x/state/gpuvet");
  EXPECT_EQ(journal_directory({{"XDG_STATE_HOME", "relative"}, {"HOME", "/home/u"}}, false),
            "/home/u/.local/state/gpuvet");
  EXPECT_EQ(journal_directory({{"HOME", "/home/u"}}, false), "/home/u/.local/state/gpuvet");
  EXPECT_EQ(journal_directory({{"LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local"}}, true),
            "C:/Users/u/AppData/Local/gpuvet");
  EXPECT_FALSE(journal_directory({}, false));
  EXPECT_EQ(entry_id_for("2026-12-01T10:00:00Z"), "20261201T100000Z");
}

}  // namespace
}  // namespace gpuvet::fix

#include "fix/cudnn_install.hpp"

namespace gpuvet::fix {
namespace {

Facts toolkit_facts(const std::string& family, const std::string& root, const std::string& cuda) {
  Facts facts;
  facts.os.family = family;
  CudaToolkitFact toolkit;
  toolkit.root = root;
  toolkit.version = cuda;
  toolkit.source = "default-location";
  facts.cuda_toolkits.push_back(toolkit);
  return facts;
}

TEST(FixCudnnInstall, TheArchiveNameSaysItsCuda) {
  EXPECT_EQ(cuda_of_archive_name("cudnn-windows-x86_64-8.9.7.29_cuda12-archive.zip"), "12");
  EXPECT_EQ(cuda_of_archive_name("cudnn-linux-x86_64-9.1.0.70_cuda11-archive"), "11");
  EXPECT_EQ(cuda_of_archive_name("cudnn-10.1-windows10-x64-v7.6.5.32.zip"), "10.1");
  EXPECT_EQ(cuda_of_archive_name("cudnn-11.2-windows-x64-v8.1.0.77.zip"), "11.2");
  EXPECT_FALSE(cuda_of_archive_name("cudnn-windows-x86_64-9.1.0.70-archive.zip"));
  EXPECT_FALSE(cuda_of_archive_name("my-cudnn"));
}

TEST(FixCudnnInstall, AZipGoesIntoTheMatchingToolkitAndUndoTakesItOut) {
  testing::TempDir dir;
  const std::string v12 = dir.path() + "/CUDA/v12.4";
  const std::string v11 = dir.path() + "/CUDA/v11.8";
  for (const auto& root : {v12, v11}) {
    for (const char* sub : {"bin", "include", "lib/x64"})
      std::filesystem::create_directories(paths::to_fs(root + "/" + sub));
  }
  dir.file("CUDA/v12.4/bin/cudart64_12.dll", "cudart");
  const std::string old_dll = dir.file("CUDA/v12.4/bin/cudnn64_9.dll", "an older cudnn64_9.dll");
  Facts facts = toolkit_facts("windows", v11, "11.8.89");
  facts.cuda_toolkits.push_back(toolkit_facts("windows", v12, "12.4.131").cuda_toolkits.front());
  const std::string zip =
      std::string(GPUVET_FIX_FIXTURES) + "/cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip";
  auto plan = plan_cudnn_install(facts, testing::embedded_kb(), testing::messages(),
                                 {zip, std::nullopt, "2026-12-01T10:00:00Z"});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->fixes.size(), 1u) << (plan->refused.empty() ? "" : plan->refused[0].reason);
  const Fix& install = plan->fixes[0];
  EXPECT_EQ(install.id, kCudnnInstallFix);
  std::vector<std::string> targets;
  for (const auto& a : install.actions)
    targets.push_back(a.target.substr(v12.size() + 1));
  std::sort(targets.begin(), targets.end());
  EXPECT_EQ(targets, (std::vector<std::string>{"bin/cudnn64_9.dll", "bin/cudnn_graph64_9.dll",
                                               "include/cudnn.h", "include/cudnn_version.h",
                                               "lib/x64/cudnn.lib"}));

  const std::string journal = dir.path() + "/journal";
  auto id = apply_fixes({&install}, journal, plan->stamp, "t");
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(read(v12 + "/lib/x64/cudnn.lib"), "!<arch>\nfake import library\n");
  EXPECT_TRUE(read(v12 + "/bin/cudnn64_9.dll").starts_with("MZ fake cudnn64_9.dll"));
  EXPECT_FALSE(exists(v11 + "/bin/cudnn64_9.dll"));
  ASSERT_TRUE(undo_entry(journal, *id, false, "x"));
  EXPECT_EQ(read(old_dll), "an older cudnn64_9.dll");
  EXPECT_FALSE(exists(v12 + "/include/cudnn.h"));
  EXPECT_FALSE(exists(v12 + "/lib/x64/cudnn.lib"));
  EXPECT_EQ(read(v12 + "/bin/cudart64_12.dll"), "cudart");
}

TEST(FixCudnnInstall, ACudnnForAnotherCudaIsRefusedAndABadSourceIsAnError) {
  testing::TempDir dir;
  std::filesystem::create_directories(paths::to_fs(dir.path() + "/v11.8/bin"));
  const Facts facts = toolkit_facts("windows", dir.path() + "/v11.8", "11.8.89");
  const std::string zip = std::string(GPUVET_FIX_FIXTURES) + "/cudnn-zip64_cuda12.zip";
  auto plan = plan_cudnn_install(facts, testing::embedded_kb(), testing::messages(),
                                 {zip, std::nullopt, "T"});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->fixes.empty());
  ASSERT_EQ(plan->refused.size(), 1u);
  EXPECT_NE(plan->refused[0].reason.find("fits none of the toolkits"), std::string::npos)
      << plan->refused[0].reason;
  for (const std::string& bad :
       {dir.path() + "/missing.zip", dir.file("not.zip", "text"), dir.path() + "/v11.8"}) {
    auto refused = plan_cudnn_install(facts, testing::embedded_kb(), testing::messages(),
                                      {bad, std::nullopt, "T"});
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().message.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuvet::fix
