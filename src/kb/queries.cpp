#include "kb/queries.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/text.hpp"
#include "core/version.hpp"

namespace gpuvet::kb {

namespace {

Row row_of(const Table& t, const std::string& name, size_t row) {
  Row r;
  r.table = name;
  for (const auto& column : t.header())
    r.cells.emplace_back(column, t.cell(row, column));
  return r;
}

std::vector<std::string> words(std::string_view key) {
  std::vector<std::string> out;
  for (const auto& w : text::split(key, ' ')) {
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> previous(b.size() + 1);
  std::vector<size_t> current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

const std::string& Row::get(std::string_view column) const {
  static const std::string empty;
  for (const auto& [c, v] : cells) {
    if (c == column) return v;
  }
  return empty;
}

std::string gpu_key(std::string_view name) {
  std::string spaced;
  for (const char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    spaced.push_back(std::isalnum(u) ? static_cast<char>(std::tolower(u)) : ' ');
  }
  std::vector<std::string> kept;
  for (const auto& w : words(spaced)) {
    if (w == "nvidia" || w == "geforce") continue;
    // A memory size ("GeForce GTX 1060 6GB", as drivers name boards) is not part of the GPU's
    // name in the table: the 3 GB and 6 GB boards are one GPU.
    if (w.size() > 2 && w.ends_with("gb") && text::is_digits(w.substr(0, w.size() - 2))) continue;
    kept.push_back(w);
  }
  return text::join(kept, " ");
}

Result<GpuMatch> find_gpu(const Kb& kb, std::string_view name) {
  auto table = kb.table("gpus");
  if (!table) return table.error();
  const Table& t = **table;
  const std::string key = gpu_key(name);
  GpuMatch match;
  if (key.empty()) return match;
  for (size_t row = 0; row < t.size(); ++row) {
    if (gpu_key(t.cell(row, "name")) == key) match.rows.push_back(row_of(t, "gpus", row));
  }
  if (!match.rows.empty()) return match;
  // Every word asked is a word of the name: "3060" finds "GeForce RTX 3060" when no other
  // name holds 3060 as well.
  const auto asked = words(key);
  std::vector<size_t> containing;
  for (size_t row = 0; row < t.size(); ++row) {
    const auto have = words(gpu_key(t.cell(row, "name")));
    if (std::all_of(asked.begin(), asked.end(), [&](const std::string& w) {
          return std::find(have.begin(), have.end(), w) != have.end();
        })) {
      containing.push_back(row);
    }
  }
  if (containing.size() == 1) {
    match.rows.push_back(row_of(t, "gpus", containing.front()));
    return match;
  }
  // Ambiguous or unknown: the closest names, for the user to pick from.
  std::vector<std::pair<size_t, std::string>> scored;
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string& candidate = t.cell(row, "name");
    const bool contains = std::find(containing.begin(), containing.end(), row) != containing.end();
    scored.emplace_back(contains ? 0 : edit_distance(key, gpu_key(candidate)), candidate);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < scored.size() && match.closest.size() < 5; ++i) {
    if (std::find(match.closest.begin(), match.closest.end(), scored[i].second) ==
        match.closest.end()) {
      match.closest.push_back(scored[i].second);
    }
  }
  return match;
}

bool version_has_prefix(std::string_view version, std::string_view prefix) {
  if (prefix.empty()) return true;
  const auto v = text::split(version, '.');
  const auto p = text::split(prefix, '.');
  if (p.size() > v.size()) return false;
  for (size_t i = 0; i < p.size(); ++i) {
    if (v[i] != p[i]) return false;
  }
  return true;
}

Result<std::vector<Row>> rows_if(const Kb& kb, const std::string& table,
                                 const std::function<bool(const Row&)>& keep) {
  auto t = kb.table(table);
  if (!t) return t.error();
  std::vector<Row> out;
  for (size_t row = 0; row < (*t)->size(); ++row) {
    Row r = row_of(**t, table, row);
    if (keep(r)) out.push_back(std::move(r));
  }
  return out;
}

bool version_in_range(std::string_view version, std::string_view from, std::string_view to) {
  if (!version::is_dotted(from)) return false;
  // Some version with the prefix lies in the range: the prefix is not below `from` cut to its
  // length, and not above `to`.
  const size_t parts = text::split(version, '.').size();
  const bool after_start = version::compare(version, version::prefix(from, parts)) >= 0;
  const bool before_end =
      !version::is_dotted(to) || version::compare(version, version::prefix(to, parts)) <= 0;
  return after_start && before_end;
}

Result<std::vector<Row>> rows_for_version(const Kb& kb, const std::string& table,
                                          std::string_view column, std::string_view version) {
  return rows_if(kb, table,
                 [&](const Row& r) { return version_has_prefix(r.get(column), version); });
}

Result<std::vector<Row>> rows_for_range(const Kb& kb, const std::string& table,
                                        std::string_view from_column, std::string_view to_column,
                                        std::string_view version) {
  return rows_if(kb, table, [&](const Row& r) {
    return version_in_range(version, r.get(from_column), r.get(to_column));
  });
}

Result<std::vector<Row>> rows_where(const Kb& kb, const std::string& table, std::string_view column,
                                    std::string_view value) {
  return rows_if(kb, table, [&](const Row& r) { return r.get(column) == value; });
}

}  // namespace gpuvet::kb
