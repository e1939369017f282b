#pragma once
// What the live Systems of every platform share (live_system_<platform>.cpp): the native GPU
// answers asked of the helper process, and how a finished --version query reads as a
// ProgramOutput. Platform-neutral: no OS header here.
#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "platform/child_process.hpp"
#include "system/native_query.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {

// A version query (nvcc --version) that takes longer than this is stuck.
inline constexpr std::chrono::milliseconds kProgramTimeout{5000};
// The most of a version query's output that is kept.
inline constexpr std::size_t kMaxProgramOutput = std::size_t{1} << 16;

// The native GPU answers (gpu/native_query.hpp), each asked once: of one session child started
// at once (LiveOptions::native_session), or lazily of a child per question (the whole driver
// query on the first driver()/gpus()/load(), one child per other library). Without a helper in
// the options everything is "not asked" (nullopt). Thread-safe.
class NativeAnswerCache {
 public:
  explicit NativeAnswerCache(const LiveOptions& options);

  std::optional<DriverAnswer> driver() const;
  std::optional<std::vector<GpuAnswer>> gpus() const;
  std::optional<LoadAnswer> load(const std::string& library) const;

 private:
  const sys::NativeAnswers* answers() const;

  std::optional<sys::NativeQuery> native_;
  std::unique_ptr<sys::NativeSession> session_;
  mutable std::once_flag once_;
  mutable sys::NativeAnswers answers_;
  mutable std::mutex loads_mutex_;
  mutable std::map<std::string, LoadAnswer> loads_;
};

// The answers of file_info and list_dir, kept for the run: probes only read, so a path's
// answer does not change while gpuvet runs, and resolving real paths and finding libraries ask
// for the same paths (/usr, /usr/lib, a toolkit's lib) hundreds of times. Thread-safe.
template <typename Answer>
class PathAnswerCache {
 public:
  template <typename Ask>
  Answer get(const std::string& path, Ask&& ask) const {
    {
      std::lock_guard lock(mutex_);
      const auto it = answers_.find(path);
      if (it != answers_.end()) return it->second;
    }
    Answer answer = ask();
    std::lock_guard lock(mutex_);
    return answers_.emplace(path, std::move(answer)).first->second;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, Answer> answers_;
};
using FileInfoCache = PathAnswerCache<std::optional<FileInfo>>;
using DirListingCache = PathAnswerCache<std::optional<std::vector<DirEntry>>>;

// What a child run for a version query tells a probe: the exit code and output, or why there is
// none (it could not start, crashed, or hung).
ProgramOutput program_output(const platform::ChildOutcome& run);

// read_text's rule on top of a platform's prefix read: `prefix` holds up to kMaxTextBytes + 1
// bytes of the file, and one byte more than allowed tells a file that is too large from one
// that just fits.
Result<std::string> whole_text(const std::string& path, Result<std::string> prefix);

// "path: not a regular file" (a directory, FIFO, device or console), in the catalogs' words.
Error not_a_regular_file(const std::string& path);
// What a binary reader (ELF, PE) said, inside "path: …" and binary.error.unreadable, whose
// Chinese quotes the reader's own words.
Error unreadable_binary(Error error, const std::string& path);

}  // namespace gpuvet::sys
