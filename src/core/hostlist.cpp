#include "core/hostlist.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace gpuvet::hostlist {

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
    if (static_cast<size_t>(to - from) >= kMaxNames) {
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
    if (names.size() * values->size() > kMaxNames) return make_error("too many names");
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
  if (out.size() > kMaxNames) return make_error("too many names");
  return true;
}

// "gpu07" -> {"gpu", "07"}; no trailing digits, or a name of digits only: nullopt.
std::optional<std::pair<std::string, std::string>> split_number(const std::string& name) {
  size_t start = name.size();
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
    --start;
  const size_t digits = name.size() - start;
  if (digits == 0 || start == 0 || digits > 9) return std::nullopt;
  // Brackets in the rest would not expand back to this name.
  if (name.find_first_of("[],") != std::string::npos) return std::nullopt;
  return std::make_pair(name.substr(0, start), name.substr(start));
}

}  // namespace

std::string compress(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  // (rest, width) -> the numbers, in order; names that cannot share a bracket stand alone.
  std::map<std::pair<std::string, size_t>, std::vector<long>> runs;
  // Sorted by the rest of the name, then by number: n9 before n[10-11].
  std::vector<std::tuple<std::string, long, std::string>> parts;
  for (const std::string& name : names) {
    const auto split = split_number(name);
    if (!split) {
      parts.emplace_back(name, -1, name);
      continue;
    }
    runs[{split->first, split->second.size()}].push_back(std::stol(split->second));
  }
  for (auto& [key, numbers] : runs) {
    const auto& [rest, width] = key;
    std::sort(numbers.begin(), numbers.end());
    if (numbers.size() == 1) {
      parts.emplace_back(rest, numbers[0], fmt::format("{}{:0{}}", rest, numbers[0], width));
      continue;
    }
    std::vector<std::string> ranges;
    for (size_t i = 0; i < numbers.size();) {
      size_t j = i;
      while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1)
        ++j;
      ranges.push_back(j == i ? fmt::format("{:0{}}", numbers[i], width)
                              : fmt::format("{:0{}}-{:0{}}", numbers[i], width, numbers[j], width));
      i = j + 1;
    }
    std::string joined;
    for (const std::string& range : ranges)
      joined += (joined.empty() ? "" : ",") + range;
    parts.emplace_back(rest, numbers[0], rest + "[" + joined + "]");
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& part : parts)
    out += (out.empty() ? "" : ",") + std::get<2>(part);
  return out;
}

Result<std::vector<std::string>> expand(std::string_view list) {
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

}  // namespace gpuvet::hostlist
