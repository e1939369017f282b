#include "kb/kb.hpp"

#include <fmt/format.h>

#include "kb/embedded.hpp"

namespace gpuvet::kb {

Result<Kb> Kb::from_files(const std::map<std::string, std::string>& files) {
  Kb kb;
  for (const auto& [path, contents] : files) {
    if (!path.ends_with(".csv")) continue;
    const std::string name = path.substr(0, path.size() - 4);
    auto table = parse_csv(contents, "data/" + path);
    if (!table) return table.error();
    kb.tables_.emplace(name, std::move(*table));
  }
  return kb;
}

Result<Kb> Kb::embedded() {
  std::map<std::string, std::string> files;
  for (const auto& file : embedded_files())
    files.emplace(file.path, file.bytes);
  return from_files(files);
}

Result<const Table*> Kb::table(const std::string& name) const {
  const auto it = tables_.find(name);
  if (it == tables_.end()) {
    return make_error(fmt::format("knowledge base has no table data/{}.csv", name));
  }
  return &it->second;
}

std::vector<std::string> Kb::table_names() const {
  std::vector<std::string> names;
  for (const auto& [name, table] : tables_)
    names.push_back(name);
  return names;
}

}  // namespace gpuvet::kb
