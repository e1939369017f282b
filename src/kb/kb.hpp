#pragma once
// The knowledge base: the tables of data/ (embedded in the binary), parsed and checked once.
#include <map>
#include <memory>
#include <string>

#include "core/result.hpp"
#include "kb/csv.hpp"

namespace gpuvet::kb {

class Kb {
 public:
  // The tables compiled into this binary.
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

 private:
  std::map<std::string, Table> tables_;
  std::string version_ = "unknown";
};

}  // namespace gpuvet::kb
