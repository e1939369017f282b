// The live System on Linux and other POSIX systems. Read-only: nothing here writes or executes.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/text.hpp"
#include "system/paths.hpp"
#include "system/system.hpp"

extern char** environ;

namespace gpuvet::sys {

namespace {

std::string error_text(const std::string& path) {
  return fmt::format("{}: {}", path, std::strerror(errno));
}

FileKind kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return FileKind::directory;
  if (S_ISREG(mode)) return FileKind::regular;
  return FileKind::other;
}

class LivePosixSystem final : public System {
 public:
  HostInfo host() const override {
    HostInfo h;
    h.os = "linux";
    utsname u{};
    if (uname(&u) == 0) {
      h.os_name = u.sysname;
      h.os_version = u.release;
      h.arch = u.machine;
      // WSL2 kernels name themselves ("...-microsoft-standard-WSL2").
      h.wsl = text::contains_icase(u.release, "microsoft");
    }
    return h;
  }

  std::optional<std::string> env(std::string_view name) const override {
    const char* value = std::getenv(std::string(name).c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  }

  std::map<std::string, std::string> environment() const override {
    std::map<std::string, std::string> all;
    for (char** e = environ; e && *e; ++e) {
      const std::string_view entry(*e);
      const size_t eq = entry.find('=');
      if (eq == std::string_view::npos || eq == 0) continue;
      all.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    }
    return all;
  }

  std::optional<FileInfo> file_info(const std::string& path) const override {
    struct stat link_stat {};
    if (lstat(path.c_str(), &link_stat) != 0) return std::nullopt;
    FileInfo info;
    struct stat target_stat = link_stat;
    if (S_ISLNK(link_stat.st_mode)) {
      info.link_target = read_link(path);
      // A dangling link loads nothing and is treated as absent.
      if (stat(path.c_str(), &target_stat) != 0) return std::nullopt;
    }
    info.kind = kind_of(target_stat.st_mode);
    if (info.kind == FileKind::regular) info.size = static_cast<std::uint64_t>(target_stat.st_size);
    return info;
  }

  std::optional<std::vector<DirEntry>> list_dir(const std::string& path) const override {
    DIR* dir = opendir(path.c_str());
    if (!dir) return std::nullopt;
    std::vector<DirEntry> entries;
    while (const dirent* d = readdir(dir)) {
      const std::string name = d->d_name;
      if (name == "." || name == "..") continue;
      const std::string child = paths::join(path, name);
      struct stat s {};
      if (lstat(child.c_str(), &s) != 0) continue;
      DirEntry entry{name, kind_of(s.st_mode), S_ISLNK(s.st_mode)};
      if (entry.is_link) {
        struct stat target {};
        entry.kind = stat(child.c_str(), &target) == 0 ? kind_of(target.st_mode) : FileKind::other;
      }
      entries.push_back(std::move(entry));
    }
    closedir(dir);
    std::sort(entries.begin(), entries.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    return entries;
  }

  Result<std::string> read_text(const std::string& path) const override {
    // O_NONBLOCK so that a FIFO or device node can never block the probe.
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return make_error(error_text(path));
    struct stat s {};
    if (fstat(fd, &s) != 0 || !S_ISREG(s.st_mode)) {
      close(fd);
      return make_error(fmt::format("{}: not a regular file", path));
    }
    std::string content;
    char buffer[16384];
    while (true) {
      const ssize_t n = read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const auto error = make_error(error_text(path));
        close(fd);
        return error;
      }
      if (n == 0) break;
      content.append(buffer, static_cast<size_t>(n));
      if (content.size() > kMaxTextBytes) {
        close(fd);
        return make_error(fmt::format("{}: larger than {} bytes", path, kMaxTextBytes));
      }
    }
    close(fd);
    return content;
  }

  Result<ElfInfo> elf_info(const std::string& path) const override {
    return make_error(fmt::format("{}: reading ELF dynamic sections is not supported yet", path));
  }

  Result<PeVersion> pe_version(const std::string& path) const override {
    return make_error(fmt::format("{}: reading PE version resources is not supported yet", path));
  }

  // No registry on POSIX.
  std::optional<RegistryValues> registry_values(const std::string&) const override {
    return std::nullopt;
  }
  std::vector<std::string> registry_subkeys(const std::string&) const override { return {}; }

  // The ld.so.cache reader arrives with the library-resolution probe; until then the cache is
  // reported as not available rather than as empty.
  std::optional<std::vector<std::string>> ld_cache_lookup(const std::string&) const override {
    return std::nullopt;
  }

  // Native GPU queries run in a child process; they arrive with the GPU/driver probe. Until then
  // they answer "not asked".
  std::optional<DriverAnswer> driver() const override { return std::nullopt; }
  std::optional<std::vector<GpuAnswer>> gpus() const override { return std::nullopt; }
  std::optional<std::vector<DisplayAdapter>> display_adapters() const override {
    return std::nullopt;
  }
  std::optional<LoadAnswer> load(const std::string&) const override { return std::nullopt; }

 private:
  static std::optional<std::string> read_link(const std::string& path) {
    std::string target(4096, '\0');
    const ssize_t n = readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return std::nullopt;
    target.resize(static_cast<size_t>(n));
    return target;
  }
};

}  // namespace

std::unique_ptr<System> make_live_system() {
  return std::make_unique<LivePosixSystem>();
}

}  // namespace gpuvet::sys
