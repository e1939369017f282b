#include "plan/cuda_releases.hpp"

#include "core/text.hpp"

namespace gpuvet::plan {

Result<std::vector<kb::Row>> releases_of(const kb::Kb& kb, const std::string& cuda) {
  return kb::rows_if(kb, "cuda_releases", [&](const kb::Row& r) {
    const std::string label = r.get("label");
    return version::prefix(text::split(label, ' ').front(), 2) == cuda &&
           label.find("RC") == std::string::npos && label.find("Preview") == std::string::npos;
  });
}

}  // namespace gpuvet::plan
