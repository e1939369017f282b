#pragma once
// The native query: what NVML and the CUDA driver answer. It runs in a child process (the
// hidden verb `gpuvet __native-query`), because a broken driver can crash or hang inside these
// calls; the parent reads the answer as a snapshot fragment (gpuvet.snapshot/1 with driver, gpus
// and loads), so the same validated reader checks it.
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/child_process.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {

inline constexpr const char* kNativeQueryVerb = "__native-query";
// `__native-query --serve`: one child for a whole run. It answers the driver query at once, then
// one "load PATH" request per line of its standard input until that ends; each reply is
// "@result", the fragment, and a line "@end".
inline constexpr const char* kNativeServeFlag = "--serve";
inline constexpr std::string_view kReplyEnd = "@end";

// Child side: queries the driver (or loads only `library` when given) and returns the snapshot
// fragment to print. Its loads are keyed by the bare names of gpu/library_names.hpp.
std::string run_native_query(const std::optional<std::string>& library);
// Child side of --serve: writes the replies to standard output; the exit status.
int serve_native_queries();

// Parent side: runs the child and turns whatever happened into answers.
struct NativeAnswers {
  std::optional<DriverAnswer> driver;
  std::optional<std::vector<GpuAnswer>> gpus;
  std::map<std::string, LoadAnswer> loads;
};

// One child for every native question of a run (--serve), started at once so that the driver
// query runs while the probes read files. A load the child dies or hangs on is an answer that
// says so, and later loads each get a child of their own. Thread-safe.
class NativeSession {
 public:
  NativeSession(std::string helper, std::chrono::milliseconds timeout);
  ~NativeSession();
  NativeSession(const NativeSession&) = delete;
  NativeSession& operator=(const NativeSession&) = delete;

  NativeAnswers query_driver();
  LoadAnswer load(const std::string& library);

 private:
  Result<NativeAnswers> reply();
  const NativeAnswers& driver_locked();
  std::string helper_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::unique_ptr<platform::ChildSession> child_;
  std::string why_not_;
  std::optional<NativeAnswers> driver_;
};

class NativeQuery {
 public:
  NativeQuery(std::string helper, std::chrono::milliseconds timeout)
      : helper_(std::move(helper)), timeout_(timeout) {}
  // The whole driver query. A crash, a hang or garbage becomes driver.error, never a failure of
  // the caller.
  NativeAnswers query_driver() const;
  // Loads one library in the child: ok, the path the loader chose, its init code and version.
  LoadAnswer load(const std::string& library) const;

 private:
  Result<NativeAnswers> run(const std::vector<std::string>& arguments) const;
  std::string helper_;
  std::chrono::milliseconds timeout_;
};

}  // namespace gpuvet::sys
