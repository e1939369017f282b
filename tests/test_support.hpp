#pragma once
// Helpers shared by the tests: snapshots from JSON text, temporary directories, a shared KB.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "system/replay_system.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::testing {

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

// A shell command's standard output and exit status (-1 when it did not exit normally).
struct CommandOutput {
  int status = -1;
  std::string output;
};

inline CommandOutput run_command(const std::string& command) {
  CommandOutput result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    result.output.append(buffer, n);
  const int raw = pclose(pipe);
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return result;
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

  std::string path() const { return path_.string(); }
  std::string file(const std::string& relative, const std::string& contents) const {
    const auto p = path_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << contents;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace gpuvet::testing
