#include "system/snapshot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "facts/json_fields.hpp"

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
}

namespace {

// ---- writing -------------------------------------------------------------------------------

template <typename T>
void put(json& object, const char* key, const std::optional<T>& value) {
  if (value) object[key] = *value;
}

json to_json(const HostInfo& h) {
  json j = {{"os", h.os}, {"wsl", h.wsl}, {"remote_session", h.remote_session}};
  put(j, "os_name", h.os_name);
  put(j, "os_version", h.os_version);
  put(j, "os_release", h.os_release);
  put(j, "arch", h.arch);
  put(j, "cwd", h.cwd);
  j["container"] = h.container ? json(*h.container) : json(nullptr);
  if (h.cpu) j["cpu"] = {{"vendor", h.cpu->vendor}, {"usable", h.cpu->usable}};
  return j;
}

json to_json(const ElfInfo& e) {
  json j = json::object();
  put(j, "bits", e.bits);
  put(j, "machine", e.machine);
  put(j, "soname", e.soname);
  if (!e.needed.empty()) j["needed"] = e.needed;
  if (!e.runpath.empty()) j["runpath"] = e.runpath;
  if (!e.rpath.empty()) j["rpath"] = e.rpath;
  return j;
}

json to_json(const PeVersion& p) {
  json j = json::object();
  put(j, "file_version", p.file_version);
  put(j, "product_version", p.product_version);
  return j;
}

json to_json(const FileEntry& f) {
  json j = json::object();
  if (f.dir) j["dir"] = true;
  if (f.other) j["other"] = true;
  put(j, "size", f.size);
  put(j, "link", f.link);
  put(j, "text", f.text);
  if (f.head) j["head"] = true;
  put(j, "error", f.error);
  put(j, "read_write", f.read_write);
  if (f.pe) j["pe"] = to_json(*f.pe);
  if (f.elf) j["elf"] = to_json(*f.elf);
  return j;
}

json to_json(const RegistryValues& values) {
  json j = json::object();
  for (const auto& [name, value] : values) {
    std::visit([&](const auto& v) { j[name] = v; }, value);
  }
  return j;
}

json to_json(const DriverAnswer& d) {
  json j = {{"installed", d.installed}};
  j["version"] = d.version ? json(*d.version) : json(nullptr);
  j["cuda_driver_version"] = d.cuda_driver_version ? json(*d.cuda_driver_version) : json(nullptr);
  j["error"] = d.error ? json(*d.error) : json(nullptr);
  return j;
}

json to_json(const GpuAnswer& g) {
  return fields_to_json<json>(g, Absent::omitted);
}

json to_json(const DisplayAdapter& a) {
  json j = json::object();
  put(j, "name", a.name);
  put(j, "provider", a.provider);
  put(j, "driver_version", a.driver_version);
  put(j, "pnp_id", a.pnp_id);
  return j;
}

json to_json(const ProgramOutput& p) {
  json j = {{"output", p.output}};
  j["exit"] = p.exit_code ? json(*p.exit_code) : json(nullptr);
  put(j, "error", p.error);
  return j;
}

json to_json(const LoadAnswer& l) {
  json j = {{"ok", l.ok}};
  put(j, "path", l.path);
  put(j, "version", l.version);
  put(j, "error", l.error);
  put(j, "init_code", l.init_code);
  return j;
}

// ---- reading -------------------------------------------------------------------------------
// Exceptions stay inside this parser; snapshot_from_json turns them into an Error.

struct BadField : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string child(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw BadField(fmt::format("{}: {}", where.empty() ? "document" : where, what));
}

const json& expect_object(const json& j, const std::string& where) {
  if (!j.is_object()) fail(where, "expected an object");
  return j;
}

const json& expect_array(const json& j, const std::string& where) {
  if (!j.is_array()) fail(where, "expected an array");
  return j;
}

std::string get_string(const json& j, const std::string& where) {
  if (!j.is_string()) fail(where, "expected a string");
  return j.get<std::string>();
}

bool get_bool(const json& j, const std::string& where) {
  if (!j.is_boolean()) fail(where, "expected true or false");
  return j.get<bool>();
}

std::int64_t get_int(const json& j, const std::string& where) {
  if (!j.is_number_integer()) fail(where, "expected an integer");
  return j.get<std::int64_t>();
}

std::uint64_t get_size(const json& j, const std::string& where) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (!j.is_number_integer() || j.get<std::int64_t>() < 0) {
    fail(where, "expected a non-negative integer");
  }
  return static_cast<std::uint64_t>(j.get<std::int64_t>());
}

