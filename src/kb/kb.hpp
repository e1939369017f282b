#pragma once
// The knowledge base: the tables of data/ (embedded in the binary). The embedded tables are
// parsed when first asked for, once per process, so that a run (or a child process) that needs
// two tables does not pay for thirty; the test suite checks that every one of them parses.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "kb/csv.hpp"

namespace gpuvet::kb {

class Kb {
 public:
  // The tables compiled into this binary. Cheap: nothing is parsed until table() asks, and
  // every copy shares what was parsed.
  static Result<Kb> embedded();
  // Tables from files: path (relative to data/, '/' separators) -> contents. The file VERSION
  // holds the knowledge base's version.
  static Result<Kb> from_files(const std::map<std::string, std::string>& files);
  // A newer copy in a directory laid out as data/ (--kb DIR): its tables replace this knowledge
  // base's tables of the same name, the others stay. Errors name the file.
  Result<Kb> overlaid_with(const std::string& directory) const;

  // "2026.11.30" (data/VERSION); "unknown" when there is none.
  const std::string& version() const { return version_; }

  // A table by its path under data/ without ".csv", e.g. "tf_log_levels", "messages/en".
  Result<const Table*> table(const std::string& name) const;
  std::vector<std::string> table_names() const;
  // Parses every table not parsed yet; the first error names its file and line.
  Result<bool> parse_all() const;

 private:
  // A table's source and, once asked for, what parsing it gave.
  struct Entry {
    std::string_view text;  // the embedded bytes, which live as long as the program
    std::string where;      // "data/gpus.csv", for error messages
    std::once_flag parsed;
    std::optional<Result<Table>> table;
  };
  static std::shared_ptr<Entry> parsed_entry(Table table);
  const Result<Table>& parse(Entry& entry) const;

  std::map<std::string, std::shared_ptr<Entry>> tables_;
  std::string version_ = "unknown";
};

}  // namespace gpuvet::kb
