#include "kb/queries.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
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

namespace {

// A "gpu_ids" row in the shape of a "gpus" row, so that callers read one kind of row.
Row gpu_row_of_id(const Table& t, size_t row) {
  Row r;
  r.table = "gpus";
  const std::string& device = t.cell(row, "device_id");
  const std::string& chip = t.cell(row, "chip");
  const std::string& cc_from = t.cell(row, "cc_from");
  std::string notes = fmt::format("PCI device 10de:{}", device);
  if (!chip.empty()) notes += fmt::format(", chip {}", chip);
  if (cc_from == "chip") notes += "; compute capability of its chip (data/gpu_chips.csv)";
  if (cc_from == "name") notes += "; compute capability of its name on NVIDIA's CUDA GPUs page";
  r.cells = {{"name", t.cell(row, "name")},
             {"compute_capability", t.cell(row, "compute_capability")},
             {"architecture", t.cell(row, "architecture")},
             {"family", ""},
             {"notes", notes},
             {"source", t.cell(row, "source")},
             {"device_id", device},
             {"chip", chip},
             {"memory", t.cell(row, "memory")},
             {"cc_from", cc_from}};
  return r;
}

struct GpuTables {
  const Table& page;
  const Table& ids;
  const Table& chips;
  const Table& aliases;
};

using KeyOf = std::string (*)(std::string_view);

std::vector<Row> page_rows_where(const GpuTables& t, const std::function<bool(size_t)>& keep) {
  std::vector<Row> out;
  for (size_t row = 0; row < t.page.size(); ++row) {
    if (keep(row)) out.push_back(row_of(t.page, "gpus", row));
  }
  return out;
}

std::vector<Row> id_rows_where(const GpuTables& t, const std::function<bool(size_t)>& keep) {
  std::vector<Row> out;
  for (size_t row = 0; row < t.ids.size(); ++row) {
    if (keep(row)) out.push_back(gpu_row_of_id(t.ids, row));
  }
  return out;
}

// Rows of the page, then of the id table, whose name has this key.
std::vector<Row> rows_with_key(const GpuTables& t, const std::string& key, KeyOf key_of) {
  auto rows = page_rows_where(t, [&](size_t r) { return key_of(t.page.cell(r, "name")) == key; });
  if (rows.empty())
    rows = id_rows_where(t, [&](size_t r) { return key_of(t.ids.cell(r, "name")) == key; });
  return rows;
}

// Self-reported names (Jetson's "NVIDIA Tegra X1", "Orin (nvgpu)") -> the page's products.
std::vector<Row> rows_of_alias(const GpuTables& t, const std::string& key) {
  std::vector<std::string> names;
  for (size_t r = 0; r < t.aliases.size(); ++r) {
    if (gpu_key(t.aliases.cell(r, "alias")) == key) names.push_back(t.aliases.cell(r, "name"));
  }
  return page_rows_where(t, [&](size_t r) {
    return std::find(names.begin(), names.end(), t.page.cell(r, "name")) != names.end();
  });
}

std::vector<Row> rows_of_chip(const GpuTables& t, const std::string& chip) {
  std::vector<Row> out;
  for (size_t r = 0; r < t.chips.size(); ++r) {
    const std::string& c = t.chips.cell(r, "chip");
    // lspci adds GL (professional) and M (mobile) to the die's name: GA106GL, TU117M.
    if (text::to_lower(c) == chip ||
        (chip.starts_with(text::to_lower(c)) &&
         std::string_view("glmb").find(chip.substr(c.size(), 1)) != std::string_view::npos)) {
      Row row;
      row.table = "gpus";
      row.cells = {{"name", c},
                   {"compute_capability", t.chips.cell(r, "compute_capability")},
                   {"architecture", t.chips.cell(r, "architecture")},
                   {"family", ""},
                   {"notes", "chip: " + t.chips.cell(r, "evidence")},
                   {"source", t.chips.cell(r, "source")},
                   {"chip", c}};
      out.push_back(std::move(row));
    }
  }
  return out;
}

// Every word asked is a word of the name: "3060" finds "GeForce RTX 3060" (and its Ti).
std::vector<Row> page_rows_with_words(const GpuTables& t, const std::string& key) {
  const auto asked = words(key);
  return page_rows_where(t, [&](size_t r) {
    const auto have = words(gpu_key(t.page.cell(r, "name")));
    return std::all_of(asked.begin(), asked.end(), [&](const std::string& w) {
      return std::find(have.begin(), have.end(), w) != have.end();
    });
  });
}

std::vector<Row> rows_with_key_prefix(const GpuTables& t, const std::string& key) {
  auto has_prefix = [&](const std::string& name) { return gpu_key(name).starts_with(key); };
  auto rows = page_rows_where(t, [&](size_t r) { return has_prefix(t.page.cell(r, "name")); });
  auto ids = id_rows_where(t, [&](size_t r) { return has_prefix(t.ids.cell(r, "name")); });
  rows.insert(rows.end(), ids.begin(), ids.end());
  return rows;
}

// The rows' products (one per board key) and the one compute capability they share.
void settle(GpuMatch& match) {
  std::vector<std::string> products;
  std::vector<std::string> names;
  std::vector<std::string> ccs;
  for (const auto& row : match.rows) {
    const std::string product = gpu_board_key(row.get("name"));
    if (std::find(products.begin(), products.end(), product) == products.end()) {
      products.push_back(product);
      names.push_back(row.get("name"));
    }
    const std::string& cc = row.get("compute_capability");
    if (!cc.empty() && std::find(ccs.begin(), ccs.end(), cc) == ccs.end()) ccs.push_back(cc);
  }
  if (ccs.size() == 1) match.compute_capability = ccs.front();
  if (products.size() > 1) match.candidates = names;
}

std::vector<std::string> closest_names(const GpuTables& t, const std::string& key) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (size_t row = 0; row < t.page.size(); ++row) {
    const std::string& candidate = t.page.cell(row, "name");
    scored.emplace_back(edit_distance(key, gpu_key(candidate)), candidate);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < 5; ++i) {
    if (std::find(out.begin(), out.end(), scored[i].second) == out.end())
      out.push_back(scored[i].second);
  }
  return out;
}

