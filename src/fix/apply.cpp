#include "fix/apply.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/new_file.hpp"
#include "core/paths.hpp"
#include "core/zip_reader.hpp"
#include "fix/journal.hpp"
#include "fix/script_lines.hpp"
#include "fix/target_files.hpp"
#include "kb/messages.hpp"

namespace gpuvet::fix {

namespace {

constexpr size_t kMaxTargetBytes = size_t{4} << 30;

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_file_action(ActionKind kind) {
  return kind == ActionKind::edit_line || kind == ActionKind::write_file;
}

// The file as it is now: nullopt when there is none.
Result<std::optional<std::string>> current_bytes(const std::string& path) {
  auto state = inspect_target(path);
  if (!state) return state.error();
  if (!state->exists) return std::optional<std::string>();
  auto bytes = read_target(path, kMaxTargetBytes);
  if (!bytes) return bytes.error();
  return std::optional<std::string>(std::move(*bytes));
}

// A copy's source: a file, or "ARCHIVE.zip!entry".
Result<std::string> source_bytes(const std::string& source) {
  const size_t bang = source.rfind(".zip!");
  if (bang == std::string::npos) return read_target(source, kMaxTargetBytes);
  auto archive = zip::Archive::open(source.substr(0, bang + 4));
  if (!archive) return archive.error();
  const std::string name = source.substr(bang + 5);
  for (const auto& entry : archive->entries()) {
    if (entry.name == name) return archive->read(entry, kMaxTargetBytes);
  }
  return in_file(kb::catalog_error("fix.error.no_such_entry"), source);
}

// A copy (or a link) replaces what the plan saw there: the same file by checksum, or nothing.
Result<bool> copy_target_as_planned(const Action& action) {
  const Error changed{action.target + ": changed since gpuvet read it; run gpuvet fix again"};
  auto state = inspect_target(action.target);
  if (!state) return state.error();
  if (!action.replaces) return state->exists ? Result<bool>(changed) : Result<bool>(true);
  if (!state->is_regular) return changed;
  auto now = read_target(action.target, kMaxTargetBytes);
  if (!now) return now.error();
  if (checksum_of(*now) != *action.replaces) return changed;
  return true;
}

// The bytes an action leaves in its file, from what the file holds now; an error when the file
// no longer holds what the plan read (another program, or an earlier fix, changed it).
Result<std::string> bytes_after(const Action& action) {
  if (action.kind == ActionKind::write_file && (action.copy_from || action.link_to)) {
    if (auto planned = copy_target_as_planned(action); !planned) return planned.error();
    if (action.link_to) return std::string();
    return source_bytes(*action.copy_from);
  }
  auto now = current_bytes(action.target);
  if (!now) return now.error();
  const Error changed{action.target + ": changed since gpuvet read it; run gpuvet fix again"};
  if (action.kind == ActionKind::write_file) {
    if (*now != action.old_bytes) return changed;
    return action.new_bytes.value_or("");
  }
  if (!*now || !action.line) return changed;
  auto text = decode_script(**now);
  if (!text) return in_file(kb::catalog_error("fix.error.not_text"), action.target);
  std::string out;
  size_t number = 0;
  bool replaced = false;
  for (const auto& line : split_lines(text->utf8)) {
    ++number;
    if (number == *action.line) {
      if (line.text != action.before) return changed;
      out += action.after;
      replaced = true;
    } else {
      out += line.text;
    }
    out += line.ending;
  }
  if (!replaced) return changed;
  return encode_script({std::move(out), text->encoding});
}

Result<bool> still_as_planned(const Action& action) {
  if (is_file_action(action.kind)) {
    auto after = bytes_after(action);
    if (!after) return after.error();
  } else if (action.kind == ActionKind::move_file) {
    auto state = inspect_target(action.target);
    if (!state) return state.error();
    if (!state->exists) return in_file(kb::catalog_error("fix.error.gone"), action.target);
  } else {
    auto now = read_registry_text(action.target, action.value_name);
    if (!now) return now.error();
    if (*now != action.old_value) {
      return in_file(kb::catalog_error("fix.error.changed"),
                     action.target + "/" + action.value_name);
    }
  }
  return true;
}

class EntryWriter {
 public:
  EntryWriter(std::string journal, JournalEntry entry)
      : journal_(std::move(journal)), entry_(std::move(entry)) {}
  JournalEntry& entry() { return entry_; }
  std::string folder() const { return entry_directory(journal_, entry_.id); }
  std::string inside(const std::string& relative) const { return paths::join(folder(), relative); }
  Result<bool> save() { return write_entry(journal_, entry_); }

