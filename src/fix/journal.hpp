#pragma once
// The journal of applied fixes: one folder per apply under the user's state directory, holding
// entry.json (what was done, with checksums), the original bytes of every file changed, and the
// quarantine where moved files wait. Nothing is ever deleted from it by gpuvet.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "fix/fix.hpp"

namespace gpuvet::fix {

// $XDG_STATE_HOME/gpuvet, else ~/.local/state/gpuvet; %LOCALAPPDATA%\gpuvet on Windows. nullopt
// when the environment names no home at all.
std::optional<std::string> journal_directory(const std::map<std::string, std::string>& env,
                                             bool windows);

struct JournalAction {
  ActionKind kind = ActionKind::edit_line;
  std::string target;
  std::string value_name;
  std::string before;
  std::string after;
  // Files: the copy of the original inside the entry ("originals/0"; nullopt: there was no file)
  // and the checksums of the original and of what gpuvet wrote.
  std::optional<std::string> original;
  std::optional<Checksum> original_sum;
  std::optional<Checksum> result_sum;
  std::optional<std::uint32_t> mode;   // the original's POSIX permissions
  std::optional<std::string> link_to;  // what gpuvet made is a symbolic link to this
  // move_file: where the file waits, inside the entry ("quarantine/0/cudnn64_7.dll").
  std::optional<std::string> quarantine;
  std::optional<RegistryData> old_value;
  std::optional<RegistryData> new_value;
  bool done = false;  // applied (a failed apply takes the done ones back)
};

struct JournalEntry {
  std::string id;       // "20261202T160512Z"
  std::string created;  // "2026-12-02T16:05:12Z"
  std::string tool;     // "gpuvet 0.1.0"
  std::vector<std::string> fixes;
  std::vector<JournalAction> actions;
  std::optional<std::string> undone;  // when it was undone
};

// One entry's folder inside the journal.
std::string entry_directory(const std::string& journal, const std::string& id);
Result<JournalEntry> read_entry(const std::string& journal, const std::string& id);
// Rewrites entry.json in one step (a temporary file renamed over it).
Result<bool> write_entry(const std::string& journal, const JournalEntry& entry);

// Every entry, oldest first; a folder whose entry.json cannot be read comes back as its error.
struct ListedEntry {
  std::string id;
  Result<JournalEntry> entry;
};
Result<std::vector<ListedEntry>> list_entries(const std::string& journal);

// The entry id for a plan's stamp: "2026-12-02T16:05:12Z" -> "20261202T160512Z".
std::string entry_id_for(const std::string& stamp);

}  // namespace gpuvet::fix
