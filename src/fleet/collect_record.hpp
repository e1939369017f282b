#pragma once
// What `fleet collect` writes beside the snapshots (DIR/collect.json, gpuvet.fleet-collect/1):
// every node it expected and what became of it, so that `fleet report` lists a node that gave no
// snapshot instead of silently dropping it.
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuvet::fleet {

inline constexpr const char* kCollectRecordName = "collect.json";
inline constexpr const char* kCollectSchema = "gpuvet.fleet-collect/1";

enum class CollectStatus { ok, failed, timed_out, no_answer };
std::string_view to_string(CollectStatus status);

struct CollectedNode {
  std::string node;  // the scheduler's name for it
  CollectStatus status = CollectStatus::no_answer;
  std::optional<std::string> host;  // the snapshot's host name
  std::optional<std::string> file;  // relative to DIR
  std::string reason;               // why there is no snapshot; empty when ok
};

struct CollectRecord {
  std::string collected_at;
  std::string engine;                // "slurm"
  std::vector<std::string> command;  // what ran, as argv
  std::optional<int> exit_code;      // the engine's; null when it was stopped at the deadline
  std::string messages;              // the last lines the engine printed that were not records
  std::vector<CollectedNode> nodes;
};

std::string serialize_collect_record(const CollectRecord& record);
// Errors name the file and what is wrong with it.
Result<CollectRecord> read_collect_record(const std::string& path);

}  // namespace gpuvet::fleet
