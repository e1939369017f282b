// `fleet report DIR`: every snapshot in a directory, diagnosed by a few workers, each holding one
// snapshot at a time, so memory stays bounded however many nodes there are.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "core/c_file.hpp"
#include "core/paths.hpp"
#include "fleet/collect_record.hpp"
#include "fleet/fleet.hpp"
#include "kb/messages.hpp"
#include "system/replay_system.hpp"

namespace gpuvet::fleet {

namespace fs = std::filesystem;

namespace {

bool is_snapshot_name(const std::string& name) {
  if (name.empty() || name.front() == '.' || name == kCollectRecordName) return false;
  return name.ends_with(".json") || name.ends_with(".json.gz");
}

std::string stem_of(std::string name) {
  for (const std::string_view suffix : {".json.gz", ".json"}) {
    if (name.ends_with(suffix)) return name.substr(0, name.size() - suffix.size());
  }
  return name;
}

Error unreadable_directory(const std::string& dir, const std::error_code& error) {
  return kb::within(filesystem_error(error), "fleet.error.cannot_read_dir", {{"dir", dir}});
}

Result<std::vector<fs::path>> snapshot_files(const std::string& dir) {
  std::error_code error;
  fs::directory_iterator it(paths::to_fs(dir), error);
  if (error) return unreadable_directory(dir, error);
  std::vector<fs::path> files;
  for (; it != fs::directory_iterator(); it.increment(error)) {
    if (error) break;
    const fs::path& path = it->path();
    if (!is_snapshot_name(paths::from_fs(path.filename()))) continue;
    std::error_code kind_error;
    if (it->is_directory(kind_error)) continue;
    files.push_back(path);
  }
  if (error) return unreadable_directory(dir, error);
  std::sort(files.begin(), files.end());
  return files;
}

Node diagnose_file(const fs::path& path, const kb::Kb& kb, const kb::Messages& messages) {
  const std::string source = paths::from_fs(path);
  const std::string stem = stem_of(paths::from_fs(path.filename()));
  try {
    auto snapshot = sys::load_snapshot_file(source);
    if (!snapshot)
      return unreadable_node(stem, source, kb::render_error(snapshot.error(), messages), true);
    const std::string host = snapshot->host.hostname.value_or(stem);
    const sys::ReplaySystem system(std::move(*snapshot));
    auto diagnosed = pipeline::diagnose(system, kb, messages);
    if (!diagnosed)
      return unreadable_node(host, source, kb::render_error(diagnosed.error(), messages), true);
    return node_of(*diagnosed, host, source);
  } catch (const std::exception& e) {
    // Memory exhausted by one file is that node's problem, not the whole report's.
    return unreadable_node(
        stem, source,
        messages.text("fleet.text.cannot_diagnose", {{"file", source}, {"reason", e.what()}}),
        true);
  }
}

std::vector<Node> diagnose_all(const std::vector<fs::path>& files, const kb::Kb& kb,
                               const kb::Messages& messages, unsigned threads) {
  std::vector<Node> nodes(files.size());
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i = next++; i < files.size(); i = next++)
      nodes[i] = diagnose_file(files[i], kb, messages);
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(files.size(), 1)));
  std::vector<std::thread> workers;
  for (unsigned i = 1; i < threads; ++i)
    workers.emplace_back(work);
  work();
  for (std::thread& worker : workers)
    worker.join();
  return nodes;
}

}  // namespace

Result<Report> report_dir(const std::string& dir, const kb::Kb& kb, const kb::Messages& messages,
                          const ReadOptions& options) {
  auto files = snapshot_files(dir);
  if (!files) return files.error();
  const std::string record_path = paths::join(dir, kCollectRecordName);
  std::optional<CollectRecord> record;
  if (std::error_code error; fs::exists(paths::to_fs(record_path), error)) {
    auto read = read_collect_record(record_path);
    if (!read) return read.error();
    record = std::move(*read);
  }
  if (files->empty() && !record) {
    return kb::catalog_error("fleet.error.no_snapshots", {{"dir", dir}});
  }

  Report report;
  report.nodes = diagnose_all(*files, kb, messages, options.threads);
  if (record) {
    report.collected_at = record->collected_at;
    // A node the collector could not reach is a row: dropping it would hide a broken node.
    for (const CollectedNode& node : record->nodes) {
      if (node.status == CollectStatus::ok) continue;
      report.nodes.push_back(unreadable_node(
          node.node, record_path,
          messages.text("fleet.text.not_collected", {{"reason", node.reason}}), false));
    }
  }
  compare(report);
  return report;
}

}  // namespace gpuvet::fleet
