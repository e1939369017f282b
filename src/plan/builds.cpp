// The framework builds of the knowledge base, as the framework plug-ins read them.
#include <algorithm>

#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "plan/plan.hpp"

namespace gpuvet::plan {

Result<std::vector<Build>> known_builds(const kb::Kb& kb, const std::string& family) {
  const frameworks::Framework* framework = frameworks::find(family);
  if (!framework || !framework->builds) return make_error("no build table");
  Result<std::vector<Build>> builds = framework->builds(kb);
  if (!builds) return builds;
  // Newest version first, then newest CUDA; stable so that the KB's order breaks the rest.
  std::stable_sort(builds->begin(), builds->end(), [](const Build& a, const Build& b) {
    if (const int c = version::compare(a.version, b.version); c != 0) return c > 0;
    return version::compare(a.cuda.value_or("0"), b.cuda.value_or("0")) > 0;
  });
  return builds;
}

}  // namespace gpuvet::plan
