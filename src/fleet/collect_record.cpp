#include "fleet/collect_record.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/paths.hpp"

namespace gpuvet::fleet {

namespace {

using json = nlohmann::ordered_json;

// The record is a few hundred bytes a node; a million nodes would not need this.
constexpr size_t kMaxRecordBytes = size_t{256} << 20;

constexpr std::pair<CollectStatus, std::string_view> kStatusNames[] = {
    {CollectStatus::ok, "ok"},
    {CollectStatus::failed, "failed"},
    {CollectStatus::timed_out, "timed_out"},
    {CollectStatus::no_answer, "no_answer"},
};

std::optional<CollectStatus> status_from(std::string_view name) {
  for (const auto& [status, text] : kStatusNames) {
    if (text == name) return status;
  }
  return std::nullopt;
}

template <typename T>
T field(const json& object, const char* name, const T& fallback) {
  const auto it = object.find(name);
  if (it == object.end() || it->is_null()) return fallback;
  return it->get<T>();
}

std::optional<std::string> optional_text(const json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end() || it->is_null()) return std::nullopt;
  return it->get<std::string>();
}

CollectedNode node_from(const json& object) {
  CollectedNode node;
  node.node = object.at("node").get<std::string>();
  const std::string status = object.at("status").get<std::string>();
  const auto known = status_from(status);
  if (!known) throw std::invalid_argument(fmt::format("unknown status \"{}\"", status));
  node.status = *known;
  node.host = optional_text(object, "host");
  node.file = optional_text(object, "file");
  node.reason = field<std::string>(object, "reason", "");
  return node;
}

}  // namespace

std::string_view to_string(CollectStatus status) {
  for (const auto& [known, text] : kStatusNames) {
    if (known == status) return text;
  }
  return "no_answer";
}

std::string serialize_collect_record(const CollectRecord& record) {
  json nodes = json::array();
  for (const CollectedNode& node : record.nodes) {
    json entry = {{"node", node.node}, {"status", to_string(node.status)}};
    entry["host"] = node.host ? json(*node.host) : json(nullptr);
    entry["file"] = node.file ? json(*node.file) : json(nullptr);
    if (!node.reason.empty()) entry["reason"] = node.reason;
    nodes.push_back(std::move(entry));
  }
  json document = {{"schema", kCollectSchema},
                   {"collected_at", record.collected_at},
                   {"engine", record.engine},
                   {"command", record.command}};
  document["exit_code"] = record.exit_code ? json(*record.exit_code) : json(nullptr);
  document["messages"] = record.messages;
  document["nodes"] = std::move(nodes);
  // Replacement characters for what a scheduler printed in another encoding.
  return document.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<CollectRecord> read_collect_record(const std::string& path) {
  auto bytes = paths::read_file(path, kMaxRecordBytes);
  if (!bytes) return bytes.error();
  try {
    const json document = json::parse(*bytes);
    if (!document.is_object() || document.value("schema", "") != kCollectSchema) {
      return make_error(fmt::format("{}: not a {} record", path, kCollectSchema));
    }
    CollectRecord record;
    record.collected_at = field<std::string>(document, "collected_at", "");
    record.engine = field<std::string>(document, "engine", "");
    record.command = field<std::vector<std::string>>(document, "command", {});
    if (const auto it = document.find("exit_code"); it != document.end() && !it->is_null())
      record.exit_code = it->get<int>();
    record.messages = field<std::string>(document, "messages", "");
    for (const json& node : document.at("nodes"))
      record.nodes.push_back(node_from(node));
    return record;
  } catch (const std::exception& e) {
    return make_error(fmt::format("{}: not a valid {} record: {}", path, kCollectSchema, e.what()));
  }
}

}  // namespace gpuvet::fleet
