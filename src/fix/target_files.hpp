#pragma once
// The only place gpuvet writes to a user's machine (target_files_<platform>.cpp). Every write
// goes to a new temporary file renamed over the target, never through a symbolic link, and keeps
// the target's permissions (mode on POSIX; on Windows ReplaceFileW keeps the ACL and attributes).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "fix/fix.hpp"

namespace gpuvet::fix {

struct TargetState {
  bool exists = false;
  bool is_link = false;     // the name itself is a symbolic link (or a reparse point)
  bool is_regular = false;  // a regular file (not followed through a link)
  std::uint32_t mode = 0;   // POSIX permission bits; 0 on Windows
};

Result<TargetState> inspect_target(const std::string& path);
// The bytes of a regular file that is not a link; errors name the file.
Result<std::string> read_target(const std::string& path, size_t max_bytes);
// Replaces (or creates) a regular file with these bytes: refused when the name is a link or not a
// regular file. The new file gets `mode` where given (POSIX), else the old file's (new: 0644).
Result<bool> replace_target(const std::string& path, std::string_view bytes,
                            std::optional<std::uint32_t> mode = std::nullopt);
// Replaces (or creates) the name with a symbolic link to `link_to` (POSIX; an error on Windows).
Result<bool> replace_with_link(const std::string& path, const std::string& link_to);
// What a symbolic link points to; nullopt when the name is not a link.
std::optional<std::string> link_of(const std::string& path);
// Moves a file (or a link itself) to `to`, which must not exist; across file systems by copying,
// checking the copy and then removing the original.
Result<bool> move_target(const std::string& from, const std::string& to);
// Makes a directory and its parents, private to the user where the platform says so.
Result<bool> make_private_directories(const std::string& path);
// Makes the directory that holds `path`, and its parents, with the usual permissions (a conda
// environment's activate.d is read by whoever activates it).
Result<bool> make_parent_directories(const std::string& path);
// Whether this process may replace a file in the directory that holds `path`.
bool may_write_beside(const std::string& path);
// Root, or an elevated Windows process.
bool running_as_admin();

// The Windows registry, keys as "HKCU/Environment". Elsewhere every call is an error.
Result<std::optional<RegistryData>> read_registry_text(const std::string& key,
                                                       const std::string& name);
// Writes the value, or deletes it when `value` is nullopt.
Result<bool> write_registry_text(const std::string& key, const std::string& name,
                                 const std::optional<RegistryData>& value);
// Tells running programs (Explorer, new terminals) that the saved environment changed.
void announce_environment_change();

}  // namespace gpuvet::fix
