#include "system/replay_system.hpp"

#include <fmt/format.h>

#include <set>

#include "core/paths.hpp"
#include "core/text.hpp"

namespace gpuvet::sys {

namespace {
// Like the kernel's limit on symbolic links followed in one lookup (MAXSYMLINKS = 40).
constexpr int kMaxLinkDepth = 40;

std::string collapse_dots(const std::string& path) {
  std::vector<std::string> kept;
  const bool absolute = !path.empty() && path[0] == '/';
  for (const auto& part : text::split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == ".." && !kept.empty() && kept.back() != "..") {
      kept.pop_back();
    } else if (part != ".." || !absolute) {
      kept.push_back(part);
    }
  }
  std::string out = absolute ? "/" : "";
  out += text::join(kept, "/");
  return out;
}

std::string prefix_of(const std::string& key) {
  return key.ends_with('/') ? key : key + "/";
}

}  // namespace

ReplaySystem::ReplaySystem(Snapshot snapshot) : snapshot_(std::move(snapshot)) {
  windows_ = snapshot_.host.os == "windows";
  for (const auto& [path, entry] : snapshot_.files) {
    files_[key_of(path)] = IndexedFile{paths::normalize(path), &entry};
  }
  for (const auto& [key, values] : snapshot_.registry) {
    registry_keys_[text::to_lower(paths::normalize(key))] = key;
  }
}

std::string ReplaySystem::key_of(std::string_view path) const {
  return paths::comparison_key(path, windows_);
}

const FileEntry* ReplaySystem::find(const std::string& key) const {
  const auto it = files_.find(key);
  return it == files_.end() ? nullptr : it->second.entry;
}

bool ReplaySystem::has_children(const std::string& key) const {
  const std::string prefix = prefix_of(key);
  const auto it = files_.lower_bound(prefix);
  return it != files_.end() && it->first.starts_with(prefix);
}

std::optional<ReplaySystem::Located> ReplaySystem::locate(const std::string& key, int depth) const {
  if (const FileEntry* entry = find(key)) return Located{key, entry};
  if (has_children(key)) return Located{key, nullptr};
  if (depth >= kMaxLinkDepth) return std::nullopt;
  // Not recorded under this spelling: follow a symbolic link in one of its directories.
  for (std::string dir = paths::parent(key); !dir.empty(); dir = paths::parent(dir)) {
    const FileEntry* entry = find(dir);
    if (entry && entry->link) {
      const std::string target = paths::is_absolute(*entry->link)
                                     ? *entry->link
                                     : paths::join(paths::parent(dir), *entry->link);
      const std::string rest = key.substr(dir.size());
      return locate(key_of(collapse_dots(paths::normalize(target) + rest)), depth + 1);
    }
    if (dir == paths::parent(dir)) break;
  }
  return std::nullopt;
}

std::optional<ReplaySystem::Located> ReplaySystem::follow(const Located& found, int depth) const {
  if (!found.entry || !found.entry->link) return found;
  if (depth >= kMaxLinkDepth) return std::nullopt;
  const std::string& link = *found.entry->link;
  const std::string target =
      paths::is_absolute(link) ? link : paths::join(paths::parent(found.key), link);
  auto next = locate(key_of(collapse_dots(paths::normalize(target))), depth + 1);
  if (!next) return std::nullopt;
  return follow(*next, depth + 1);
}

std::optional<ReplaySystem::Located> ReplaySystem::locate_with(
    const std::string& path, bool (*has_data)(const FileEntry&)) const {
  const auto found = locate(key_of(path), 0);
  if (!found) return std::nullopt;
  // What was recorded under the path as asked wins; otherwise the link's target answers.
  if (found->entry && has_data(*found->entry)) return found;
  return follow(*found, 0);
}

std::optional<FileInfo> ReplaySystem::info_of(const Located& found, int depth) const {
  FileInfo info;
  const FileEntry* e = found.entry;
  if (!e) {
    info.kind = FileKind::directory;
    return info;
  }
  info.link_target = e->link;
  const bool kind_recorded =
      e->dir || e->other || e->size || e->text || e->pe || e->elf || e->gpu_code;
  if (e->link && !kind_recorded) {
    // Only the link was recorded; its target says what it is.
    auto target = follow(found, depth);
    if (!target) return std::nullopt;
    auto target_info = info_of(*target, depth + 1);
    if (!target_info) return std::nullopt;
    target_info->link_target = e->link;
    return target_info;
  }
  if (e->dir || has_children(found.key)) {
    info.kind = FileKind::directory;
  } else if (e->other) {
    info.kind = FileKind::other;
    info.read_write = e->read_write;
  } else {
    info.kind = FileKind::regular;
    info.size = e->size ? e->size
                        : (e->text ? std::optional<std::uint64_t>(e->text->size()) : std::nullopt);
  }
  return info;
}

std::optional<std::string> ReplaySystem::env(std::string_view name) const {
  if (const auto it = snapshot_.env.find(std::string(name)); it != snapshot_.env.end()) {
    return it->second;
  }
  if (windows_) {
    for (const auto& [key, value] : snapshot_.env) {
      if (text::to_lower(key) == text::to_lower(name)) return value;
    }
  }
  return std::nullopt;
}

std::optional<FileInfo> ReplaySystem::file_info(const std::string& path) const {
  const auto found = locate(key_of(path), 0);
  if (!found) return std::nullopt;
  return info_of(*found, 0);
}

