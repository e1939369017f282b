#include "system/recording_system.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "system/redact.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::sys {
namespace {

namespace fs = std::filesystem;

// Every answer a replay of the recording gives must equal the live answer to the same question.
void expect_same_answers(const System& live, const System& replay, const std::string& path) {
  EXPECT_EQ(live.file_info(path), replay.file_info(path)) << path;
  const auto live_text = live.read_text(path);
  const auto replay_text = replay.read_text(path);
  EXPECT_EQ(live_text.ok(), replay_text.ok()) << path;
  if (live_text && replay_text) {
    EXPECT_EQ(*live_text, *replay_text) << path;
  }
  EXPECT_EQ(live.list_dir(path), replay.list_dir(path)) << path;
}

TEST(RecordingSystem, ReplayAnswersWhatLiveAnswered) {
  testing::TempDir dir;
  dir.file("cuda-13.0/version.json", R"({"cuda": {"version": "13.0.48"}})");
  dir.file("cuda-13.0/lib/libcudart.so.13.0.48", "ELF");
  dir.file("cuda-13.0/include/cudnn_version.h", "#define CUDNN_MAJOR 9\n");
  fs::create_directory(dir.path() + "/empty");
  fs::create_directory_symlink("cuda-13.0", dir.path() + "/cuda");
  fs::create_directory_symlink("lib", dir.path() + "/cuda-13.0/lib64");
  fs::create_symlink("libcudart.so.13.0.48", dir.path() + "/cuda-13.0/lib/libcudart.so.13");

  const auto live = make_live_system();
  const RecordingSystem recorder(*live);
  const std::vector<std::string> questions = {
      dir.path(),
      dir.path() + "/cuda",
      dir.path() + "/cuda/version.json",
      dir.path() + "/cuda/lib64",
      dir.path() + "/cuda/lib64/libcudart.so.13",
      dir.path() + "/cuda-13.0/include",
      dir.path() + "/cuda-13.0/include/cudnn_version.h",
      dir.path() + "/empty",
      dir.path() + "/absent",
  };
  // Ask every question through the recorder (as probes do) ...
  for (const auto& q : questions) {
    recorder.file_info(q);
    recorder.read_text(q);
    recorder.list_dir(q);
  }
  // ... then a replay of the written-and-read-back recording must agree with live.
  auto reread = parse_snapshot(serialize_snapshot(recorder.redacted_snapshot("now")));
  ASSERT_TRUE(reread) << reread.error().message;
  const ReplaySystem replay(std::move(*reread));
  for (const auto& q : questions)
    expect_same_answers(*live, replay, q);
}

TEST(RecordingSystem, RemembersEnvironmentAndRedactsItOnTheWayOut) {
  setenv("GPUVET_TEST_SECRET_TOKEN", "hunter2", 1);
  setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  const auto live = make_live_system();
  const RecordingSystem recorder(*live);
  recorder.environment();
  EXPECT_EQ(recorder.recorded().env.at("GPUVET_TEST_SECRET_TOKEN"), "hunter2");
  const Snapshot out = recorder.redacted_snapshot("2026-11-30T00:00:00Z");
  EXPECT_EQ(out.env.at("GPUVET_TEST_SECRET_TOKEN"), redact::kRedacted);
  EXPECT_EQ(out.env.at("CUDA_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(out.taken_at, "2026-11-30T00:00:00Z");
  EXPECT_EQ(serialize_snapshot(out).find("hunter2"), std::string::npos);
  unsetenv("GPUVET_TEST_SECRET_TOKEN");
  unsetenv("CUDA_VISIBLE_DEVICES");
}

TEST(RecordingSystem, RecordsTheHostAndNothingItWasNotAsked) {
  const auto live = make_live_system();
  const RecordingSystem recorder(*live);
  const Snapshot s = recorder.recorded();
  EXPECT_EQ(s.host, live->host());
  EXPECT_TRUE(s.files.empty());
  EXPECT_TRUE(s.env.empty());
  EXPECT_FALSE(s.driver);
}

TEST(RecordingSystem, KeepsAReadFailureAsAFact) {
  testing::TempDir dir;
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto live = make_live_system();
  const RecordingSystem recorder(*live);
  ASSERT_FALSE(recorder.read_text(fifo));
  const Snapshot s = recorder.recorded();
  ASSERT_TRUE(s.files.contains(fifo));
  EXPECT_TRUE(s.files.at(fifo).other);
  EXPECT_TRUE(s.files.at(fifo).error.has_value());
  EXPECT_FALSE(s.files.at(fifo).text.has_value());
  const ReplaySystem replay(s);
  EXPECT_EQ(replay.read_text(fifo).error().message, live->read_text(fifo).error().message);
}

}  // namespace
}  // namespace gpuvet::sys
