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
#include <filesystem>
#include <map>
#include <mutex>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "platform/child_process.hpp"
#include "system/cpu_features.hpp"
#include "system/elf_reader.hpp"
#include "system/gpu_code_reader.hpp"
#include "system/ld_cache.hpp"
#include "system/live_common.hpp"
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

// The loader cache this System answers from, and the most of it that is read.
constexpr const char* kLdCachePath = "/etc/ld.so.cache";
constexpr size_t kMaxLdCacheBytes = size_t{64} << 20;

// An open file descriptor, closed when the object goes away.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Byte ranges of an open regular file through pread, so that reading the ELF headers of a
// multi-hundred-MB library costs a few small reads.
class PreadByteSource final : public PositionedByteSource {
 public:
  PreadByteSource(int fd, std::uint64_t size) : PositionedByteSource(size), fd_(fd) {}

 private:
  std::size_t read_some(std::uint64_t offset, std::size_t length, char* out) const override {
    while (true) {
      const ssize_t n = pread(fd_, out, length, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      return n > 0 ? static_cast<std::size_t>(n) : 0;
    }
  }

  int fd_;
};

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
    std::error_code error;
    const auto cwd = std::filesystem::current_path(error);
    if (!error) h.cwd = cwd.string();
    h.cpu = live_cpu_features();
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0 && name[0] != '\0') h.hostname = name;
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
    return file_info_cache_.get(path, [&path] { return ask_file_info(path); });
  }

  static std::optional<FileInfo> ask_file_info(const std::string& path) {
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
    // Device nodes: the CUDA driver opens /dev/nvidia* read-write; access() asks with this
    // process's real IDs, which is what a user's framework would run with.
    if (S_ISCHR(target_stat.st_mode)) info.read_write = access(path.c_str(), R_OK | W_OK) == 0;
    if (info.kind == FileKind::regular) info.size = static_cast<std::uint64_t>(target_stat.st_size);
    return info;
  }

  std::optional<std::vector<DirEntry>> list_dir(const std::string& path) const override {
    return listing_cache_.get(path, [this, &path] { return ask_list_dir(path); });
  }

  std::optional<std::vector<DirEntry>> ask_list_dir(const std::string& path) const {
    DIR* dir = opendir(path.c_str());
    if (!dir) return std::nullopt;
    std::vector<DirEntry> entries;
    while (const dirent* d = readdir(dir)) {
      const std::string name = d->d_name;
      if (name == "." || name == "..") continue;
      // The directory entry's own type spares a stat per entry (site-packages hold thousands);
      // links and file systems that do not fill d_type get one.
      if (d->d_type == DT_REG || d->d_type == DT_DIR) {
        entries.push_back({name, d->d_type == DT_DIR ? FileKind::directory : FileKind::regular});
        continue;
      }
      // A link (d_type says so) costs one stat of its target, relative to the open directory.
      DirEntry entry{name, FileKind::other, d->d_type == DT_LNK};
      struct stat s {};
      if (d->d_type != DT_LNK) {
        if (fstatat(dirfd(dir), d->d_name, &s, AT_SYMLINK_NOFOLLOW) != 0) continue;
        entry.kind = kind_of(s.st_mode);
        entry.is_link = S_ISLNK(s.st_mode);
      }
      if (entry.is_link) {
        entry.kind =
            fstatat(dirfd(dir), d->d_name, &s, 0) == 0 ? kind_of(s.st_mode) : FileKind::other;
      }
      entries.push_back(std::move(entry));
    }
    closedir(dir);
    std::sort(entries.begin(), entries.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    return entries;
  }

  Result<std::string> read_text(const std::string& path) const override {
    return whole_text(path, read_prefix(path, kMaxTextBytes + 1));
  }

  Result<std::string> read_head(const std::string& path, size_t max_bytes) const override {
    return read_prefix(path, std::min(max_bytes, kMaxTextBytes));
  }

  // The first `limit` bytes of a regular file. O_NONBLOCK and the regular-file check so that a
  // FIFO or device node can never block a probe.
  static Result<std::string> read_prefix(const std::string& path, size_t limit) {
    const FileDescriptor fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) return make_error(error_text(path));
    struct stat s {};
    if (fstat(fd.get(), &s) != 0 || !S_ISREG(s.st_mode)) {
      return not_a_regular_file(path);
    }
    std::string content;
    char buffer[16384];
    while (content.size() < limit) {
      const ssize_t n = read(fd.get(), buffer, std::min(sizeof buffer, limit - content.size()));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return make_error(error_text(path));
      if (n == 0) break;
      content.append(buffer, static_cast<size_t>(n));
    }
    return content;
  }

  // A reader of binary headers (ELF, fat binaries) over a regular file read at offsets; errors
  // name the file. O_NONBLOCK and the regular-file check for the same reasons as read_text.
  template <typename Answer>
  static Result<Answer> read_binary(const std::string& path,
                                    Result<Answer> (*reader)(const ByteSource&)) {
    const FileDescriptor fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) return make_error(error_text(path));
    struct stat s {};
    if (fstat(fd.get(), &s) != 0 || !S_ISREG(s.st_mode)) {
      return not_a_regular_file(path);
    }
    const PreadByteSource source(fd.get(), static_cast<std::uint64_t>(s.st_size));
    auto answer = reader(source);
    if (!answer) return unreadable_binary(answer.error(), path);
    return answer;
  }

  Result<ElfInfo> elf_info(const std::string& path) const override {
    return read_binary(path, read_elf_dynamic);
  }

  Result<GpuCode> gpu_code(const std::string& path) const override {
    return read_binary(path, read_gpu_code);
  }

  Result<PeVersion> pe_version(const std::string& path) const override {
    return make_error(fmt::format("{}: reading PE version resources is not supported yet", path));
  }

  // No registry on POSIX.
  std::optional<RegistryValues> registry_values(const std::string&) const override {
    return std::nullopt;
  }
  std::vector<std::string> registry_subkeys(const std::string&) const override { return {}; }

  // Answers from /etc/ld.so.cache, read and parsed once on first use. No cache file, one that
  // does not parse, or an architecture whose loader flags are not known: no usable cache.
  std::optional<std::vector<std::string>> ld_cache_lookup(
      const std::string& soname) const override {
    std::call_once(ld_cache_once_, [this] {
      const auto flags = native_ld_cache_flags();
      if (!flags) return;
      auto bytes = paths::read_file(kLdCachePath, kMaxLdCacheBytes);
      if (!bytes) return;
      auto cache = parse_ld_cache(*bytes);
      if (!cache) return;
      ld_cache_ = std::move(*cache);
      ld_cache_flags_ = *flags;
    });
    if (!ld_cache_) return std::nullopt;
    return sys::ld_cache_lookup(*ld_cache_, soname, ld_cache_flags_);
  }

  // Native GPU answers come from a child process (gpu/native_query.hpp), asked once.
  std::optional<DriverAnswer> driver() const override { return native_.driver(); }
  std::optional<std::vector<GpuAnswer>> gpus() const override { return native_.gpus(); }
  // Only regular, executable files are run, with no input and a deadline.
  std::optional<ProgramOutput> run_program(const std::string& program,
                                           const std::vector<std::string>& args) const override {
    if (access(program.c_str(), X_OK) != 0) return std::nullopt;
    const auto info = file_info(program);
    if (!info || info->kind != FileKind::regular) return std::nullopt;
    return program_output(platform::run_child(program, args, kProgramTimeout, kMaxProgramOutput));
  }

  // SetupAPI display adapters exist on Windows only.
  std::optional<std::vector<DisplayAdapter>> display_adapters() const override {
    return std::nullopt;
  }
  std::optional<LoadAnswer> load(const std::string& library) const override {
    return native_.load(library);
  }

  explicit LivePosixSystem(const LiveOptions& options) : native_(options) {}

 private:
  NativeAnswerCache native_;
  FileInfoCache file_info_cache_;
  DirListingCache listing_cache_;
  mutable std::once_flag ld_cache_once_;
  mutable std::optional<LdCache> ld_cache_;
  mutable std::int32_t ld_cache_flags_ = 0;

  static std::optional<std::string> read_link(const std::string& path) {
    std::string target(4096, '\0');
    const ssize_t n = readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return std::nullopt;
    target.resize(static_cast<size_t>(n));
    return target;
  }
};

}  // namespace

std::unique_ptr<System> make_live_system(const LiveOptions& options) {
  return std::make_unique<LivePosixSystem>(options);
}

}  // namespace gpuvet::sys
