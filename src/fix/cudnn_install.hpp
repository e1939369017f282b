#pragma once
// `gpuvet fix cudnn-install --from DIR|ZIP`: cuDNN's files copied into the CUDA toolkit they were
// built for (the seeds' §3.1, done by hand in Explorer), as journaled write_file actions.
#include <optional>
#include <string>

#include "facts/facts.hpp"
#include "fix/fix.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"

namespace gpuvet::fix {

inline constexpr const char* kCudnnInstallFix = "cudnn.install";

struct CudnnInstallRequest {
  std::string from;                    // an extracted archive folder, or the .zip itself
  std::optional<std::string> toolkit;  // the toolkit's root; default: the newest that matches
  std::string stamp;
};

// An error for a source that cannot be read or holds no cuDNN (bad input); otherwise a plan with
// the install as one fix, or the reason it is refused (no toolkit of the archive's CUDA, CUDA
// unknown, a link in the way).
Result<FixPlan> plan_cudnn_install(const Facts& facts, const kb::Kb& kb,
                                   const kb::Messages& messages,
                                   const CudnnInstallRequest& request);

// The CUDA version an archive's name gives: "..._cuda12-archive" -> "12", the 7.x era's
// "cudnn-10.1-windows10-x64-v7.6.5.32" -> "10.1".
std::optional<std::string> cuda_of_archive_name(std::string_view name);

}  // namespace gpuvet::fix
