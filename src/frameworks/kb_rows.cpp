#include "frameworks/kb_rows.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "core/version.hpp"

namespace gpuvet::frameworks {

std::optional<std::string> non_empty(const std::string& value) {
  return value.empty() ? std::nullopt : std::optional<std::string>(value);
}

std::optional<std::string> leading_version(const std::string& cell) {
  const std::string first(text::trim(cell.substr(0, cell.find(' '))));
  return version::is_dotted(first) && !first.empty() ? std::optional<std::string>(first)
                                                     : std::nullopt;
}

std::optional<std::string> cuda_of_tag(const std::string& tag) {
  if (tag.size() < 4 || !tag.starts_with("cu") || !text::is_digits(tag.substr(2))) {
    return std::nullopt;
  }
  const std::string digits = tag.substr(2);
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

std::string per_tag(const std::string& cell, const std::string& tag) {
  for (const auto& item : text::split(cell, '|')) {
    const size_t colon = item.find(':');
    if (colon != std::string::npos && item.substr(0, colon) == tag) return item.substr(colon + 1);
  }
  return "";
}

Result<std::optional<kb::Row>> package_row(const kb::Kb& kb, const std::string& family,
                                           const std::string& platform,
                                           const std::string& version) {
  auto rows = kb::rows_if(kb, "framework_packages", [&](const kb::Row& r) {
    return r.get("family") == family && r.get("platform") == platform &&
           kb::version_in_range(version, r.get("version_from"), r.get("version_to"));
  });
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<kb::Row>();
  return std::optional<kb::Row>(rows->front());
}

std::vector<std::pair<std::string, bool>> releases_in(const std::string& from,
                                                      const std::string& to_cell) {
  const std::string to = to_cell.empty() ? from : to_cell;
  if (from.empty() || !version::is_dotted(from) || !version::is_dotted(to)) return {};
  const auto a = text::split(from, '.');
  const auto b = text::split(to, '.');
  if (a.size() != b.size() || a.front() != b.front()) return {};
  for (const auto& part : a) {
    if (part.size() > 6) return {};  // no release number is that long; keeps stoi in range
  }
  for (const auto& part : b) {
    if (part.size() > 6) return {};
  }
  size_t differ = 0;
  while (differ < a.size() && a[differ] == b[differ])
    ++differ;
  if (differ == a.size()) return {{from, a.size() < 3}};
  // Every part after the first that differs must be 0 at both ends: 13.0.0..13.6.0.
  for (size_t i = differ + 1; i < a.size(); ++i) {
    if (a[i] != "0" || b[i] != "0") return {{to, false}};
  }
  std::vector<std::string> prefix(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(differ));
  const int first = std::stoi(a[differ]);
  const int last = std::stoi(b[differ]);
  const bool series = differ + 1 < a.size() || a.size() < 3;
  std::vector<std::pair<std::string, bool>> out;
  for (int n = first; n <= last && n - first < 100; ++n) {
    auto parts = prefix;
    parts.push_back(std::to_string(n));
    out.emplace_back(text::join(parts, "."), series);
  }
  return out;
}

std::string variant_with_extras(const std::string& variant, const std::string& package) {
  const size_t open = package.find('[');
  if (open == std::string::npos) return variant;
  std::string extras = package.substr(open + 1, package.find(']', open) - open - 1);
  std::replace(extras.begin(), extras.end(), ',', '-');
  return variant + "-" + extras;
}

std::vector<std::string> platforms_of(const std::string& cell) {
  std::vector<std::string> out;
  for (const auto& item : text::split(cell, ';')) {
    const std::string platform(text::trim(item));
    if (!platform.empty()) out.push_back(platform);
  }
  return out;
}

Build build_from_row(const kb::Row& row, std::string_view table, std::string_view family,
                     const std::string& platform, const std::string& release, bool series) {
  Build b;
  b.framework = std::string(family);
  b.platform = platform;
  b.version = release;
  b.series = series;
  b.python_min = non_empty(row.get("python_min"));
  b.python_max = non_empty(row.get("python_max"));
  b.cuda = non_empty(row.get("cuda"));
  if (b.cuda) b.cuda = version::major_minor(*b.cuda);
  b.cudnn = non_empty(row.get("cudnn"));
  b.min_cc = non_empty(row.get("min_cc"));
  b.package = row.get("package");
  b.index_option = row.get("index_option");
  b.index_url = row.get("index_url");
  b.wheels_bring_cuda = row.get("wheels_bring_cuda") == "yes";
  b.sources.push_back(std::string(table) + ": " + row.get("source"));
  return b;
}

Result<std::vector<Build>> builds_from_table(const kb::Kb& kb, std::string_view table,
                                             std::string_view family,
                                             std::string_view platform_column,
                                             void (*finish)(const kb::Row& row, Build& b)) {
  auto rows = kb::rows_if(kb, std::string(table), [](const kb::Row&) { return true; });
  if (!rows) return rows.error();
  std::vector<Build> out;
  for (const auto& row : *rows) {
    for (const auto& [release, series] :
         releases_in(row.get("version_from"), row.get("version_to"))) {
      for (const auto& platform : platforms_of(row.get(platform_column))) {
        Build b = build_from_row(row, table, family, platform, release, series);
        finish(row, b);
        out.push_back(std::move(b));
      }
    }
  }
  return out;
}

}  // namespace gpuvet::frameworks
