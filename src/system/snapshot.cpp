#include "system/snapshot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "system/snapshot_fields.hpp"

namespace gpuvet::sys {

using nlohmann::json;

void FileEntry::merge(const FileEntry& more) {
  dir = dir || more.dir;
  other = other || more.other;
  if (more.size) size = more.size;
  if (more.link) link = more.link;
  // A whole text beats a beginning; of two beginnings the longer one says more.
  if (more.text && (!more.head || !text || (head && more.text->size() > text->size()))) {
    text = more.text;
    head = more.head;
  }
  if (more.error) error = more.error;
  if (more.read_write) read_write = more.read_write;
  if (more.pe) pe = more.pe;
  if (more.elf) elf = more.elf;
  if (more.gpu_code) gpu_code = more.gpu_code;
  if (more.gpu_code_error) gpu_code_error = more.gpu_code_error;
}

namespace {

// What the fields cannot say: the values a snapshot must hold beyond their types.
void check_meaning(Snapshot& s) {
  if (s.host.os != "linux" && s.host.os != "windows") {
    fail_json_field("host.os", "must be linux or windows", "json.error.os");
  }
  if (s.host.cpu) std::sort(s.host.cpu->usable.begin(), s.host.cpu->usable.end());
  if (s.files.count("")) fail_json_field("files", "empty path", "json.error.empty_path");
}

Snapshot snapshot_from(const json& j) {
  if (!j.is_object()) fail_json_field("", "expected an object", "json.error.expected_object");
  const json* schema = json_member(j, "schema");
  if (!schema)
    fail_json_field("", "no \"schema\" field: not a gpuvet snapshot", "json.error.no_schema");
  if (!schema->is_string())
    fail_json_field("schema", "expected a string", "json.error.expected_string");
  const std::string name = schema->get<std::string>();
  if (name != kSnapshotSchema) {
    fail_json_field(
        "schema",
        fmt::format("unsupported schema \"{}\" (this gpuvet reads {})", name, kSnapshotSchema),
        "json.error.schema", {{"schema", name}, {"supported", kSnapshotSchema}});
  }
  Snapshot s = record_from_json<Snapshot>(j, "");
  check_meaning(s);
  return s;
}

}  // namespace

std::string program_key(const std::string& program, const std::vector<std::string>& args) {
  std::string key = program;
  for (const auto& arg : args)
    key += " " + arg;
  return key;
}

json snapshot_to_json(const Snapshot& s) {
  json j = fields_to_json<json>(s, Absent::omitted);
  j["schema"] = kSnapshotSchema;
  return j;
}

Result<Snapshot> snapshot_from_json(const json& document) {
  try {
    return snapshot_from(document);
  } catch (const JsonFieldError& e) {
    return keyed_error(e.what(), e.key, e.args);
  } catch (const json::exception& e) {
    return make_error(fmt::format("unexpected JSON content ({})", e.what()));
  }
}

}  // namespace gpuvet::sys