// A member that may be absent or null.
const json* member(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::string> opt_string(const json& object, const char* key,
                                      const std::string& where) {
  const json* m = member(object, key);
  if (!m) return std::nullopt;
  return get_string(*m, child(where, key));
}

std::optional<int> opt_small_int(const json& object, const char* key, const std::string& where) {
  const json* m = member(object, key);
  if (!m) return std::nullopt;
  const std::int64_t value = get_int(*m, child(where, key));
  if (value < 0 || value > 65535) fail(child(where, key), "out of range");
  return static_cast<int>(value);
}

bool opt_bool(const json& object, const char* key, const std::string& where) {
  const json* m = member(object, key);
  return m ? get_bool(*m, child(where, key)) : false;
}

std::vector<std::string> string_list(const json& object, const char* key,
                                     const std::string& where) {
  std::vector<std::string> out;
  const json* m = member(object, key);
  if (!m) return out;
  const std::string here = child(where, key);
  expect_array(*m, here);
  for (size_t i = 0; i < m->size(); ++i) {
    out.push_back(get_string((*m)[i], fmt::format("{}[{}]", here, i)));
  }
  return out;
}

HostInfo host_from(const json& j, const std::string& where) {
  expect_object(j, where);
  HostInfo h;
  const json* os = member(j, "os");
  if (!os) fail(where, "missing \"os\"");
  h.os = get_string(*os, child(where, "os"));
  if (h.os != "linux" && h.os != "windows") fail(child(where, "os"), "must be linux or windows");
  h.os_name = opt_string(j, "os_name", where);
  h.os_version = opt_string(j, "os_version", where);
  h.os_release = opt_string(j, "os_release", where);
  h.arch = opt_string(j, "arch", where);
  h.wsl = opt_bool(j, "wsl", where);
  h.container = opt_string(j, "container", where);
  h.remote_session = opt_bool(j, "remote_session", where);
  h.cwd = opt_string(j, "cwd", where);
  if (const json* cpu = member(j, "cpu")) {
    const std::string here = child(where, "cpu");
    expect_object(*cpu, here);
    h.cpu = CpuFeatures{opt_string(*cpu, "vendor", here).value_or(""),
                        string_list(*cpu, "usable", here)};
    std::sort(h.cpu->usable.begin(), h.cpu->usable.end());
  }
  return h;
}

FileEntry file_from(const json& j, const std::string& where) {
  expect_object(j, where);
  FileEntry f;
  f.dir = opt_bool(j, "dir", where);
  f.other = opt_bool(j, "other", where);
  if (const json* m = member(j, "size")) f.size = get_size(*m, child(where, "size"));
  f.link = opt_string(j, "link", where);
  f.text = opt_string(j, "text", where);
  f.head = opt_bool(j, "head", where);
  f.error = opt_string(j, "error", where);
  if (const json* m = member(j, "read_write"))
    f.read_write = get_bool(*m, child(where, "read_write"));
  if (const json* m = member(j, "pe")) {
    const std::string here = child(where, "pe");
    expect_object(*m, here);
    f.pe = PeVersion{opt_string(*m, "file_version", here), opt_string(*m, "product_version", here)};
  }
  if (const json* m = member(j, "elf")) {
    const std::string here = child(where, "elf");
    expect_object(*m, here);
    f.elf = ElfInfo{opt_small_int(*m, "bits", here),  opt_small_int(*m, "machine", here),
                    opt_string(*m, "soname", here),   string_list(*m, "needed", here),
                    string_list(*m, "runpath", here), string_list(*m, "rpath", here)};
  }
  return f;
}

RegistryValues registry_from(const json& j, const std::string& where) {
  expect_object(j, where);
  RegistryValues values;
  for (const auto& [name, value] : j.items()) {
    if (value.is_string()) {
      values[name] = value.get<std::string>();
    } else if (value.is_number_integer()) {
      values[name] = value.get<std::int64_t>();
    } else {
      fail(child(where, name), "expected a string or an integer");
    }
  }
  return values;
}

DriverAnswer driver_from(const json& j, const std::string& where) {
  expect_object(j, where);
  DriverAnswer d;
  d.installed = opt_bool(j, "installed", where);
  d.version = opt_string(j, "version", where);
  d.cuda_driver_version = opt_string(j, "cuda_driver_version", where);
  d.error = opt_string(j, "error", where);
  return d;
}

// The int fields are indexes (GpuFact::index): required, and within what a machine can hold.
void read_field(const json& j, const char* key, const std::string& where, int& value) {
  const json* found = member(j, key);
  if (!found) fail(where, fmt::format("missing \"{}\"", key));
  const std::int64_t i = get_int(*found, child(where, key));
  if (i < 0 || i > 4096) fail(child(where, key), "out of range");
  value = static_cast<int>(i);
}

void read_field(const json& j, const char* key, const std::string& where,
                std::optional<std::string>& value) {
  value = opt_string(j, key, where);
}

void read_field(const json& j, const char* key, const std::string& where,
                std::optional<std::int64_t>& value) {
  if (const json* found = member(j, key)) value = get_int(*found, child(where, key));
}

GpuAnswer gpu_from(const json& j, const std::string& where) {
  expect_object(j, where);
  GpuAnswer g;
  for_each_json_field(g, [&](const char* key, auto& field) { read_field(j, key, where, field); });
  return g;
}

DisplayAdapter adapter_from(const json& j, const std::string& where) {
  expect_object(j, where);
  return DisplayAdapter{opt_string(j, "name", where), opt_string(j, "provider", where),
                        opt_string(j, "driver_version", where), opt_string(j, "pnp_id", where)};
}

LoadAnswer load_from(const json& j, const std::string& where) {
  expect_object(j, where);
  LoadAnswer l{opt_bool(j, "ok", where), opt_string(j, "path", where),
               opt_string(j, "version", where), opt_string(j, "error", where), std::nullopt};
  if (const json* m = member(j, "init_code")) {
    const std::int64_t code = get_int(*m, child(where, "init_code"));
    if (code < INT32_MIN || code > INT32_MAX) fail(child(where, "init_code"), "out of range");
    l.init_code = static_cast<int>(code);
  }
  return l;
}

ProgramOutput program_from(const json& j, const std::string& where) {
  expect_object(j, where);
  ProgramOutput p;
  p.output = opt_string(j, "output", where).value_or("");
  if (const json* m = member(j, "exit")) {
    const std::int64_t code = get_int(*m, child(where, "exit"));
    if (code < 0 || code > 255) fail(child(where, "exit"), "out of range");
    p.exit_code = static_cast<int>(code);
  }
  p.error = opt_string(j, "error", where);
  return p;
}

template <typename T, typename F>
std::vector<T> list_from(const json& j, const std::string& where, F parse_one) {
  expect_array(j, where);
  std::vector<T> out;
  for (size_t i = 0; i < j.size(); ++i)
    out.push_back(parse_one(j[i], fmt::format("{}[{}]", where, i)));
  return out;
}

Snapshot snapshot_from(const json& j) {
  expect_object(j, "");
  const json* schema = member(j, "schema");
  if (!schema) fail("", "no \"schema\" field: not a gpuvet snapshot");
  const std::string name = get_string(*schema, "schema");
  if (name != kSnapshotSchema) {
    fail("schema",
         fmt::format("unsupported schema \"{}\" (this gpuvet reads {})", name, kSnapshotSchema));
  }
  Snapshot s;
  s.taken_at = opt_string(j, "taken_at", "").value_or("");
  const json* host = member(j, "host");
  if (!host) fail("", "missing \"host\"");
  s.host = host_from(*host, "host");
  if (const json* env = member(j, "env")) {
    for (const auto& [key, value] : expect_object(*env, "env").items()) {
      s.env[key] = get_string(value, child("env", key));
    }
  }
  if (const json* files = member(j, "files")) {
    for (const auto& [key, value] : expect_object(*files, "files").items()) {
      if (key.empty()) fail("files", "empty path");
      s.files[key] = file_from(value, child("files", key));
    }
  }
  if (const json* registry = member(j, "registry")) {
    for (const auto& [key, value] : expect_object(*registry, "registry").items()) {
      s.registry[key] = registry_from(value, child("registry", key));
    }
  }
  if (const json* cache = member(j, "ld_cache")) {
    for (const auto& [key, value] : expect_object(*cache, "ld_cache").items()) {
      s.ld_cache[key] = list_from<std::string>(value, child("ld_cache", key), get_string);
    }
  }
  if (const json* d = member(j, "driver")) s.driver = driver_from(*d, "driver");
  if (const json* g = member(j, "gpus")) s.gpus = list_from<GpuAnswer>(*g, "gpus", gpu_from);
  if (const json* a = member(j, "display_adapters")) {
    s.display_adapters = list_from<DisplayAdapter>(*a, "display_adapters", adapter_from);
  }
  if (const json* loads = member(j, "loads")) {
    for (const auto& [key, value] : expect_object(*loads, "loads").items()) {
      s.loads[key] = load_from(value, child("loads", key));
    }
  }
  if (const json* programs = member(j, "programs")) {
    for (const auto& [key, value] : expect_object(*programs, "programs").items()) {
      s.programs[key] = program_from(value, child("programs", key));
    }
  }
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
  json j = {{"schema", kSnapshotSchema}, {"taken_at", s.taken_at}, {"host", to_json(s.host)}};
  j["env"] = s.env;
  json files = json::object();
  for (const auto& [path, entry] : s.files)
    files[path] = to_json(entry);
  j["files"] = files;
  json registry = json::object();
  for (const auto& [key, values] : s.registry)
    registry[key] = to_json(values);
  j["registry"] = registry;
  j["ld_cache"] = s.ld_cache;
  j["driver"] = s.driver ? to_json(*s.driver) : json(nullptr);
  if (s.gpus) {
    json gpus = json::array();
    for (const auto& g : *s.gpus)
      gpus.push_back(to_json(g));
    j["gpus"] = gpus;
  } else {
    j["gpus"] = nullptr;
  }
  if (s.display_adapters) {
    json adapters = json::array();
    for (const auto& a : *s.display_adapters)
      adapters.push_back(to_json(a));
    j["display_adapters"] = adapters;
  } else {
    j["display_adapters"] = nullptr;
  }
  json loads = json::object();
  for (const auto& [name, answer] : s.loads)
    loads[name] = to_json(answer);
  j["loads"] = loads;
  json programs = json::object();
  for (const auto& [key, output] : s.programs)
    programs[key] = to_json(output);
  j["programs"] = programs;
  return j;
}

Result<Snapshot> snapshot_from_json(const json& document) {
  try {
    return snapshot_from(document);
  } catch (const BadField& e) {
    return make_error(e.what());
  } catch (const json::exception& e) {
    return make_error(fmt::format("unexpected JSON content ({})", e.what()));
  }
}

}  // namespace gpuvet::sys
