#pragma once
// Questions to the knowledge base that `gpuvet kb`, the checks and `plan` share: a GPU by name,
// the releases of a CUDA or cuDNN version, a framework's builds. Answers are rows of data/ with
// their sources; nothing is computed that the tables do not say.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "kb/kb.hpp"

namespace gpuvet::kb {

// A row of a table as column -> value, in the table's column order.
struct Row {
  std::string table;  // "gpus", "cuda_releases" ...
  std::vector<std::pair<std::string, std::string>> cells;
  const std::string& get(std::string_view column) const;
};

// "NVIDIA GeForce RTX 3060" -> "rtx 3060": lower case, "nvidia"/"geforce" and punctuation
// dropped, "TI"/"Ti" kept as a word.
std::string gpu_key(std::string_view name);

struct GpuMatch {
  std::vector<Row> rows;             // the GPUs of that name (one, unless the table repeats it)
  std::vector<std::string> closest;  // when nothing matched: the nearest names, best first
};
// Exact (normalised) name first, then the one name whose words contain every word asked.
Result<GpuMatch> find_gpu(const Kb& kb, std::string_view name);

// Rows whose version column starts with `version` part by part ("10.1" matches 10.1.105 and
// 10.1.243, not 10.10); for range tables, rows whose range holds a version with that prefix.
Result<std::vector<Row>> rows_for_version(const Kb& kb, const std::string& table,
                                          std::string_view column, std::string_view version);
Result<std::vector<Row>> rows_for_range(const Kb& kb, const std::string& table,
                                        std::string_view from_column, std::string_view to_column,
                                        std::string_view version);
// The rows `keep` accepts.
Result<std::vector<Row>> rows_if(const Kb& kb, const std::string& table,
                                 const std::function<bool(const Row&)>& keep);
// Whether some version with this prefix lies in [from, to]; an empty `to` is open, an empty or
// non-numeric `from` holds nothing.
bool version_in_range(std::string_view version, std::string_view from, std::string_view to);
// Rows whose column equals value exactly.
Result<std::vector<Row>> rows_where(const Kb& kb, const std::string& table, std::string_view column,
                                    std::string_view value);

// "1.2.3" starts with "1.2" part by part.
bool version_has_prefix(std::string_view version, std::string_view prefix);

}  // namespace gpuvet::kb
