#pragma once
// RFC 4180 CSV, the one format of the knowledge base. Lines whose first field starts with '#'
// are comments. Every data row must have as many fields as the header.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace gpuvet::kb {

class Table {
 public:
  Table() = default;
  Table(std::string name, std::vector<std::string> header,
        std::vector<std::vector<std::string>> rows, std::vector<int> row_lines);

  const std::string& name() const { return name_; }
  const std::vector<std::string>& header() const { return header_; }
  size_t size() const { return rows_.size(); }
  bool has_column(std::string_view column) const;
  // The cell of a row by column name; empty when the column does not exist.
  const std::string& cell(size_t row, std::string_view column) const;
  // The line in the file where the row starts, for error messages.
  int line_of(size_t row) const { return row_lines_.at(row); }

 private:
  std::string name_;
  std::vector<std::string> header_;
  std::map<std::string, size_t, std::less<>> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> row_lines_;
};

// Errors read "NAME:LINE: what is wrong".
Result<Table> parse_csv(std::string_view text, const std::string& name);

}  // namespace gpuvet::kb
