// The framework builds of the knowledge base, as the framework plug-ins read them.
#include <algorithm>

#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "kb/queries.hpp"
#include "plan/plan.hpp"

namespace gpuvet::plan {

namespace {

// A build's compiled architectures from data/build_arch_lists.csv, when its own table has none:
// the row of its framework, platform (or any), release range and CUDA variant ("cuda12" also
// names "cuda12-cuda-cudnn", the same wheel with extras).
Result<bool> add_arch_lists(const kb::Kb& kb, std::vector<Build>& builds) {
  auto rows = kb::rows_if(kb, "build_arch_lists",
                          [](const kb::Row& row) { return !row.get("arch_list").empty(); });
  if (!rows) return rows.error();
  for (auto& b : builds) {
    if (!b.arch_list.empty() || b.version.empty()) continue;
    for (const auto& row : *rows) {
      const std::string& variant = row.get("variant");
      const std::string& platform = row.get("platform");
      if (row.get("framework") != b.framework) continue;
      if (platform != "any" && platform != b.platform) continue;
      if (variant != b.variant && !b.variant.starts_with(variant + "-")) continue;
      if (!kb::version_within(b.version, row.get("version_from"), row.get("version_to"))) continue;
      b.arch_list = text::split(row.get("arch_list"), ';');
      b.sources.push_back("build_arch_lists: " + row.get("source"));
      break;
    }
  }
  return true;
}

}  // namespace

Result<std::vector<Build>> known_builds(const kb::Kb& kb, const std::string& family) {
  const frameworks::Framework* framework = frameworks::find(family);
  if (!framework || !framework->builds) return make_error("no build table");
  Result<std::vector<Build>> builds = framework->builds(kb);
  if (!builds) return builds;
  if (auto added = add_arch_lists(kb, *builds); !added) return added.error();
  // Newest version first, then newest CUDA; stable so that the KB's order breaks the rest.
  std::stable_sort(builds->begin(), builds->end(), [](const Build& a, const Build& b) {
    if (const int c = version::compare(a.version, b.version); c != 0) return c > 0;
    return version::compare(a.cuda.value_or("0"), b.cuda.value_or("0")) > 0;
  });
  return builds;
}

}  // namespace gpuvet::plan
