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
#include "kb/gpu_names.hpp"
#include "kb/kb.hpp"

namespace gpuvet::kb {

// A row of a table as column -> value, in the table's column order.
struct Row {
  std::string table;  // "gpus", "cuda_releases" ...
  std::vector<std::pair<std::string, std::string>> cells;
  const std::string& get(std::string_view column) const;
};

struct GpuMatch {
  // The GPUs of that name, as rows of "gpus" (NVIDIA's CUDA GPUs page) or, for names and PCI ids
  // the page lacks, rows of "gpu_ids" shaped like them (with device_id, chip, cc_from added).
  std::vector<Row> rows;
  // The one compute capability every matched row with a known one has; empty when none is known
  // or they differ.
  std::string compute_capability;
  // More than one product matched (a truncated or partial name): their names. The answer is then
  // a list to choose from, and compute_capability says whether the choice matters.
  std::vector<std::string> candidates;
  std::string matched_by;  // name | alias | pci_id | board | chip | prefix | words | stated
  std::vector<std::string> closest;  // when nothing matched: the nearest names, best first
  bool unique() const { return !rows.empty() && candidates.empty(); }
};
// A GPU by what a user pastes: a marketing or driver name (any brand prefix, suffix or case), a
// name cut with "...", a PCI id, a Windows hardware id or an lspci line (kb/gpu_names.hpp).
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
// Whether some version with this prefix lies in [from, to], a bound being its whole series
// (2.4.1 is in 2.0..2.4); an empty `to` is open, an empty or non-numeric `from` holds nothing.
bool version_in_range(std::string_view version, std::string_view from, std::string_view to);
// Whether a version lies in [from, to], each bound compared on as many parts as it has: to "2.16"
// holds 2.16.1, to "6" holds 6.5. An empty (or non-numeric) bound does not bound.
bool version_within(std::string_view version, std::string_view from, std::string_view to);
// Rows whose column equals value exactly.
Result<std::vector<Row>> rows_where(const Kb& kb, const std::string& table, std::string_view column,
                                    std::string_view value);

// NVIDIA's Xid catalog's row for a code (data/nvidia_xid_errors.csv: "79"); none when the
// catalog lacks it.
std::optional<Row> xid_error(const Kb& kb, std::string_view code);

// data/framework_platform_limits.csv's row for this framework family and platform when the
// version is newer than the last with GPU support there (TensorFlow after 2.10 on native
// Windows), compared on as many parts as the limit has.
Result<std::optional<Row>> past_platform_gpu_limit(const Kb& kb, std::string_view family,
                                                   std::string_view platform,
                                                   std::string_view version);

// "1.2.3" starts with "1.2" part by part.
bool version_has_prefix(std::string_view version, std::string_view prefix);

}  // namespace gpuvet::kb
