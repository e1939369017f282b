#include "system/recording_system.hpp"

#include "core/paths.hpp"
#include "system/redact.hpp"

namespace gpuvet::sys {

namespace {
FileEntry entry_for(const FileInfo& info) {
  FileEntry e;
  e.dir = info.kind == FileKind::directory;
  e.other = info.kind == FileKind::other;
  e.size = info.size;
  e.link = info.link_target;
  e.read_write = info.read_write;
  return e;
}
}  // namespace

RecordingSystem::RecordingSystem(const System& inner) : inner_(inner) {
  recorded_.host = inner_.host();
}

Snapshot RecordingSystem::recorded() const {
  std::lock_guard lock(mutex_);
  return recorded_;
}

Snapshot RecordingSystem::redacted_snapshot(std::string taken_at) const {
  Snapshot s = recorded();
  s.env = redact::environment(s.env);
  s.taken_at = std::move(taken_at);
  return s;
}

void RecordingSystem::remember_file(const std::string& path, const FileEntry& entry) const {
  std::lock_guard lock(mutex_);
  recorded_.files[paths::normalize(path)].merge(entry);
}

HostInfo RecordingSystem::host() const {
  return inner_.host();
}

std::optional<std::string> RecordingSystem::env(std::string_view name) const {
  auto value = inner_.env(name);
  if (value) {
    std::lock_guard lock(mutex_);
    recorded_.env[std::string(name)] = *value;
  }
  return value;
}

std::map<std::string, std::string> RecordingSystem::environment() const {
  auto all = inner_.environment();
  std::lock_guard lock(mutex_);
  for (const auto& [name, value] : all)
    recorded_.env[name] = value;
  return all;
}

std::optional<FileInfo> RecordingSystem::file_info(const std::string& path) const {
  auto info = inner_.file_info(path);
  if (info) remember_file(path, entry_for(*info));
  return info;
}

std::optional<std::vector<DirEntry>> RecordingSystem::list_dir(const std::string& path) const {
  auto entries = inner_.list_dir(path);
  if (!entries) return entries;
  FileEntry directory;
  directory.dir = true;
  remember_file(path, directory);
  for (const auto& entry : *entries) {
    const std::string child = paths::join(path, entry.name);
    // A listing tells the kind of each child; its size or target is learnt when a probe asks.
    FileEntry e;
    e.dir = entry.kind == FileKind::directory;
    e.other = entry.kind == FileKind::other;
    if (entry.is_link) {
      if (auto info = inner_.file_info(child)) e = entry_for(*info);
    }
    remember_file(child, e);
  }
  return entries;
}

Result<std::string> RecordingSystem::read_text(const std::string& path) const {
  auto content = inner_.read_text(path);
  remember_read(path, content, false);
  return content;
}

Result<std::string> RecordingSystem::read_head(const std::string& path, size_t max_bytes) const {
  auto content = inner_.read_head(path, max_bytes);
  // Shorter than asked: that was the whole file.
  remember_read(path, content, content && content->size() >= max_bytes);
  return content;
}

void RecordingSystem::remember_read(const std::string& path, const Result<std::string>& content,
                                    bool head) const {
  if (content) {
    FileEntry e;
    e.text = *content;
    e.head = head;
    remember_file(path, e);
  } else if (auto info = inner_.file_info(path)) {
    // It exists but could not be read: keep that, it is a fact too (permissions, size).
    FileEntry e = entry_for(*info);
    e.error = content.error().message;
    remember_file(path, e);
  }
}

Result<ElfInfo> RecordingSystem::elf_info(const std::string& path) const {
  auto elf = inner_.elf_info(path);
  if (elf) {
    FileEntry e;
    e.elf = *elf;
    remember_file(path, e);
  }
  return elf;
}

Result<GpuCode> RecordingSystem::gpu_code(const std::string& path) const {
  auto code = inner_.gpu_code(path);
  if (code || inner_.file_info(path)) {
    FileEntry e;
    if (code)
      e.gpu_code = *code;
    else
      e.gpu_code_error = code.error().message;
    remember_file(path, e);
  }
  return code;
}

Result<PeVersion> RecordingSystem::pe_version(const std::string& path) const {
  auto pe = inner_.pe_version(path);
  if (pe) {
    FileEntry e;
    e.pe = *pe;
    remember_file(path, e);
  }
  return pe;
}

std::optional<RegistryValues> RecordingSystem::registry_values(const std::string& key) const {
  auto values = inner_.registry_values(key);
  if (values) {
    std::lock_guard lock(mutex_);
    recorded_.registry[key] = *values;
  }
  return values;
}

std::vector<std::string> RecordingSystem::registry_subkeys(const std::string& key) const {
  auto subkeys = inner_.registry_subkeys(key);
  std::lock_guard lock(mutex_);
  // A replay derives subkeys from the keys it holds, so each one is recorded as a key.
  for (const auto& name : subkeys)
    recorded_.registry.try_emplace(key + "/" + name);
  return subkeys;
}

std::optional<std::vector<std::string>> RecordingSystem::ld_cache_lookup(
    const std::string& soname) const {
  auto found = inner_.ld_cache_lookup(soname);
  if (found && !found->empty()) {
    std::lock_guard lock(mutex_);
    recorded_.ld_cache[soname] = *found;
  }
  return found;
}

std::optional<DriverAnswer> RecordingSystem::driver() const {
  auto answer = inner_.driver();
  std::lock_guard lock(mutex_);
  recorded_.driver = answer;
  return answer;
}

std::optional<std::vector<GpuAnswer>> RecordingSystem::gpus() const {
  auto answer = inner_.gpus();
  std::lock_guard lock(mutex_);
  recorded_.gpus = answer;
  return answer;
}

std::optional<std::vector<DisplayAdapter>> RecordingSystem::display_adapters() const {
  auto answer = inner_.display_adapters();
  std::lock_guard lock(mutex_);
  recorded_.display_adapters = answer;
  return answer;
}

std::optional<ProgramOutput> RecordingSystem::run_program(
    const std::string& program, const std::vector<std::string>& args) const {
  auto output = inner_.run_program(program, args);
  if (output) {
    std::lock_guard lock(mutex_);
    recorded_.programs[program_key(program, args)] = *output;
  }
  return output;
}

std::optional<LoadAnswer> RecordingSystem::load(const std::string& library) const {
  auto answer = inner_.load(library);
  if (answer) {
    std::lock_guard lock(mutex_);
    recorded_.loads[library] = *answer;
  }
  return answer;
}

}  // namespace gpuvet::sys
