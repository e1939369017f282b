#pragma once
// What `gpuvet fix` would change, as values: each Fix repairs one finding at its origin through
// actions a journal can take back (fix/apply.hpp). Nothing here touches the machine.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::fix {

enum class ActionKind { edit_line, write_file, move_file, set_registry, set_env_persistent };
std::string_view to_string(ActionKind kind);
std::optional<ActionKind> action_kind_from_string(std::string_view text);

// A Windows registry value as fix reads and writes it: REG_SZ or REG_EXPAND_SZ text.
struct RegistryData {
  std::string type;  // "REG_SZ" | "REG_EXPAND_SZ"
  std::string data;
  bool operator==(const RegistryData&) const = default;
};

// crc32 and size: enough to tell that a file is no longer what gpuvet wrote.
struct Checksum {
  std::uint32_t crc32 = 0;
  std::uint64_t size = 0;
  bool operator==(const Checksum&) const = default;
};
Checksum checksum_of(std::string_view bytes);
std::string to_string(const Checksum& sum);

struct Action {
  ActionKind kind = ActionKind::edit_line;
  std::string target;          // a file; for the registry its key ("HKCU/Environment")
  std::string value_name;      // the registry value (set_registry, set_env_persistent)
  std::optional<size_t> line;  // edit_line: 1-based
  std::string before;          // what the user is shown: the line or value before ("" none)
  std::string after;           // and after
  // What applying needs: the whole file as planned (nullopt: no file) and what it becomes
  // (move_file: nullopt, the file goes to the quarantine as it is).
  std::optional<std::string> old_bytes;
  std::optional<std::string> new_bytes;
  // write_file from another file instead of new_bytes: a path, or "ARCHIVE.zip!entry"; the file
  // it replaces, if any, by checksum (it may be large). link_to: the file becomes a symbolic link.
  std::optional<std::string> copy_from;
  std::optional<Checksum> replaces;
  std::optional<std::string> link_to;
  // Registry actions: the value before and after (nullopt: absent).
  std::optional<RegistryData> old_value;
  std::optional<RegistryData> new_value;
};

struct Fix {
  std::string id;       // "env.origin.CUDA_VISIBLE_DEVICES", "lib.move.<path>" ...
  std::string finding;  // the finding id it repairs
  std::string summary;  // one line, in the user's language
  bool needs_admin = false;
  std::vector<Action> actions;
  // For the re-check after applying: variables a new shell no longer gets.
  std::vector<std::string> unsets;
  // Applied only when named (--apply ID), not by --apply all: another fix of the same finding
  // is the default, or the fix changes what a program does rather than what is broken.
  bool only_by_id = false;
};

// A finding gpuvet has a fix for in principle but will not make here, and why (a line that does
// more than set the variable, a file another product owns ...).
struct Refusal {
  std::string finding;
  std::string target;
  std::string reason;
};

// A finding without an automatic fix (install a driver, a toolkit): its fix in words.
struct ManualStep {
  std::string finding;
  std::string title;
  std::vector<std::string> steps;
};

struct FixPlan {
  std::string stamp;     // "2026-12-02T16:05:12Z": in the markers written, and the journal entry
  bool windows = false;  // for a Windows machine: its paths and registry keys are shown as such
  std::vector<Fix> fixes;
  std::vector<Refusal> refused;
  std::vector<ManualStep> manual;
};

}  // namespace gpuvet::fix