// The name tiers, most exact first; the first that matches answers.
GpuMatch match_name(const GpuTables& t, const GpuQuery& q) {
  GpuMatch match;
  const std::string key = gpu_key(q.name);
  auto answer = [&](std::vector<Row> rows, std::string by) {
    match.rows = std::move(rows);
    match.matched_by = std::move(by);
    settle(match);
    return match;
  };
  if (q.truncated) {
    if (auto rows = rows_with_key_prefix(t, key); !rows.empty())
      return answer(std::move(rows), "prefix");
    return match;
  }
  if (key.empty()) return match;
  if (auto rows = rows_with_key(t, key, gpu_key); !rows.empty()) {
    answer(std::move(rows), "name");
    // A driver name the page spells longer ("NVIDIA GB10" for "NVIDIA GB10 (DGX Spark)"): the
    // one page product holding all its words knows the compute capability.
    if (match.compute_capability.empty() && match.candidates.empty()) {
      if (auto page = page_rows_with_words(t, key); page.size() == 1) {
        match.rows = std::move(page);
        match.matched_by = "words";
        settle(match);
      }
    }
    return match;
  }
  if (auto rows = rows_of_alias(t, key); !rows.empty()) return answer(std::move(rows), "alias");
  if (const std::string board = gpu_board_key(q.name); !board.empty()) {
    if (auto rows = rows_with_key(t, board, gpu_board_key); !rows.empty())
      return answer(std::move(rows), "board");
  }
  const std::string chip = text::to_lower(q.chip.empty() ? key : q.chip);
  if (auto rows = rows_of_chip(t, chip); !rows.empty()) return answer(std::move(rows), "chip");
  if (auto rows = page_rows_with_words(t, key); !rows.empty())
    return answer(std::move(rows), "words");
  match.closest = closest_names(t, key);
  return match;
}

}  // namespace

