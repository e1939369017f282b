#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "core/new_file.hpp"

namespace gpuvet {

namespace {

std::string failure(const std::string& path, int error) {
  return path + ": " + (error == EEXIST ? std::string("already exists") : std::strerror(error));
}

// O_EXCL with O_CREAT fails on any existing name, a symbolic link included (POSIX), so the file
// opened is always a new one; O_NOFOLLOW says the same for systems that need telling.
Result<bool> create(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(failure(path, errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(path.c_str());
      return make_error(failure(path, error));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(path.c_str());
    return make_error(failure(path, error));
  }
  return true;
}

}  // namespace

Result<bool> write_new_file(const std::string& utf8_path, std::string_view bytes, bool replace) {
  if (!replace) return create(utf8_path, bytes);
  std::random_device seed;
  const std::string temporary =
      utf8_path + ".gpuvet-" + std::to_string(::getpid()) + "-" + std::to_string(seed());
  if (auto created = create(temporary, bytes); !created) return created.error();
  if (::rename(temporary.c_str(), utf8_path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return make_error(failure(utf8_path, error));
  }
  return true;
}

}  // namespace gpuvet
