#pragma once
// Applying fixes through the journal, and taking an entry back byte for byte (fix/journal.hpp).
#include <string>
#include <vector>

#include "core/result.hpp"
#include "fix/fix.hpp"

namespace gpuvet::fix {

// Applies the fixes in order, recording each action before making it. When one fails, the ones
// made are taken back and the error says so. Returns the journal entry's id.
Result<std::string> apply_fixes(const std::vector<const Fix*>& fixes, const std::string& journal,
                                const std::string& stamp, const std::string& tool);

struct UndoOutcome {
  std::vector<std::string> restored;    // targets put back
  std::vector<std::string> kept_aside;  // --force: current files kept, and where
};

// Restores every target of the entry as it was. Refuses, naming them, when targets changed since
// the fix, unless `force`, which keeps the current files inside the entry before restoring.
Result<UndoOutcome> undo_entry(const std::string& journal, const std::string& id, bool force,
                               const std::string& now);

// The newest entry not yet undone.
Result<std::string> last_undoable_entry(const std::string& journal);

}  // namespace gpuvet::fix
