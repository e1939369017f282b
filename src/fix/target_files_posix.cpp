#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "fix/target_files.hpp"

namespace gpuvet::fix {

namespace {

Error failure(const std::string& path, int error) {
  return Error{path + ": " + std::strerror(error)};
}

Result<bool> write_all(int fd, std::string_view bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failure(path, errno);
    done += static_cast<size_t>(n);
  }
  return true;
}

// A new file in the target's directory, so that rename() replaces the target in one step.
Result<std::string> write_temporary(const std::string& path, std::string_view bytes, mode_t mode) {
  std::random_device seed;
  const std::string temporary =
      path + ".gpuvet-" + std::to_string(::getpid()) + "-" + std::to_string(seed());
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return failure(temporary, errno);
  auto written = write_all(fd, bytes, temporary);
  if (written && ::fchmod(fd, mode) != 0) written = failure(temporary, errno);
  if (written && ::fsync(fd) != 0) written = failure(temporary, errno);
  if (::close(fd) != 0 && written) written = failure(temporary, errno);
  if (!written) {
    ::unlink(temporary.c_str());
    return written.error();
  }
  return temporary;
}

Result<bool> copy_then_remove(const std::string& from, const std::string& to) {
  auto bytes = read_target(from, size_t{4} << 30);
  if (!bytes) return bytes.error();
  struct stat st {};
  if (::lstat(from.c_str(), &st) != 0) return failure(from, errno);
  const int fd =
      ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 07777);
  if (fd < 0) return failure(to, errno);
  auto written = write_all(fd, *bytes, to);
  if (written && ::fsync(fd) != 0) written = failure(to, errno);
  if (::close(fd) != 0 && written) written = failure(to, errno);
  if (written) {
    auto copy = read_target(to, bytes->size() + 1);
    if (!copy || *copy != *bytes) written = Error{to + ": the copy differs from " + from};
  }
  if (!written) {
    ::unlink(to.c_str());
    return written.error();
  }
  if (::unlink(from.c_str()) != 0) return failure(from, errno);
  return true;
}

}  // namespace

Result<TargetState> inspect_target(const std::string& path) {
  struct stat st {};
  TargetState state;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return state;
    return failure(path, errno);
  }
  state.exists = true;
  state.is_link = S_ISLNK(st.st_mode);
  state.is_regular = S_ISREG(st.st_mode);
  state.mode = static_cast<std::uint32_t>(st.st_mode & 07777);
  return state;
}

Result<std::string> read_target(const std::string& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return errno == ELOOP ? Error{path + ": is a symbolic link"} : failure(path, errno);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{path + ": not a regular file"};
  }
  std::string bytes;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return failure(path, error);
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
    if (bytes.size() > max_bytes) {
      ::close(fd);
      return Error{path + ": larger than " + std::to_string(max_bytes) + " bytes"};
    }
  }
  ::close(fd);
  return bytes;
}

Result<bool> replace_target(const std::string& path, std::string_view bytes,
                            std::optional<std::uint32_t> wanted_mode) {
  auto state = inspect_target(path);
  if (!state) return state.error();
  if (state->is_link)
    return Error{path + ": is a symbolic link; gpuvet does not write through one"};
  if (state->exists && !state->is_regular) return Error{path + ": not a regular file"};
  const mode_t mode = static_cast<mode_t>(wanted_mode.value_or(state->exists ? state->mode : 0644));
  auto temporary = write_temporary(path, bytes, mode);
  if (!temporary) return temporary.error();
  if (::rename(temporary->c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary->c_str());
    return failure(path, error);
  }
  return true;
}

Result<bool> replace_with_link(const std::string& path, const std::string& link_to) {
  auto state = inspect_target(path);
  if (!state) return state.error();
  if (state->exists && !state->is_regular && !state->is_link) {
    return Error{path + ": not a regular file"};
  }
  std::random_device seed;
  const std::string temporary =
      path + ".gpuvet-" + std::to_string(::getpid()) + "-" + std::to_string(seed());
  if (::symlink(link_to.c_str(), temporary.c_str()) != 0) return failure(temporary, errno);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return failure(path, error);
  }
  return true;
}

std::optional<std::string> link_of(const std::string& path) {
  std::string buffer(4096, '\0');
  const ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size());
  if (n < 0 || static_cast<size_t>(n) >= buffer.size()) return std::nullopt;
  buffer.resize(static_cast<size_t>(n));
  return buffer;
}

Result<bool> move_target(const std::string& from, const std::string& to) {
  auto target = inspect_target(to);
  if (!target) return target.error();
  if (target->exists) return Error{to + ": already exists"};
  if (::rename(from.c_str(), to.c_str()) == 0) return true;
  if (errno != EXDEV) return failure(from, errno);
  auto source = inspect_target(from);
  if (!source) return source.error();
  if (!source->is_regular) return Error{from + ": cannot be moved to another file system"};
  return copy_then_remove(from, to);
}

namespace {

Result<bool> make_directories(const std::string& path, mode_t mode) {
  std::string partial = path.starts_with("/") ? "/" : "";
  for (const auto& part : text::split(path, '/')) {
    if (part.empty()) continue;
    partial = partial.empty() ? part : paths::join(partial, part);
    if (::mkdir(partial.c_str(), mode) != 0 && errno != EEXIST) return failure(partial, errno);
  }
  return true;
}

}  // namespace

Result<bool> make_private_directories(const std::string& path) {
  return make_directories(path, 0700);
}

Result<bool> make_parent_directories(const std::string& path) {
  return make_directories(paths::parent(path), 0755);
}

bool may_write_beside(const std::string& path) {
  return ::access(paths::parent(path).c_str(), W_OK) == 0;
}

bool running_as_admin() {
  return ::geteuid() == 0;
}

Result<std::optional<RegistryData>> read_registry_text(const std::string& key, const std::string&) {
  return Error{key + ": there is no registry on this system"};
}

Result<bool> write_registry_text(const std::string& key, const std::string&,
                                 const std::optional<RegistryData>&) {
  return Error{key + ": there is no registry on this system"};
}

void announce_environment_change() {}

}  // namespace gpuvet::fix
