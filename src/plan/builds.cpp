// The framework builds of the knowledge base, one Build per (version, platform, CUDA variant):
// tensorflow_builds, pytorch_builds and jax_builds, with the package and the minimum compute
// capability from framework_packages and framework_min_cc.
#include <algorithm>

#include "core/text.hpp"
#include "core/version.hpp"
#include "kb/queries.hpp"
#include "plan/cuda_releases.hpp"
#include "plan/plan.hpp"

namespace gpuvet::plan {

namespace {

std::optional<std::string> non_empty(const std::string& value) {
  return value.empty() ? std::nullopt : std::optional<std::string>(value);
}

// "3.11 (3.12 experimental)" -> "3.11".
std::optional<std::string> leading_version(const std::string& cell) {
  const std::string first(text::trim(cell.substr(0, cell.find(' '))));
  return version::is_dotted(first) && !first.empty() ? std::optional<std::string>(first)
                                                     : std::nullopt;
}

// cu80 -> 8.0, cu102 -> 10.2, cu121 -> 12.1: the last digit is the minor version.
std::optional<std::string> cuda_of_tag(const std::string& tag) {
  if (tag.size() < 4 || !tag.starts_with("cu") || !text::is_digits(tag.substr(2))) {
    return std::nullopt;
  }
  const std::string digits = tag.substr(2);
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

// "cu126:5.0|cu128:7.5" -> the value for one tag.
std::string per_tag(const std::string& cell, const std::string& tag) {
  for (const auto& item : text::split(cell, '|')) {
    const size_t colon = item.find(':');
    if (colon != std::string::npos && item.substr(0, colon) == tag) return item.substr(colon + 1);
  }
  return "";
}

Result<std::optional<kb::Row>> package_row(const kb::Kb& kb, const std::string& framework,
                                           const std::string& platform,
                                           const std::string& version) {
  auto rows = kb::rows_if(kb, "framework_packages", [&](const kb::Row& r) {
    return r.get("family") == framework && r.get("platform") == platform &&
           kb::version_in_range(version, r.get("version_from"), r.get("version_to"));
  });
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<kb::Row>();
  return std::optional<kb::Row>(rows->front());
}

Result<std::vector<Build>> tensorflow_builds(const kb::Kb& kb) {
  auto rows = kb::rows_if(kb, "tensorflow_builds", [](const kb::Row& r) {
    return r.get("platform") == "linux" || r.get("platform") == "windows";
  });
  if (!rows) return rows.error();
  auto min_cc_rows = kb::rows_where(kb, "framework_min_cc", "family", "tensorflow");
  if (!min_cc_rows) return min_cc_rows.error();
  std::vector<Build> builds;
  for (const auto& row : *rows) {
    Build b;
    b.framework = "tensorflow";
    b.platform = row.get("platform");
    b.version = row.get("version");
    b.python_min = non_empty(row.get("python_min"));
    b.python_max = non_empty(row.get("python_max"));
    // TensorFlow's Windows table writes CUDA 10.0 as "10" (its Linux table as "10.0").
    b.cuda = non_empty(row.get("cuda"));
    if (b.cuda) b.cuda = cuda_minor(*b.cuda);
    b.cudnn = non_empty(row.get("cudnn"));
    b.sources.push_back("tensorflow_builds: " + row.get("source"));
    auto package = package_row(kb, "tensorflow", b.platform, b.version);
    if (!package) return package.error();
    if (*package) {
      b.package = (*package)->get("package");
      b.wheels_bring_cuda = (*package)->get("wheels_bring_cuda") == "yes";
      b.sources.push_back("framework_packages: " + (*package)->get("source"));
    }
    for (const auto& cc : *min_cc_rows) {
      if (kb::version_in_range(version::prefix(b.version, 2), cc.get("version_from"),
                               cc.get("version_to"))) {
        b.min_cc = non_empty(cc.get("min_cc"));
        b.sources.push_back("framework_min_cc: " + cc.get("source"));
        break;
      }
    }
    builds.push_back(std::move(b));
  }
  return builds;
}

// "1.3.0 / 1.3.1" -> both; "2.1.x" -> the series 2.1; "1.8.2 (LTS)" -> 1.8.2.
std::vector<std::pair<std::string, bool>> torch_versions(const std::string& cell) {
  std::vector<std::pair<std::string, bool>> out;
  for (auto item : text::split(cell, '/')) {
    item = std::string(text::trim(item.substr(0, item.find('('))));
    if (item.ends_with(".x")) {
      out.emplace_back(item.substr(0, item.size() - 2), true);
    } else if (version::is_dotted(item) && !item.empty()) {
      out.emplace_back(item, text::split(item, '.').size() < 3);
    }
  }
  return out;
}

Result<std::vector<Build>> torch_builds(const kb::Kb& kb) {
  auto rows = kb::rows_if(kb, "pytorch_builds", [](const kb::Row&) { return true; });
  if (!rows) return rows.error();
  std::vector<Build> builds;
  for (const auto& row : *rows) {
    for (const auto& [v, series] : torch_versions(row.get("torch_version"))) {
      for (const auto& cell : text::split(row.get("cuda_variants"), ';')) {
        const std::string tag(text::trim(cell));
        const auto cuda = cuda_of_tag(tag);
        if (!cuda) continue;
        for (const std::string platform : {"linux", "windows"}) {
          Build b;
          b.framework = "torch";
          b.platform = platform;
          b.version = v;
          b.series = series;
          b.python_min = leading_version(row.get("python_min"));
          b.python_max = leading_version(row.get("python_max"));
          b.cuda = cuda;
          b.variant = tag;
          b.min_cc = non_empty(per_tag(row.get("min_cc_compiled"), b.variant));
          const std::string arches = per_tag(row.get("arch_list"), b.variant);
          if (!arches.empty()) b.arch_list = text::split(arches, ';');
          b.pypi_default = !row.get("default_pip_cuda").empty() &&
                           version::compare(row.get("default_pip_cuda"), *cuda) == 0;
          b.sources.push_back("pytorch_builds: " + row.get("source"));
          auto package = package_row(kb, "torch", platform, v);
          if (!package) return package.error();
          if (*package) {
            b.package = (*package)->get("package");
            b.wheels_bring_cuda = (*package)->get("wheels_bring_cuda") == "yes";
            b.sources.push_back("framework_packages: " + (*package)->get("source"));
          }
          builds.push_back(std::move(b));
        }
      }
    }
  }
  return builds;
}

Result<std::vector<Build>> jax_builds(const kb::Kb& kb) {
  auto rows = kb::rows_if(kb, "jax_builds", [](const kb::Row&) { return true; });
  if (!rows) return rows.error();
  std::vector<Build> builds;
  for (const auto& row : *rows) {
    Build b;
    b.framework = "jax";
    b.platform = "linux";
    b.version = "";  // the current release: the KB has no per-version table
    b.cuda = non_empty(row.get("cuda"));
    b.cudnn = non_empty(row.get("cudnn"));
    b.variant = row.get("variant");
    b.min_cc = non_empty(row.get("min_cc"));
    b.min_driver_override = non_empty(row.get("min_driver_linux"));
    b.package = row.get("package");
    b.wheels_bring_cuda = true;
    b.sources.push_back("jax_builds: " + row.get("source"));
    builds.push_back(std::move(b));
  }
  return builds;
}

}  // namespace

Result<std::vector<Build>> known_builds(const kb::Kb& kb, const std::string& framework) {
  Result<std::vector<Build>> builds =
      framework == "tensorflow" ? tensorflow_builds(kb)
      : framework == "torch"    ? torch_builds(kb)
      : framework == "jax"      ? jax_builds(kb)
                                : Result<std::vector<Build>>(make_error("no build table"));
  if (!builds) return builds;
  // Newest version first, then newest CUDA; stable so that the KB's order breaks the rest.
  std::stable_sort(builds->begin(), builds->end(), [](const Build& a, const Build& b) {
    if (const int c = version::compare(a.version, b.version); c != 0) return c > 0;
    return version::compare(a.cuda.value_or("0"), b.cuda.value_or("0")) > 0;
  });
  return builds;
}

}  // namespace gpuvet::plan
