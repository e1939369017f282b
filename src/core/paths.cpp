#include "core/paths.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "core/c_file.hpp"
#include "core/text.hpp"

namespace gpuvet::paths {

std::string normalize(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    const char s = c == '\\' ? '/' : c;
    if (s == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(s);
  }
  // Keep the root ("/" or "C:/"), drop any other trailing separator.
  const bool is_root = out == "/" || (out.size() == 3 && out[1] == ':' && out[2] == '/');
  if (!is_root && out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string comparison_key(std::string_view path, bool windows) {
  return windows ? text::to_lower(normalize(path)) : normalize(path);
}

std::string parent(std::string_view path) {
  const std::string p = normalize(path);
  const size_t slash = p.rfind('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  if (slash == 2 && p[1] == ':') return p.substr(0, 3);
  return p.substr(0, slash);
}

std::string join(std::string_view directory, std::string_view name) {
  std::string d = normalize(directory);
  if (d.empty()) return std::string(name);
  if (d.back() != '/') d.push_back('/');
  return d + std::string(name);
}

bool is_absolute(std::string_view path) {
  return (!path.empty() && (path[0] == '/' || path[0] == '\\')) ||
         (path.size() >= 3 && path[1] == ':' && (path[2] == '/' || path[2] == '\\'));
}

std::filesystem::path to_fs(const std::string& utf8) {
  return std::filesystem::path(std::u8string(utf8.begin(), utf8.end()));
}

std::string from_fs(const std::filesystem::path& path) {
  const std::u8string u8 = path.generic_u8string();
  return std::string(u8.begin(), u8.end());
}

Result<std::string> read_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  const auto fs_path = to_fs(path);
  if (std::filesystem::is_directory(fs_path, ec)) return in_file(open_error(EISDIR), path);
  std::ifstream in(fs_path, std::ios::binary);
  if (!in) return in_file(open_error(errno), path);
  std::string bytes;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    bytes.append(buffer, static_cast<size_t>(in.gcount()));
    if (bytes.size() > max_bytes) {
      return in_file(keyed_error(fmt::format("larger than {} bytes", max_bytes),
                                 "error.file_too_large", {{"size", std::to_string(max_bytes)}}),
                     path);
    }
  }
  if (in.bad()) return in_file(keyed_error("read error", "error.os.read_error"), path);
  return bytes;
}

Result<bool> write_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(to_fs(path), std::ios::binary | std::ios::trunc);
  if (!out) return in_file(open_error(errno), path);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  if (!out) return in_file(keyed_error("write failed", "error.os.write_failed"), path);
  return true;
}

}  // namespace gpuvet::paths
