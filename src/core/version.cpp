#include "core/version.hpp"

#include <algorithm>
#include <string>

#include "core/text.hpp"

namespace gpuvet::version {

namespace {
long long part(const std::vector<std::string>& parts, size_t i) {
  if (i >= parts.size() || !text::is_digits(parts[i])) return 0;
  return std::stoll(parts[i].substr(0, 9));
}
}  // namespace

int compare(std::string_view a, std::string_view b) {
  const auto x = text::split(a, '.');
  const auto y = text::split(b, '.');
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const long long p = part(x, i);
    const long long q = part(y, i);
    if (p != q) return p < q ? -1 : 1;
  }
  return 0;
}

bool agree(std::string_view a, std::string_view b) {
  const auto x = text::split(a, '.');
  const auto y = text::split(b, '.');
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

bool is_dotted(std::string_view v) {
  const auto parts = text::split(v, '.');
  return std::all_of(parts.begin(), parts.end(), text::is_digits);
}

std::string prefix(std::string_view v, size_t parts) {
  auto all = text::split(v, '.');
  all.resize(std::min(parts, all.size()));
  return text::join(all, ".");
}

std::string major_minor(std::string_view v) {
  return v.find('.') == std::string_view::npos ? std::string(v) + ".0" : prefix(v, 2);
}

std::string major(std::string_view v) {
  return text::split(v, '.').front();
}

}  // namespace gpuvet::version
