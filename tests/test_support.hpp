#pragma once
// Helpers shared by the tests: snapshots from JSON text, temporary directories, a shared KB.
#include <gtest/gtest.h>

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "core/paths.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "system/replay_system.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::testing {

// Under the sanitizers (several times slower) and under Wine (whose heap and process start make
// the corpus-wide tests three times slower than the dev build), a test that runs through a long
// list of inputs (the explain corpus, every scenario) reads every fourth: the same code on the
// same kinds of input. The dev build of the same CI run reads them all, and checks the floors
// counted over all.
#ifdef GPUVET_SAMPLED_INPUTS
inline constexpr size_t kSampleStride = 4;
#else
inline constexpr size_t kSampleStride = 1;
#endif
inline constexpr bool kEveryInput = kSampleStride == 1;
// Whether the index-th of such a list is read in this build.
inline bool sampled(size_t index) {
  return index % kSampleStride == 0;
}

inline sys::Snapshot snapshot_from(const nlohmann::json& document) {
  auto parsed = sys::snapshot_from_json(document);
  if (!parsed) ADD_FAILURE() << parsed.error().message;
  return parsed ? *parsed : sys::Snapshot{};
}

// A minimal Linux snapshot with the given extra sections merged in.
inline sys::Snapshot linux_snapshot(const nlohmann::json& extra = nlohmann::json::object()) {
  nlohmann::json doc = {{"schema", "gpuvet.snapshot/1"}, {"host", {{"os", "linux"}}}};
  doc.merge_patch(extra);
  return snapshot_from(doc);
}

inline sys::Snapshot windows_snapshot(const nlohmann::json& extra = nlohmann::json::object()) {
  nlohmann::json doc = {{"schema", "gpuvet.snapshot/1"},
                        {"host",
                         {{"os", "windows"},
                          {"os_name", "Windows 10 Pro"},
                          {"os_version", "10.0.18363"},
                          {"os_release", "1909"}}}};
  doc.merge_patch(extra);
  return snapshot_from(doc);
}

inline const kb::Kb& embedded_kb() {
  static const kb::Kb kb = *kb::Kb::embedded();
  return kb;
}

// A table of the embedded knowledge base; an empty one (and a test failure) when it is not there.
inline const kb::Table& kb_table(const std::string& name) {
  static const kb::Table empty;
  auto t = embedded_kb().table(name);
  EXPECT_TRUE(t.ok()) << name;
  return t.ok() ? **t : empty;
}

inline const kb::Messages& messages(kb::Lang lang = kb::Lang::en) {
  static const kb::Messages en = *kb::Messages::load(embedded_kb(), kb::Lang::en);
  static const kb::Messages zh = *kb::Messages::load(embedded_kb(), kb::Lang::zh);
  return lang == kb::Lang::zh ? zh : en;
}

// A fresh directory under the system temp dir, removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::random_device seed;
    path_ = std::filesystem::temp_directory_path() /
            ("gpuvet-test-" + std::to_string(seed()) + std::to_string(seed()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // UTF-8 with '/' separators, as every System spells paths.
  std::string path() const { return paths::from_fs(path_); }
  std::string file(const std::string& relative, const std::string& contents) const {
    const auto p = path_ / paths::to_fs(relative);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << contents;
    return paths::from_fs(p);
  }

 private:
  std::filesystem::path path_;
};

}  // namespace gpuvet::testing
