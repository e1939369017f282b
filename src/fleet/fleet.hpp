#pragma once
// A fleet: many machines' snapshots, each diagnosed as `check --snapshot` would, then compared.
// The report names the nodes that are broken and why, the facts that differ between nodes that
// should be identical (drift), and the groups of nodes whose facts are all the same.
#include <optional>
#include <string>
#include <vector>

#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "pipeline/diagnose.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::fleet {

enum class Verdict { ready, warning, error, unreadable };
std::string_view to_string(Verdict verdict);

// One fact that should agree across nodes, as compared: "driver.version" -> "550.54.15".
// The order is the report's (compare_facts in node.cpp).
using NodeFacts = std::vector<std::pair<std::string, std::string>>;

struct Node {
  std::string host;    // the snapshot's host name, else its file name without .json[.gz]
  std::string source;  // the file it came from (or the node name of a failed collection)
  Verdict verdict = Verdict::unreadable;
  // The first error finding in fault-tree order; for an unreadable node, why.
  std::optional<std::string> first_error;
  std::optional<std::string> first_error_title;
  int errors = 0;
  int warnings = 0;
  bool collected = true;  // false: the collector recorded that this node gave no snapshot
  // Shown in the node's row.
  std::vector<std::string> gpus;
  std::optional<std::string> driver;
  std::vector<std::string> toolkits;
  std::vector<std::string> cudnn;
  std::vector<std::string> frameworks;  // "torch 2.5.1 (CUDA 12.1)"
  NodeFacts facts;                      // empty for an unreadable node
};

struct Outlier {
  std::string host;
  std::string value;
};

struct Drift {
  std::string fact;
  std::string majority;
  int majority_count = 0;
  bool tie = false;  // as many nodes hold another value: "majority" is only the first of them
  std::vector<Outlier> outliers;
};

struct Group {
  std::string key;  // a short digest of the facts the hosts share
  std::vector<std::string> hosts;
  NodeFacts facts;
};

struct Report {
  std::vector<Node> nodes;  // sorted by host
  std::vector<Drift> drift;
  std::vector<Group> groups;  // largest first
  int ready = 0, warning = 0, error = 0, unreadable = 0;
  // The collector's record (DIR/collect.json) was read, and what it said of the collection.
  std::optional<std::string> collected_at;
};

// The node a diagnosed snapshot makes.
Node node_of(const pipeline::Report& diagnosed, std::string host, std::string source);
// A node whose snapshot could not be read or was never collected.
Node unreadable_node(std::string host, std::string source, std::string why, bool collected);

// The facts compared across nodes, as strings ("none" when a node has none of the thing).
NodeFacts compare_facts(const Facts& facts);

// Drift and groups over the readable nodes; fills the counts.
void compare(Report& report);

// Reads every snapshot in DIR (.json, .json.gz), with `threads` workers, each holding one
// snapshot at a time. An Error only when DIR itself cannot be listed or holds no snapshot.
struct ReadOptions {
  unsigned threads = 0;  // 0: one per core
};
Result<Report> report_dir(const std::string& dir, const kb::Kb& kb, const kb::Messages& messages,
                          const ReadOptions& options = {});

// The host name a snapshot's file is written under: letters, digits, '.', '-' and '_' only.
std::string file_safe_host(std::string_view host);

}  // namespace gpuvet::fleet
