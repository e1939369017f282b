#pragma once
// The native query: what NVML and the CUDA driver answer. It runs in a child process (the
// hidden verb `gpuvet __native-query`), because a broken driver can crash or hang inside these
// calls; the parent reads the answer as a snapshot fragment (gpuvet.snapshot/1 with driver, gpus
// and loads), so the same validated reader checks it.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "system/system.hpp"

namespace gpuvet::gpu {

inline constexpr const char* kNativeQueryVerb = "__native-query";

// Child side: queries the driver (or loads only `library` when given) and returns the snapshot
// fragment to print. Its loads are keyed by the bare names of gpu/library_names.hpp.
std::string run_native_query(const std::optional<std::string>& library);

// Parent side: runs the child and turns whatever happened into answers.
struct NativeAnswers {
  std::optional<sys::DriverAnswer> driver;
  std::optional<std::vector<sys::GpuAnswer>> gpus;
  std::map<std::string, sys::LoadAnswer> loads;
};

class NativeQuery {
 public:
  NativeQuery(std::string helper, std::chrono::milliseconds timeout)
      : helper_(std::move(helper)), timeout_(timeout) {}
  // The whole driver query. A crash, a hang or garbage becomes driver.error, never a failure of
  // the caller.
  NativeAnswers query_driver() const;
  // Loads one library in the child: ok, the path the loader chose, its init code and version.
  sys::LoadAnswer load(const std::string& library) const;

 private:
  Result<NativeAnswers> run(const std::vector<std::string>& arguments) const;
  std::string helper_;
  std::chrono::milliseconds timeout_;
};

}  // namespace gpuvet::gpu
