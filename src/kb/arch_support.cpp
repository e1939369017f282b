#include "kb/arch_support.hpp"

#include "core/text.hpp"
#include "core/version.hpp"

namespace gpuvet::kb {

namespace {

bool listed(const std::string& cell, const std::string& cc) {
  for (const auto& item : text::split(cell, ';')) {
    if (version::is_dotted(text::trim(item)) && version::compare(text::trim(item), cc) == 0)
      return true;
  }
  return false;
}

}  // namespace

Result<CudaRangeForCc> cuda_range_for_cc(const Kb& kb, const std::string& cc) {
  auto all = rows_if(kb, "cuda_arch_support", [](const Row&) { return true; });
  if (!all) return all.error();
  CudaRangeForCc range;
  if (!version::is_dotted(cc)) return range;
  std::string top;  // the highest max_sm confirmed so far, in toolkit order
  for (size_t i = 0; i < all->size(); ++i) {
    const Row& row = (*all)[i];
    const std::string& min_sm = row.get("min_sm");
    const std::string& max_sm = row.get("max_sm");
    if (version::is_dotted(max_sm)) top = max_sm;
    const bool builds = version::is_dotted(min_sm) && version::compare(cc, min_sm) >= 0 &&
                        !top.empty() && version::compare(cc, top) <= 0;
    if (builds) {
      if (range.from.empty()) range.from = row.get("cuda_from");
      range.to = row.get("cuda_to");
      range.to_is_newest = i + 1 == all->size();
      range.dropped_in.clear();
      range.rows.push_back(row);
      if (range.deprecated_in.empty() && listed(row.get("deprecated_sm"), cc))
        range.deprecated_in = row.get("cuda_from");
    } else if (!range.from.empty() && range.dropped_in.empty() && version::is_dotted(min_sm) &&
               version::compare(cc, min_sm) < 0) {
      range.dropped_in = row.get("cuda_from");
    }
  }
  return range;
}

Result<DriverBranchForCc> driver_branch_for_cc(const Kb& kb, const std::string& cc) {
  auto rows = rows_if(kb, "gpu_arch_drivers",
                      [&](const Row& row) { return listed(row.get("compute_capabilities"), cc); });
  if (!rows) return rows.error();
  DriverBranchForCc answer;
  if (rows->empty() || !version::is_dotted(cc)) return answer;
  answer.row = rows->front();
  answer.current = rows->front().get("current_drivers") == "yes";
  answer.last_branch = rows->front().get("last_driver_branch");
  return answer;
}

}  // namespace gpuvet::kb
