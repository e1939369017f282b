#include "kb/driver_rule.hpp"

#include "core/text.hpp"
#include "core/version.hpp"
#include "kb/queries.hpp"

namespace gpuvet::kb {

namespace {

bool is_release(const std::string& label) {
  return label.find("RC") == std::string::npos && label.find("Preview") == std::string::npos;
}

}  // namespace

Result<DriverRequirement> driver_requirement(const Kb& kb, const std::string& cuda, bool windows) {
  DriverRequirement need;
  const std::string column = windows ? "min_driver_windows" : "min_driver_linux";
  auto releases = kb.table("cuda_releases");
  if (!releases) return releases.error();
  const Table& t = **releases;
  if (cuda.find('.') != std::string::npos) {
    for (size_t row = 0; row < t.size(); ++row) {
      const std::string& v = t.cell(row, "version");
      const std::string& label = t.cell(row, "label");
      const std::string label_version = text::split(label, ' ').front();
      const bool matches = v == cuda || version_has_prefix(v, cuda) ||
                           (v.empty() && version_has_prefix(label_version, cuda));
      const std::string& driver = t.cell(row, column);
      if (!matches || !is_release(label) || !version::is_dotted(driver)) continue;
      if (!need.release_min || version::compare(driver, *need.release_min) < 0) {
        need.release_min = driver;
        need.release_label = label;
        need.release_source = t.cell(row, "source");
      }
    }
  }
  auto compat = rows_where(kb, "cuda_minor_compat", "cuda_major", version::major(cuda));
  if (!compat) return compat.error();
  if (!compat->empty()) {
    const Row& row = compat->front();
    const std::string& exact = row.get(column);
    if (version::is_dotted(exact)) {
      need.compat_floor = exact;
    } else if (version::is_dotted(row.get("min_driver"))) {
      need.compat_floor = row.get("min_driver");
    }
    need.compat_source = row.get("source");
  }
  // A floor above the release's own driver is no floor for that release.
  if (need.compat_floor && need.release_min &&
      version::compare(*need.compat_floor, *need.release_min) > 0) {
    need.compat_floor = need.release_min;
  }
  return need;
}

DriverFit driver_fit(const DriverRequirement& need, const std::string& driver) {
  if (need.release_min && version::compare(driver, *need.release_min) >= 0) return DriverFit::fits;
  const auto oldest = need.oldest();
  if (!oldest) return DriverFit::unknown;
  if (version::compare(driver, *oldest) < 0) return DriverFit::too_old;
  return need.release_min ? DriverFit::minor_compat : DriverFit::fits;
}

}  // namespace gpuvet::kb
