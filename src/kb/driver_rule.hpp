#pragma once
// The one driver rule that check and plan share: what a CUDA version asks of the NVIDIA driver
// on a platform, from the release's own row (data/cuda_releases.csv, CUDA's Table 3) and, for
// CUDA 11 and later, the minor-version-compatibility floor of its major
// (data/cuda_minor_compat.csv, Table 2), under which the runtime does not load at all.
#include <optional>
#include <string>

#include "core/result.hpp"
#include "kb/kb.hpp"

namespace gpuvet::kb {

struct DriverRequirement {
  std::optional<std::string> release_min;  // the toolkit driver of the release (its GA for X.Y)
  std::string release_label;
  std::string release_source;
  std::optional<std::string> compat_floor;  // minor version compatibility (CUDA >= 11)
  std::string compat_source;

  // The oldest driver the runtime loads on, when known.
  std::optional<std::string> oldest() const { return compat_floor ? compat_floor : release_min; }
};

enum class DriverFit {
  fits,          // at least the release's own driver
  minor_compat,  // below it, at or above the major's floor: runs, without PTX JIT of newer code
  too_old,       // below what the runtime loads on
  unknown,       // neither minimum is known
};

// A full version ("12.4.1") asks for that release's row; "12.4" for the lowest of its releases
// (the GA); a bare major only for the floor. Release candidates and previews are not releases.
Result<DriverRequirement> driver_requirement(const Kb& kb, const std::string& cuda, bool windows);

DriverFit driver_fit(const DriverRequirement& need, const std::string& driver);

}  // namespace gpuvet::kb
