#pragma once
// `fleet collect --slurm`: `gpuvet snapshot` on every node of a Slurm allocation through srun, one
// task per node, each snapshot streamed back through srun's output (wire.hpp), so that neither
// gpuvet nor DIR needs to be on a shared filesystem. The site's scheduler does the work; gpuvet
// adds no agent or daemon.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "fleet/collect_record.hpp"

namespace gpuvet::fleet {

enum class Stage { automatic, always, never };

struct CollectOptions {
  std::string out_dir;
  std::vector<std::string> srun_args;  // passed through: --nodes, --partition, --nodelist ...
  std::chrono::seconds node_timeout{120};
  // How long srun may take in all, waiting in the queue included; 0: node_timeout + 10 minutes.
  std::chrono::seconds deadline{0};
  Stage stage = Stage::automatic;
  std::string self;          // this executable
  std::string srun;          // the srun to run; empty: the first on PATH
  std::string collected_at;  // the record's time stamp
};

struct Collected {
  CollectRecord record;
  bool staged = false;  // the binary was copied to the nodes (srun --bcast)
  std::optional<std::string> shared_filesystem;  // where gpuvet ran in place: "nfs" ...
};

// Runs the collection and writes DIR/<host>.json.gz for each node that answered, and
// DIR/collect.json for all. An Error when nothing could start (no srun, DIR not writable).
Result<Collected> collect_slurm(const CollectOptions& options);

// The node's side (`fleet node`): a snapshot of this machine taken by a child process of
// `self` within the timeout, as the lines the collector reads.
// `node` is the scheduler's name for it, `nodelist` the allocation's compressed host list.
std::vector<std::string> node_answer(const std::string& self, std::chrono::seconds timeout,
                                     const std::string& node, const std::string& nodelist);

}  // namespace gpuvet::fleet
