#include "fix/journal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/c_file.hpp"
#include "core/new_file.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "kb/messages.hpp"

namespace gpuvet::fix {

namespace {

constexpr const char* kEntrySchema = "gpuvet.journal/1";
constexpr const char* kEntryFile = "entry.json";
constexpr size_t kMaxEntryBytes = size_t{16} << 20;

using json = nlohmann::ordered_json;

std::optional<std::string> value_of(const std::map<std::string, std::string>& env,
                                    const char* name) {
  const auto it = env.find(name);
  if (it == env.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

json checksum_json(const std::optional<Checksum>& sum) {
  if (!sum) return nullptr;
  return json{{"crc32", fmt::format("{:08x}", sum->crc32)}, {"size", sum->size}};
}

std::optional<Checksum> checksum_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  Checksum sum;
  sum.crc32 = static_cast<std::uint32_t>(std::stoul(j.at("crc32").get<std::string>(), nullptr, 16));
  sum.size = j.at("size").get<std::uint64_t>();
  return sum;
}

json registry_json(const std::optional<RegistryData>& value) {
  if (!value) return nullptr;
  return json{{"type", value->type}, {"data", value->data}};
}

std::optional<RegistryData> registry_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  return RegistryData{j.at("type").get<std::string>(), j.at("data").get<std::string>()};
}

std::optional<std::string> optional_text(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<std::string>();
}

json action_json(const JournalAction& a) {
  json j = {{"kind", std::string(to_string(a.kind))}, {"target", a.target}};
  if (!a.value_name.empty()) j["value_name"] = a.value_name;
  j["before"] = a.before;
  j["after"] = a.after;
  j["original"] = a.original ? json(*a.original) : json(nullptr);
  j["original_checksum"] = checksum_json(a.original_sum);
  j["result_checksum"] = checksum_json(a.result_sum);
  j["link_to"] = a.link_to ? json(*a.link_to) : json(nullptr);
  j["mode"] = a.mode ? json(fmt::format("{:04o}", *a.mode)) : json(nullptr);
  j["quarantine"] = a.quarantine ? json(*a.quarantine) : json(nullptr);
  j["old_value"] = registry_json(a.old_value);
  j["new_value"] = registry_json(a.new_value);
  j["done"] = a.done;
  return j;
}

// A path inside the entry must stay inside it: a journal edited by hand must not send undo to
// restore from, or move to, anywhere else.
std::optional<std::string> inner_path(const json& j, const char* key) {
  auto path = optional_text(j, key);
  if (!path) return path;
  bool outside = paths::is_absolute(*path) || path->find(':') != std::string::npos ||
                 path->find('\\') != std::string::npos;
  for (const auto& part : text::split(*path, '/'))
    outside = outside || part.empty() || part == "." || part == "..";
  if (outside) {
    throw std::runtime_error(fmt::format("{} \"{}\" lies outside the entry", key, *path));
  }
  return path;
}

JournalAction action_from(const json& j) {
  JournalAction a;
  const auto kind = action_kind_from_string(j.at("kind").get<std::string>());
  if (!kind) throw std::runtime_error("unknown action kind " + j.at("kind").dump());
  a.kind = *kind;
  a.target = j.at("target").get<std::string>();
  if (a.target.empty()) throw std::runtime_error("an action without a target");
  a.value_name = j.value("value_name", std::string());
  a.before = j.at("before").get<std::string>();
  a.after = j.at("after").get<std::string>();
  a.original = inner_path(j, "original");
  a.original_sum = checksum_from(j.at("original_checksum"));
  a.result_sum = checksum_from(j.at("result_checksum"));
  a.link_to = optional_text(j, "link_to");
  if (const auto mode = optional_text(j, "mode")) {
    a.mode = static_cast<std::uint32_t>(std::stoul(*mode, nullptr, 8) & 07777);
  }
  a.quarantine = inner_path(j, "quarantine");
  a.old_value = registry_from(j.at("old_value"));
  a.new_value = registry_from(j.at("new_value"));
  a.done = j.at("done").get<bool>();
  return a;
}

JournalEntry entry_from(const json& j) {
  if (j.value("schema", std::string()) != kEntrySchema) {
    throw std::runtime_error(fmt::format("not a {} entry", kEntrySchema));
  }
  JournalEntry e;
  e.id = j.at("id").get<std::string>();
  e.created = j.at("created").get<std::string>();
  e.tool = j.at("tool").get<std::string>();
  e.fixes = j.at("fixes").get<std::vector<std::string>>();
  for (const auto& action : j.at("actions"))
    e.actions.push_back(action_from(action));
  e.undone = optional_text(j, "undone");
  return e;
}

}  // namespace

std::optional<std::string> journal_directory(const std::map<std::string, std::string>& env,
                                             bool windows) {
  if (windows) {
    const auto local = value_of(env, "LOCALAPPDATA");
    if (!local) return std::nullopt;
    return paths::join(paths::normalize(*local), "gpuvet");
  }
  if (const auto state = value_of(env, "XDG_STATE_HOME"); state && paths::is_absolute(*state)) {
    return paths::join(paths::normalize(*state), "gpuvet");
  }
  const auto home = value_of(env, "HOME");
  if (!home) return std::nullopt;
  return paths::join(paths::normalize(*home), ".local/state/gpuvet");
}

std::string entry_directory(const std::string& journal, const std::string& id) {
  return paths::join(journal, id);
}

Result<JournalEntry> read_entry(const std::string& journal, const std::string& id) {
  const std::string file = paths::join(entry_directory(journal, id), kEntryFile);
  auto bytes = paths::read_file(file, kMaxEntryBytes);
  if (!bytes) return kb::within(bytes.error(), "fix.error.entry_unreadable", {{"id", id}});
  try {
    JournalEntry entry = entry_from(json::parse(*bytes));
    if (entry.id != id) throw std::runtime_error("its id says " + entry.id);
    return entry;
  } catch (const std::exception& e) {
    return kb::catalog_error("fix.error.entry_corrupt",
                             {{"id", id}, {"file", file}, {"reason", e.what()}});
  }
}

Result<bool> write_entry(const std::string& journal, const JournalEntry& entry) {
  json j = {{"schema", kEntrySchema}, {"id", entry.id},       {"created", entry.created},
            {"tool", entry.tool},     {"fixes", entry.fixes}, {"actions", json::array()}};
  for (const auto& action : entry.actions)
    j["actions"].push_back(action_json(action));
  j["undone"] = entry.undone ? json(*entry.undone) : json(nullptr);
  const std::string file = paths::join(entry_directory(journal, entry.id), kEntryFile);
  return write_new_file(file, j.dump(2) + "\n", true);
}

Result<std::vector<ListedEntry>> list_entries(const std::string& journal) {
  std::vector<ListedEntry> out;
  std::error_code error;
  const auto folder = paths::to_fs(journal);
  if (!std::filesystem::exists(folder, error)) return out;
  std::vector<std::string> ids;
  for (const auto& item : std::filesystem::directory_iterator(folder, error)) {
    std::error_code ignored;
    if (item.is_directory(ignored)) ids.push_back(paths::from_fs(item.path().filename()));
  }
  if (error) {
    return kb::within(filesystem_error(error), "fix.error.journal_unreadable",
                      {{"journal", journal}});
  }
  std::sort(ids.begin(), ids.end());
  for (const auto& id : ids)
    out.push_back({id, read_entry(journal, id)});
  return out;
}

std::string entry_id_for(const std::string& stamp) {
  std::string id;
  for (const char c : stamp) {
    if (c != '-' && c != ':') id.push_back(c);
  }
  return id;
}

}  // namespace gpuvet::fix
