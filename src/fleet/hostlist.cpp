#include "fleet/hostlist.hpp"

#include <fmt/format.h>

namespace gpuvet::fleet {

namespace {

// The names one bracket's body stands for: "01-03,07" -> 01 02 03 07 (a range keeps the width of
// its first bound, as Slurm pads it).
Result<std::vector<std::string>> bracket_values(std::string_view body) {
  std::vector<std::string> values;
  size_t start = 0;
  while (start <= body.size()) {
    const size_t comma = std::min(body.find(',', start), body.size());
    const std::string_view part = body.substr(start, comma - start);
    const size_t dash = part.find('-');
    const std::string_view low = part.substr(0, dash);
    const std::string_view high = dash == std::string_view::npos ? low : part.substr(dash + 1);
    const auto digits = [](std::string_view s) {
      return !s.empty() && s.size() <= 9 &&
             s.find_first_not_of("0123456789") == std::string_view::npos;
    };
    if (!digits(low) || !digits(high)) {
      return make_error(fmt::format("\"{}\" is not a number or range", part));
    }
    const long from = std::stol(std::string(low));
    const long to = std::stol(std::string(high));
    if (to < from) return make_error(fmt::format("the range \"{}\" runs backwards", part));
    if (static_cast<size_t>(to - from) >= kMaxHostlistNames) {
      return make_error(fmt::format("the range \"{}\" is too large", part));
    }
    for (long n = from; n <= to; ++n)
      values.push_back(fmt::format("{:0{}}", n, low.size()));
    start = comma + 1;
  }
  return values;
}

Result<bool> expand_item(std::string_view item, std::vector<std::string>& out) {
  std::vector<std::string> names = {""};
  size_t at = 0;
  while (at < item.size()) {
    const size_t open = item.find('[', at);
    const std::string_view literal =
        item.substr(at, open == std::string_view::npos ? item.npos : open - at);
    if (literal.find(']') != std::string_view::npos) return make_error("a ']' without its '['");
    for (std::string& name : names)
      name += literal;
    if (open == std::string_view::npos) break;
    const size_t close = item.find(']', open);
    if (close == std::string_view::npos) return make_error("a '[' without its ']'");
    auto values = bracket_values(item.substr(open + 1, close - open - 1));
    if (!values) return values.error();
    if (names.size() * values->size() > kMaxHostlistNames) return make_error("too many names");
    std::vector<std::string> product;
    for (const std::string& name : names) {
      for (const std::string& value : *values)
        product.push_back(name + value);
    }
    names = std::move(product);
    at = close + 1;
  }
  if (names.size() == 1 && names.front().empty()) return true;
  out.insert(out.end(), names.begin(), names.end());
  if (out.size() > kMaxHostlistNames) return make_error("too many names");
  return true;
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view list) {
  std::vector<std::string> names;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c != ',' || depth > 0) continue;
    if (auto added = expand_item(list.substr(start, i - start), names); !added) {
      return make_error(
          fmt::format("cannot expand the host list \"{}\": {}", list, added.error().message));
    }
    start = i + 1;
  }
  if (depth != 0)
    return make_error(fmt::format("cannot expand the host list \"{}\": unbalanced brackets", list));
  return names;
}

}  // namespace gpuvet::fleet
