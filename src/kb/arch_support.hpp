#pragma once
// What the knowledge base says about one compute capability: which CUDA toolkits can build for it
// (data/cuda_arch_support.csv) and which driver branches support it (data/gpu_arch_drivers.csv).
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "kb/kb.hpp"
#include "kb/queries.hpp"

namespace gpuvet::kb {

// The toolkits that can build for a compute capability, from the rows of cuda_arch_support.
struct CudaRangeForCc {
  std::string from;           // the first toolkit of the first row that builds for it; empty: none
  std::string to;             // the last toolkit of the last such row
  bool to_is_newest = false;  // `to` is the newest toolkit the table knows (the range is open)
  std::string dropped_in;     // the first toolkit after `to` whose floor (min_sm) passed it
  std::string deprecated_in;  // the first toolkit that lists it as deprecated, if any
  std::vector<Row> rows;      // the rows that build for it
};
// A row whose max_sm is not confirmed still builds for everything the row before it built for:
// toolkits drop an architecture only by raising their floor (min_sm), so its top is at least the
// previous top. An unknown or undotted cc gives an empty range.
Result<CudaRangeForCc> cuda_range_for_cc(const Kb& kb, const std::string& cc);

// The newest driver branch for a compute capability, from the row of gpu_arch_drivers listing it.
struct DriverBranchForCc {
  std::optional<Row> row;   // none: the matrix does not list this CC (unknown)
  bool current = false;     // today's driver branches support it
  std::string last_branch;  // "R470" when it is no longer current
};
Result<DriverBranchForCc> driver_branch_for_cc(const Kb& kb, const std::string& cc);

}  // namespace gpuvet::kb