std::optional<std::vector<DirEntry>> ReplaySystem::list_dir(const std::string& path) const {
  const auto asked = locate(key_of(path), 0);
  if (!asked) return std::nullopt;
  const auto target = follow(*asked, 0);
  if (!target) return std::nullopt;
  const auto info = info_of(*target, 0);
  if (!info || info->kind != FileKind::directory) return std::nullopt;

  // Children may be recorded under the path as asked and under the link's target.
  std::map<std::string, DirEntry> children;
  for (const std::string& key : {asked->key, target->key}) {
    const std::string prefix = prefix_of(key);
    for (auto it = files_.lower_bound(prefix); it != files_.end() && it->first.starts_with(prefix);
         ++it) {
      const std::string rest = it->first.substr(prefix.size());
      const std::string child_key = prefix + rest.substr(0, rest.find('/'));
      const std::string child_name = rest.substr(0, rest.find('/'));
      if (children.contains(child_name)) continue;
      const auto child = locate(child_key, 0);
      const auto child_info = child ? info_of(*child, 0) : std::nullopt;
      // The child's own spelling, as the snapshot has it (keys differ from it only in case).
      const std::string& spelled = it->second.path;
      DirEntry entry;
      entry.name = spelled.size() == it->first.size()
                       ? spelled.substr(prefix.size(), child_name.size())
                       : child_name;
      entry.kind = child_info ? child_info->kind : FileKind::other;
      entry.is_link = child && child->entry && child->entry->link;
      children.emplace(child_name, entry);
    }
  }
  std::vector<DirEntry> entries;
  for (auto& [key, entry] : children)
    entries.push_back(std::move(entry));
  return entries;
}

Result<std::string> ReplaySystem::read_text(const std::string& path) const {
  auto found = locate_with(path, [](const FileEntry& e) { return e.text || e.error; });
  if (!found) return make_error(fmt::format("{}: No such file or directory", path));
  const FileEntry* e = found->entry;
  if (!e || e->dir) return make_error(fmt::format("{}: is a directory", path));
  if (e->text && e->head) {
    return make_error(fmt::format("{}: only the beginning is recorded in the snapshot", path));
  }
  if (e->text) return *e->text;
  if (e->error) return make_error(*e->error);
  return make_error(fmt::format("{}: contents not recorded in the snapshot", path));
}

Result<std::string> ReplaySystem::read_head(const std::string& path, size_t max_bytes) const {
  auto found = locate_with(path, [](const FileEntry& e) { return e.text || e.error; });
  if (!found) return make_error(fmt::format("{}: No such file or directory", path));
  const FileEntry* e = found->entry;
  if (!e || e->dir) return make_error(fmt::format("{}: is a directory", path));
  if (e->text) return e->text->substr(0, std::min(max_bytes, kMaxTextBytes));
  if (e->error) return make_error(*e->error);
  return make_error(fmt::format("{}: contents not recorded in the snapshot", path));
}

Result<ElfInfo> ReplaySystem::elf_info(const std::string& path) const {
  auto found = locate_with(path, [](const FileEntry& e) { return e.elf.has_value(); });
  if (!found || !found->entry) return make_error(fmt::format("{}: No such file", path));
  if (!found->entry->elf) return make_error(fmt::format("{}: no ELF facts in the snapshot", path));
  return *found->entry->elf;
}

Result<GpuCode> ReplaySystem::gpu_code(const std::string& path) const {
  auto found = locate_with(path, [](const FileEntry& e) {
    return e.gpu_code.has_value() || e.gpu_code_error.has_value();
  });
  if (!found || !found->entry) return make_error(fmt::format("{}: No such file", path));
  if (found->entry->gpu_code_error) return make_error(*found->entry->gpu_code_error);
  if (!found->entry->gpu_code) {
    return make_error(fmt::format("{}: no GPU code facts in the snapshot", path));
  }
  return *found->entry->gpu_code;
}

Result<PeVersion> ReplaySystem::pe_version(const std::string& path) const {
  auto found = locate_with(path, [](const FileEntry& e) { return e.pe.has_value(); });
  if (!found || !found->entry) return make_error(fmt::format("{}: No such file", path));
  if (!found->entry->pe) {
    return make_error(fmt::format("{}: no version resource in the snapshot", path));
  }
  return *found->entry->pe;
}

std::optional<RegistryValues> ReplaySystem::registry_values(const std::string& key) const {
  const auto it = registry_keys_.find(text::to_lower(paths::normalize(key)));
  if (it == registry_keys_.end()) return std::nullopt;
  return snapshot_.registry.at(it->second);
}

std::vector<std::string> ReplaySystem::registry_subkeys(const std::string& key) const {
  const std::string prefix = text::to_lower(paths::normalize(key)) + "/";
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (auto it = registry_keys_.lower_bound(prefix);
       it != registry_keys_.end() && it->first.starts_with(prefix); ++it) {
    const std::string spelled = paths::normalize(it->second).substr(prefix.size());
    const std::string name = spelled.substr(0, spelled.find('/'));
    if (seen.insert(text::to_lower(name)).second) names.push_back(name);
  }
  return names;
}

std::optional<std::vector<std::string>> ReplaySystem::ld_cache_lookup(
    const std::string& soname) const {
  if (snapshot_.host.os != "linux") return std::nullopt;
  const auto it = snapshot_.ld_cache.find(soname);
  if (it == snapshot_.ld_cache.end()) return std::vector<std::string>{};
  return it->second;
}

std::optional<ProgramOutput> ReplaySystem::run_program(const std::string& program,
                                                       const std::vector<std::string>& args) const {
  const auto it = snapshot_.programs.find(program_key(program, args));
  if (it == snapshot_.programs.end()) return std::nullopt;
  return it->second;
}

std::optional<LoadAnswer> ReplaySystem::load(const std::string& library) const {
  const auto it = snapshot_.loads.find(library);
  if (it == snapshot_.loads.end()) return std::nullopt;
  return it->second;
}

}  // namespace gpuvet::sys
