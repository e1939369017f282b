#pragma once
// Which builds of a framework run on a GPU of one compute capability, as the knowledge base says:
// a build's own minimum or arch list (the build tables, data/framework_min_cc.csv), and whether
// the CUDA it is built with can still build for that GPU (data/cuda_arch_support.csv).
#include <string>
#include <vector>

#include "core/result.hpp"
#include "frameworks/framework.hpp"
#include "kb/arch_support.hpp"
#include "kb/kb.hpp"

namespace gpuvet::frameworks {

enum class Runs { yes, no, unknown };

// A cubin for X.y runs on X.z with z >= y; PTX ("12.0+PTX") is JIT-compiled for any newer GPU.
// Whether the list has SASS (a cubin) for cc: the same major at or below its minor. "X.Y+PTX" has
// SASS too unless the list's source says only PTX was shipped; it is counted as SASS here.
bool arch_list_has_sass_for(const std::vector<std::string>& arch_list, const std::string& cc);
bool arch_list_runs_on(const std::vector<std::string>& arch_list, const std::string& cc);
// Whether a build's kernels run on cc: its minimum and arch list first, then its CUDA's range.
Runs build_runs_on(const Build& b, const std::string& cc, const kb::CudaRangeForCc& cuda_range);

struct FrameworkOnCc {
  const Framework* framework = nullptr;
  bool has_builds = false;
  // Releases (or, for a table of current variants only, packages) whose builds run on cc, oldest
  // first.
  std::vector<std::string> running;
  bool newest_runs = false;  // the newest release the knowledge base knows is among them
  // Some release has no build that runs on it and one whose minimum the knowledge base does not
  // state: the answer for it is unknown, not no.
  bool any_unknown = false;
  // Why the refused ones do not: the lowest minimum CC they state, else the CUDA they are built
  // with that cannot build for cc.
  std::string refused_need_cc;
  std::string refused_cuda;
};
Result<FrameworkOnCc> framework_on_cc(const Framework& f, const kb::Kb& kb, const std::string& cc,
                                      const kb::CudaRangeForCc& cuda_range);

}  // namespace gpuvet::frameworks
