#pragma once
// A C stdio stream on a UTF-8 path (c_file_<platform>.cpp). On Windows std::fopen reads the path
// in the ANSI code page, which cannot spell every user's file name; this opens it as UTF-16.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

#include "core/result.hpp"

namespace gpuvet {

// Opens the file for binary reading; nullptr (errno set) when it cannot. A directory is refused
// with EISDIR (POSIX would open it and fail only at the first read).
std::FILE* open_for_reading(const std::string& utf8_path);

// What open_for_reading's errno says, for a message: "is a directory", "No such file or directory".
inline std::string describe_open_error(int error) {
  return error == EISDIR ? std::string("is a directory") : std::string(std::strerror(error));
}

// The same as an error the catalogs word (error.os.*): the common causes by name, any other
// in the C library's words.
inline Error open_error(int error) {
  switch (error) {
    case ENOENT:
      return keyed_error(describe_open_error(error), "error.os.no_such_file");
    case EACCES:
    case EPERM:
      return keyed_error(describe_open_error(error), "error.os.permission_denied");
    case EISDIR:
      return keyed_error(describe_open_error(error), "error.os.is_directory");
    case ENOTDIR:
      return keyed_error(describe_open_error(error), "error.os.not_directory");
    default:
      return keyed_error(describe_open_error(error), "error.os.other",
                         {{"detail", describe_open_error(error)}});
  }
}

// A filesystem error_code the same way (std::errc conditions hold on Windows too).
inline Error filesystem_error(const std::error_code& error) {
  if (error == std::errc::no_such_file_or_directory)
    return keyed_error(error.message(), "error.os.no_such_file");
  if (error == std::errc::permission_denied)
    return keyed_error(error.message(), "error.os.permission_denied");
  if (error == std::errc::not_a_directory)
    return keyed_error(error.message(), "error.os.not_directory");
  if (error == std::errc::is_a_directory)
    return keyed_error(error.message(), "error.os.is_directory");
  return keyed_error(error.message(), "error.os.other", {{"detail", error.message()}});
}

}  // namespace gpuvet