 private:
  std::string journal_;
  JournalEntry entry_;
};

// Records what the action needs to be taken back, just before it is made. `result`: the bytes
// a file action writes.
Result<JournalAction> record(const Action& action, size_t index, EntryWriter& writer,
                             std::string& result) {
  JournalAction j;
  j.kind = action.kind;
  j.target = action.target;
  j.value_name = action.value_name;
  j.before = action.before;
  j.after = action.after;
  j.old_value = action.old_value;
  j.new_value = action.new_value;
  if (is_file_action(action.kind)) {
    auto after = bytes_after(action);
    if (!after) return after.error();
    result = std::move(*after);
    auto now = current_bytes(action.target);
    if (!now) return now.error();
    if (*now) {
      j.original = fmt::format("originals/{}", index);
      j.original_sum = checksum_of(**now);
      auto state = inspect_target(action.target);
      if (!state) return state.error();
      j.mode = state->mode;
      auto saved = write_new_file(writer.inside(*j.original), **now, false);
      if (!saved) return saved.error();
    }
    j.link_to = action.link_to;
    j.result_sum = checksum_of(action.link_to ? *action.link_to : result);
  } else if (action.kind == ActionKind::move_file) {
    j.quarantine = fmt::format("quarantine/{}/{}", index, base_name(action.target));
    auto made = make_private_directories(paths::parent(writer.inside(*j.quarantine)));
    if (!made) return made.error();
    auto state = inspect_target(action.target);
    if (!state) return state.error();
    if (state->is_regular) {
      auto bytes = read_target(action.target, kMaxTargetBytes);
      if (!bytes) return bytes.error();
      j.original_sum = checksum_of(*bytes);
    }
  }
  return j;
}

Result<bool> perform(const JournalAction& j, EntryWriter& writer, const std::string& result) {
  if (is_file_action(j.kind) && !j.original) {
    if (auto made = make_parent_directories(j.target); !made) return made;
  }
  if (j.link_to) return replace_with_link(j.target, *j.link_to);
  if (is_file_action(j.kind)) return replace_target(j.target, result);
  if (j.kind == ActionKind::move_file) return move_target(j.target, writer.inside(*j.quarantine));
  auto written = write_registry_text(j.target, j.value_name, j.new_value);
  if (written) announce_environment_change();
  return written;
}

// Puts one action's target back. `aside`: where the current file goes first (force, or a file
// gpuvet created, which undo moves away rather than deletes).
Result<bool> restore(const JournalAction& j, EntryWriter& writer, size_t index,
                     std::vector<std::string>& kept_aside, bool keep_current) {
  const auto keep = [&]() -> Result<bool> {
    auto state = inspect_target(j.target);
    if (!state) return state.error();
    if (!state->exists) return true;
    const std::string aside = writer.inside(fmt::format("kept/{}/{}", index, base_name(j.target)));
    auto made = make_private_directories(paths::parent(aside));
    if (!made) return made.error();
    auto moved = move_target(j.target, aside);
    if (moved) kept_aside.push_back(j.target + " -> " + aside);
    return moved;
  };
  if (is_file_action(j.kind)) {
    if (!j.original) return keep();  // gpuvet created it: it goes, into the entry
    auto bytes = paths::read_file(writer.inside(*j.original), kMaxTargetBytes);
    if (!bytes) return bytes.error();
    if (j.original_sum && checksum_of(*bytes) != *j.original_sum) {
      return kb::catalog_error("fix.error.copy_damaged",
                               {{"target", j.target}, {"copy", writer.inside(*j.original)}});
    }
    // A link gpuvet made goes into the entry first: nothing is written through it.
    if (keep_current || j.link_to) {
      if (auto kept = keep(); !kept) return kept;
    }
    return replace_target(j.target, *bytes, j.mode);
  }
  if (j.kind == ActionKind::move_file) {
    if (keep_current) {
      if (auto kept = keep(); !kept) return kept;
    }
    return move_target(writer.inside(*j.quarantine), j.target);
  }
  auto written = write_registry_text(j.target, j.value_name, j.old_value);
  if (written) announce_environment_change();
  return written;
}

// Why an applied action can no longer be taken back as it is; nullopt when it can.
std::optional<std::string> changed_since(const JournalAction& j, EntryWriter& writer) {
  if (j.link_to) {
    if (link_of(j.target) != j.link_to) return j.target + ": changed since the fix";
    return std::nullopt;
  }
  if (is_file_action(j.kind)) {
    auto now = current_bytes(j.target);
    if (!now) return now.error().message;
    if (!*now) return j.target + ": is gone";
    if (!j.result_sum || checksum_of(**now) != *j.result_sum) {
      return j.target + ": changed since the fix";
    }
    return std::nullopt;
  }
  if (j.kind == ActionKind::move_file) {
    auto waiting = inspect_target(writer.inside(*j.quarantine));
    if (!waiting || !waiting->exists) {
      return j.target + ": its copy is missing from the quarantine (" +
             writer.inside(*j.quarantine) + ")";
    }
    auto state = inspect_target(j.target);
    if (!state) return state.error().message;
    if (state->exists) return j.target + ": another file is there now";
    return std::nullopt;
  }
  auto now = read_registry_text(j.target, j.value_name);
  if (!now) return now.error().message;
  if (*now != j.new_value) return j.target + "/" + j.value_name + ": changed since the fix";
  return std::nullopt;
}

std::string unique_entry_id(const std::string& journal, const std::string& stamp) {
  const std::string base = entry_id_for(stamp);
  std::string id = base;
  for (int n = 2;; ++n) {
    auto state = inspect_target(entry_directory(journal, id));
    if (state && !state->exists) return id;
    id = fmt::format("{}-{}", base, n);
  }
}

void take_back(EntryWriter& writer, std::vector<std::string>& kept) {
  auto& actions = writer.entry().actions;
  for (size_t i = actions.size(); i-- > 0;) {
    if (!actions[i].done) continue;
    if (restore(actions[i], writer, i, kept, false)) actions[i].done = false;
  }
}

}  // namespace

Result<std::string> apply_fixes(const std::vector<const Fix*>& fixes, const std::string& journal,
                                const std::string& stamp, const std::string& tool) {
  std::vector<const Action*> actions;
  JournalEntry entry;
  entry.created = stamp;
  entry.tool = tool;
  for (const Fix* fix : fixes) {
    entry.fixes.push_back(fix->id);
    for (const auto& action : fix->actions)
      actions.push_back(&action);
  }
  // Each target is checked as the plan read it; a later action on one target builds on the
  // earlier one and is checked when its turn comes.
  std::vector<std::string> checked;
  for (const Action* action : actions) {
    const std::string key = action->target + "/" + action->value_name;
    if (std::find(checked.begin(), checked.end(), key) != checked.end()) continue;
    checked.push_back(key);
    if (auto planned = still_as_planned(*action); !planned) return planned.error();
  }
  if (auto made = make_private_directories(journal); !made) return made.error();
  entry.id = unique_entry_id(journal, stamp);
  EntryWriter writer(journal, std::move(entry));
  for (const char* folder : {"originals", "quarantine"}) {
    if (auto made = make_private_directories(writer.inside(folder)); !made) return made.error();
  }
  const auto fail = [&](size_t made, const Error& error) -> Error {
    std::vector<std::string> kept;
    take_back(writer, kept);
    writer.entry().undone = stamp;
    (void)writer.save();
    return kb::within(error, "fix.error.taken_back",
                      {{"count", std::to_string(made)}, {"id", writer.entry().id}});
  };
  for (size_t i = 0; i < actions.size(); ++i) {
    std::string result;
    auto recorded = record(*actions[i], i, writer, result);
    if (!recorded) return fail(i, recorded.error());
    writer.entry().actions.push_back(std::move(*recorded));
    if (auto saved = writer.save(); !saved) return fail(i, saved.error());
    auto done = perform(writer.entry().actions[i], writer, result);
    if (!done) return fail(i, done.error());
    writer.entry().actions[i].done = true;
    if (auto saved = writer.save(); !saved) return fail(i + 1, saved.error());
  }
  return writer.entry().id;
}

Result<UndoOutcome> undo_entry(const std::string& journal, const std::string& id, bool force,
                               const std::string& now) {
  auto entry = read_entry(journal, id);
  if (!entry) return entry.error();
  if (entry->undone)
    return kb::catalog_error("fix.error.undone_already", {{"id", id}, {"when", *entry->undone}});
  EntryWriter writer(journal, std::move(*entry));
  auto& actions = writer.entry().actions;
  std::vector<bool> changed(actions.size(), false);
  std::vector<std::string> reasons;
  // Only the last action on each target is compared with the target: the earlier ones are
  // compared with what the later ones restore.
  std::vector<std::string> seen;
  for (size_t i = actions.size(); i-- > 0;) {
    if (!actions[i].done) continue;
    const std::string key = actions[i].target + "/" + actions[i].value_name;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    if (auto why = changed_since(actions[i], writer)) {
      changed[i] = true;
      reasons.push_back(*why);
    }
  }
  if (!reasons.empty() && !force) {
    std::string joined;
    for (const auto& r : reasons)
      joined += (joined.empty() ? "" : "; ") + r;
    return Error{
        fmt::format("not undoing entry {}: {} (gpuvet undo --force {} keeps the current "
                    "files in the journal and restores the old ones)",
                    id, joined, id)};
  }
  UndoOutcome outcome;
  for (size_t i = actions.size(); i-- > 0;) {
    if (!actions[i].done) continue;
    auto restored = restore(actions[i], writer, i, outcome.kept_aside, changed[i]);
    if (!restored) {
      (void)writer.save();
      return kb::within(restored.error(), "fix.error.undo_stopped",
                        {{"id", id}, {"target", actions[i].target}});
    }
    actions[i].done = false;
    outcome.restored.push_back(actions[i].value_name.empty()
                                   ? actions[i].target
                                   : actions[i].target + "/" + actions[i].value_name);
  }
  writer.entry().undone = now;
  if (auto saved = writer.save(); !saved) return saved.error();
  return outcome;
}

Result<std::string> last_undoable_entry(const std::string& journal) {
  auto entries = list_entries(journal);
  if (!entries) return entries.error();
  for (auto it = entries->rbegin(); it != entries->rend(); ++it) {
    if (!it->entry) return it->entry.error();
    if (!it->entry->undone) return it->id;
  }
  return kb::catalog_error("fix.error.nothing_to_undo");
}

}  // namespace gpuvet::fix
