#include "kb/kb.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/c_file.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "kb/embedded.hpp"
#include "kb/messages.hpp"
#include "kb/sources.hpp"

namespace gpuvet::kb {

namespace {

// Larger than any table gpuvet ships; a bigger file is not a knowledge-base table.
constexpr size_t kMaxTableBytes = 8 << 20;

Result<std::string> version_of(const std::string& contents, const std::string& where) {
  const std::string version(text::trim(contents));
  if (version.empty() || version.size() > 64 || version.find('\n') != std::string::npos) {
    return make_error(fmt::format("{}: not a version (one line, e.g. 2026.11.30)", where));
  }
  return version;
}

// A table as users may see it: of its `source` and `notes` cells only the public part
// (kb/sources.hpp), so that no renderer can print a repository-internal reference.
Result<Table> parse_table(std::string_view text, const std::string& where) {
  auto table = parse_csv(text, where);
  if (!table) return table;
  std::vector<std::string> columns;
  for (const char* column : {"source", "notes"}) {
    if (table->has_column(column)) columns.emplace_back(column);
  }
  bool changed = false;
  for (size_t row = 0; row < table->size() && !changed; ++row) {
    for (const auto& column : columns) {
      const std::string& cell = table->cell(row, column);
      if (public_text(cell) != cell) changed = true;
    }
  }
  if (!changed) return table;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;
  for (size_t row = 0; row < table->size(); ++row) {
    std::vector<std::string> cells;
    for (const auto& column : table->header()) {
      const std::string& cell = table->cell(row, column);
      const bool cleaned = std::find(columns.begin(), columns.end(), column) != columns.end();
      cells.push_back(cleaned ? public_text(cell) : cell);
    }
    rows.push_back(std::move(cells));
    lines.push_back(table->line_of(row));
  }
  return Table(table->name(), table->header(), std::move(rows), std::move(lines));
}

}  // namespace

Result<Kb> Kb::from_files(const std::map<std::string, std::string>& files) {
  Kb kb;
  for (const auto& [path, contents] : files) {
    if (path == "VERSION") {
      auto version = version_of(contents, "data/VERSION");
      if (!version) return version.error();
      kb.version_ = *version;
      continue;
    }
    if (!path.ends_with(".csv")) continue;
    const std::string name = path.substr(0, path.size() - 4);
    auto table = parse_table(contents, "data/" + path);
    if (!table) return table.error();
    kb.tables_.emplace(name, parsed_entry(std::move(*table)));
  }
  return kb;
}

std::shared_ptr<Kb::Entry> Kb::parsed_entry(Table table) {
  auto entry = std::make_shared<Entry>();
  std::call_once(entry->parsed, [&] { entry->table.emplace(std::move(table)); });
  return entry;
}

const Result<Table>& Kb::parse(Entry& entry) const {
  std::call_once(entry.parsed,
                 [&entry] { entry.table.emplace(parse_table(entry.text, entry.where)); });
  return *entry.table;
}

Result<bool> Kb::parse_all() const {
  for (const auto& [name, entry] : tables_) {
    const auto& table = parse(*entry);
    if (!table) return table.error();
  }
  return true;
}

// The overlay's errors are worded by the catalog: the embedded knowledge base, and with it the
// catalog, is loaded before any overlay is read.
Result<Kb> Kb::overlaid_with(const std::string& directory) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path root = paths::to_fs(directory);
  if (!fs::is_directory(root, ec)) {
    return in_file(catalog_error("kb.error.not_a_directory"), directory);
  }
  Kb kb = *this;
  bool found = false;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string relative = paths::from_fs(it->path().lexically_relative(root));
    const std::string file = paths::from_fs(it->path());
    if (relative != "VERSION" && !relative.ends_with(".csv")) continue;
    auto contents = paths::read_file(file, kMaxTableBytes);
    if (!contents) return contents.error();
    if (relative == "VERSION") {
      auto version = version_of(*contents, file);
      if (!version) return within(version.error(), "kb.error.unusable_file");
      kb.version_ = *version;
      continue;
    }
    auto table = parse_table(*contents, file);
    if (!table) return within(table.error(), "kb.error.unusable_file");
    kb.tables_.insert_or_assign(relative.substr(0, relative.size() - 4),
                                parsed_entry(std::move(*table)));
    found = true;
  }
  if (ec) return in_file(filesystem_error(ec), directory);
  if (!found) return in_file(catalog_error("kb.error.no_tables"), directory);
  return kb;
}

Result<Kb> Kb::embedded() {
  // Built once per process; copies share the entries, so a table is parsed at most once.
  static const Result<Kb> base = []() -> Result<Kb> {
    Kb kb;
    for (const auto& file : embedded_files()) {
      if (file.path == "VERSION") {
        auto version = version_of(std::string(file.bytes), "data/VERSION");
        if (!version) return version.error();
        kb.version_ = *version;
        continue;
      }
      if (!file.path.ends_with(".csv")) continue;
      auto entry = std::make_shared<Entry>();
      entry->text = file.bytes;
      entry->where = "data/" + std::string(file.path);
      kb.tables_.emplace(std::string(file.path.substr(0, file.path.size() - 4)), std::move(entry));
    }
    return kb;
  }();
  return base;
}

Result<const Table*> Kb::table(const std::string& name) const {
  const auto it = tables_.find(name);
  if (it == tables_.end()) {
    return make_error(fmt::format("knowledge base has no table data/{}.csv", name));
  }
  const auto& table = parse(*it->second);
  if (!table) return table.error();
  return &*table;
}

std::vector<std::string> Kb::table_names() const {
  std::vector<std::string> names;
  for (const auto& [name, table] : tables_)
    names.push_back(name);
  return names;
}

}  // namespace gpuvet::kb
