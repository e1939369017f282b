#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "system/gzip.hpp"
#include "system/paths.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::sys {

namespace {
// Real snapshots are kilobytes to a few megabytes; anything far larger is not one.
constexpr size_t kMaxSnapshotFileBytes = size_t{256} << 20;

bool looks_binary(std::string_view bytes) {
  const size_t n = std::min<size_t>(bytes.size(), 4096);
  for (size_t i = 0; i < n; ++i) {
    if (bytes[i] == '\0') return true;
  }
  return false;
}
}  // namespace

Result<Snapshot> parse_snapshot(std::string_view bytes) {
  std::string inflated;
  if (gzip::looks_compressed(bytes)) {
    auto text = gzip::decompress(bytes);
    if (!text) return text.error();
    inflated = std::move(*text);
    bytes = inflated;
  }
  if (text::trim(bytes).empty()) return make_error("empty file, not a snapshot");
  if (looks_binary(bytes)) return make_error("binary data, not a JSON snapshot");
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::parse_error& e) {
    return make_error(fmt::format("not valid JSON (byte {}{})", e.byte,
                                  e.byte >= bytes.size() ? ", the file looks truncated" : ""));
  }
  return snapshot_from_json(document);
}

std::string serialize_snapshot(const Snapshot& snapshot) {
  return snapshot_to_json(snapshot).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

Result<Snapshot> load_snapshot_file(const std::string& path) {
  auto bytes = paths::read_file(path, kMaxSnapshotFileBytes);
  if (!bytes) return make_error(fmt::format("cannot read snapshot {}", bytes.error().message));
  auto snapshot = parse_snapshot(*bytes);
  if (!snapshot) return make_error(fmt::format("{}: {}", path, snapshot.error().message));
  return snapshot;
}

Result<bool> save_snapshot_file(const Snapshot& snapshot, const std::string& path) {
  const std::string text = serialize_snapshot(snapshot);
  if (path.size() > 3 && path.ends_with(".gz")) {
    auto compressed = gzip::compress(text);
    if (!compressed) return make_error(fmt::format("{}: {}", path, compressed.error().message));
    return paths::write_file(path, *compressed);
  }
  return paths::write_file(path, text);
}

}  // namespace gpuvet::sys
