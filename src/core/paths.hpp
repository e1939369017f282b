#pragma once
// Path spelling shared by every System: UTF-8, '/' separators, Windows compared case-insensitively.
#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace gpuvet::paths {

// "C:\\Program Files\\x\\" -> "C:/Program Files/x"; "/usr//lib/" -> "/usr/lib".
std::string normalize(std::string_view path);
// The key under which a path is compared: normalized, and lower-cased on Windows.
std::string comparison_key(std::string_view path, bool windows);
std::string parent(std::string_view path);
std::string join(std::string_view directory, std::string_view name);
bool is_absolute(std::string_view path);

std::filesystem::path to_fs(const std::string& utf8);
std::string from_fs(const std::filesystem::path& path);

// Reads a whole file of at most max_bytes; errors name the file.
Result<std::string> read_file(const std::string& path, size_t max_bytes);
Result<bool> write_file(const std::string& path, std::string_view bytes);

}  // namespace gpuvet::paths