namespace {
GpuMatch match_query(const GpuTables& t, const GpuQuery& q);
}  // namespace

Result<GpuMatch> find_gpu(const Kb& kb, std::string_view name) {
  const std::array<std::string, 4> names = {"gpus", "gpu_ids", "gpu_chips", "gpu_aliases"};
  std::array<const Table*, 4> tables{};
  for (size_t i = 0; i < names.size(); ++i) {
    auto table = kb.table(names[i]);
    if (!table) return table.error();
    tables[i] = *table;
  }
  const GpuTables t{*tables[0], *tables[1], *tables[2], *tables[3]};
  const GpuQuery q = parse_gpu_query(name);
  GpuMatch match = match_query(t, q);
  // The device's own report, printed on the same line, outranks any table.
  if (q.stated_cc && match.compute_capability != *q.stated_cc) {
    match.compute_capability = *q.stated_cc;
    match.matched_by = "stated";
    match.closest.clear();
  }
  return match;
}

namespace {

GpuMatch match_query(const GpuTables& t, const GpuQuery& q) {
  if (q.device_id) {
    GpuMatch match;
    match.rows =
        id_rows_where(t, [&](size_t r) { return t.ids.cell(r, "device_id") == *q.device_id; });
    if (!match.rows.empty()) {
      match.matched_by = "pci_id";
      settle(match);
      match.candidates.clear();  // one device, whatever its boards are called
      // An id whose chip no rule settles: the name beside it (lspci -nn) may still say.
      if (!match.compute_capability.empty() || q.name.empty()) return match;
      if (GpuMatch by_name = match_name(t, q); !by_name.compute_capability.empty()) return by_name;
      return match;
    }
  }
  return match_name(t, q);
}

}  // namespace

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
  // Some version with the prefix lies in the range: each side is cut to the shorter of the two,
  // so a prefix ("2") is read against the bound's series and a bound that is a series ("2.4")
  // holds its patch releases (2.4.1).
  const auto parts = [](std::string_view v) { return text::split(v, '.').size(); };
  const auto cut_compare = [&](std::string_view bound) {
    return version::compare(version::prefix(version, parts(bound)),
                            version::prefix(bound, parts(version)));
  };
  const bool after_start = cut_compare(from) >= 0;
  const bool before_end = !version::is_dotted(to) || cut_compare(to) <= 0;
  return after_start && before_end;
}

bool version_within(std::string_view version, std::string_view from, std::string_view to) {
  if (!version::is_dotted(version)) return false;
  const auto parts = [](std::string_view v) { return text::split(v, '.').size(); };
  if (version::is_dotted(from) && version::compare(version::prefix(version, parts(from)), from) < 0)
    return false;
  return !version::is_dotted(to) || version::compare(version::prefix(version, parts(to)), to) <= 0;
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

Result<std::optional<Row>> past_platform_gpu_limit(const Kb& kb, std::string_view family,
                                                   std::string_view platform,
                                                   std::string_view version) {
  auto rows = rows_where(kb, "framework_platform_limits", "family", family);
  if (!rows) return rows.error();
  for (const auto& row : *rows) {
    if (row.get("platform") != platform) continue;
    const std::string& until = row.get("gpu_until");
    if (version::compare(version::prefix(version, text::split(until, '.').size()), until) > 0)
      return std::optional<Row>(row);
  }
  return std::optional<Row>();
}

std::optional<Row> xid_error(const Kb& kb, std::string_view code) {
  auto rows = rows_where(kb, "nvidia_xid_errors", "xid", code);
  if (!rows || rows->empty()) return std::nullopt;
  return rows->front();
}

}  // namespace gpuvet::kb
