// Drift (per fact: the value most nodes hold, and the nodes that differ) and groups (nodes whose
// compared facts are all the same).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "fleet/fleet.hpp"

namespace gpuvet::fleet {

namespace {

// A fact a node does not have at all (an environment path only some nodes have).
constexpr const char* kAbsent = "absent";

// Every fact name in report order: the fixed facts in the order nodes list them, then the rest
// (environment paths) sorted.
std::vector<std::string> fact_names(const std::vector<const Node*>& nodes) {
  std::vector<std::string> ordered;
  std::set<std::string> seen;
  for (const Node* node : nodes) {
    for (const auto& [name, value] : node->facts) {
      if (seen.insert(name).second) ordered.push_back(name);
    }
  }
  const auto first_env = std::stable_partition(
      ordered.begin(), ordered.end(), [](const auto& n) { return !n.starts_with("framework "); });
  std::sort(first_env, ordered.end());
  return ordered;
}

std::string value_of(const Node& node, const std::string& fact) {
  for (const auto& [name, value] : node.facts) {
    if (name == fact) return value;
  }
  return kAbsent;
}

std::optional<Drift> drift_of(const std::string& fact, const std::vector<const Node*>& nodes) {
  std::map<std::string, int> counts;
  for (const Node* node : nodes)
    ++counts[value_of(*node, fact)];
  if (counts.size() < 2) return std::nullopt;
  // The most common value; among equals, the first in sorted order, flagged as a tie.
  Drift drift;
  drift.fact = fact;
  for (const auto& [value, count] : counts) {
    if (count > drift.majority_count) {
      drift.majority = value;
      drift.majority_count = count;
      drift.tie = false;
    } else if (count == drift.majority_count) {
      drift.tie = true;
    }
  }
  for (const Node* node : nodes) {
    std::string value = value_of(*node, fact);
    if (value != drift.majority) drift.outliers.push_back({node->host, std::move(value)});
  }
  return drift;
}

// FNV-1a, 64 bits: a stable name for a set of facts, the same in every run and on every machine.
std::string digest(const NodeFacts& facts) {
  std::uint64_t hash = 14695981039346656037ull;
  const auto mix = [&hash](std::string_view text) {
    for (const unsigned char c : text) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
    hash ^= 0xff;  // a separator no UTF-8 text holds
    hash *= 1099511628211ull;
  };
  for (const auto& [name, value] : facts) {
    mix(name);
    mix(value);
  }
  return fmt::format("{:012x}", hash & 0xffffffffffffull);
}

}  // namespace

void compare(Report& report) {
  std::sort(report.nodes.begin(), report.nodes.end(), [](const Node& a, const Node& b) {
    return std::tie(a.host, a.source) < std::tie(b.host, b.source);
  });
  report.ready = report.warning = report.error = report.unreadable = 0;
  std::vector<const Node*> readable;
  for (const Node& node : report.nodes) {
    switch (node.verdict) {
      case Verdict::ready:
        ++report.ready;
        break;
      case Verdict::warning:
        ++report.warning;
        break;
      case Verdict::error:
        ++report.error;
        break;
      case Verdict::unreadable:
        ++report.unreadable;
        break;
    }
    if (node.verdict != Verdict::unreadable) readable.push_back(&node);
  }

  const std::vector<std::string> names = fact_names(readable);
  report.drift.clear();
  for (const std::string& name : names) {
    if (auto drift = drift_of(name, readable)) report.drift.push_back(std::move(*drift));
  }

  // Groups: the same value for every fact any node has (absent ones included).
  std::map<NodeFacts, std::vector<std::string>> by_facts;
  for (const Node* node : readable) {
    NodeFacts all;
    for (const std::string& name : names)
      all.emplace_back(name, value_of(*node, name));
    by_facts[std::move(all)].push_back(node->host);
  }
  report.groups.clear();
  for (auto& [facts, hosts] : by_facts)
    report.groups.push_back({digest(facts), hosts, facts});
  std::stable_sort(report.groups.begin(), report.groups.end(), [](const Group& a, const Group& b) {
    return a.hosts.size() != b.hosts.size() ? a.hosts.size() > b.hosts.size()
                                            : a.hosts.front() < b.hosts.front();
  });
}

}  // namespace gpuvet::fleet
