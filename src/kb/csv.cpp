#include "kb/csv.hpp"

#include <fmt/format.h>

namespace gpuvet::kb {

Table::Table(std::string name, std::vector<std::string> header,
             std::vector<std::vector<std::string>> rows, std::vector<int> row_lines)
    : name_(std::move(name)),
      header_(std::move(header)),
      rows_(std::move(rows)),
      row_lines_(std::move(row_lines)) {
  for (size_t i = 0; i < header_.size(); ++i)
    columns_.emplace(header_[i], i);
}

bool Table::has_column(std::string_view column) const {
  return columns_.contains(column);
}

const std::string& Table::cell(size_t row, std::string_view column) const {
  static const std::string empty;
  const auto it = columns_.find(column);
  if (it == columns_.end()) return empty;
  return rows_.at(row).at(it->second);
}

namespace {

struct Record {
  std::vector<std::string> fields;
  int line = 0;
};

// Splits the text into records, honouring quoted fields that hold commas, quotes and newlines.
Result<std::vector<Record>> split_records(std::string_view text, const std::string& name) {
  std::vector<Record> records;
  Record current;
  std::string field;
  bool in_quotes = false;
  bool field_was_quoted = false;
  int line = 1;
  int quote_line = 1;
  current.line = 1;
  auto end_field = [&] {
    current.fields.push_back(std::move(field));
    field.clear();
    field_was_quoted = false;
  };
  auto end_record = [&] {
    end_field();
    const bool blank = current.fields.size() == 1 && current.fields[0].empty();
    if (!blank) records.push_back(std::move(current));
    current = Record{};
    current.line = line;
  };
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0') return make_error(fmt::format("{}:{}: NUL byte in a text table", name, line));
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    const bool at_record_start = current.fields.empty() && field.empty() && !field_was_quoted;
    if (c == '#' && at_record_start) {
      // A comment runs to the end of its line, quotes and all.
      while (i + 1 < text.size() && text[i + 1] != '\n' && text[i + 1] != '\r')
        ++i;
      continue;
    }
    if (c == '"' && field.empty() && !field_was_quoted) {
      in_quotes = true;
      quote_line = line;
      field_was_quoted = true;
    } else if (c == '"') {
      return make_error(fmt::format("{}:{}: stray quote inside a field", name, line));
    } else if (c == ',') {
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      ++line;
      end_record();
    } else if (field_was_quoted) {
      return make_error(fmt::format("{}:{}: text after a closing quote", name, line));
    } else {
      field.push_back(c);
    }
  }
  if (in_quotes) {
    return make_error(fmt::format("{}:{}: unterminated quoted field", name, quote_line));
  }
  if (!field.empty() || !current.fields.empty() || field_was_quoted) end_record();
  return records;
}

}  // namespace

Result<Table> parse_csv(std::string_view text, const std::string& name) {
  auto records = split_records(text, name);
  if (!records) return records.error();
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;
  for (auto& record : *records) {
    if (header.empty()) {
      header = std::move(record.fields);
      continue;
    }
    if (record.fields.size() != header.size()) {
      return make_error(fmt::format("{}:{}: expected {} fields, found {}", name, record.line,
                                    header.size(), record.fields.size()));
    }
    rows.push_back(std::move(record.fields));
    lines.push_back(record.line);
  }
  if (header.empty()) return make_error(fmt::format("{}: no header row", name));
  return Table(name, std::move(header), std::move(rows), std::move(lines));
}

}  // namespace gpuvet::kb
