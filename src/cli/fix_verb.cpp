// `gpuvet fix` and `gpuvet undo`: the repairs of this machine's findings at their origin, dry run
// first, applied through the journal, taken back byte for byte.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <set>

#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "fix/apply.hpp"
#include "fix/cudnn_install.hpp"
#include "fix/journal.hpp"
#include "fix/planner.hpp"
#include "fix/target_files.hpp"
#include "pipeline/diagnose.hpp"
#include "platform/terminal.hpp"
#include "report/render_fix.hpp"
#include "system/overlay_system.hpp"

namespace gpuvet::cli {

namespace {

struct FixOptions {
  CommonOptions common;
  bool json = false;
  std::vector<std::string> apply;
  std::vector<std::string> only;
  bool yes = false;
  std::string task;  // "cudnn-install"
  std::string from;
  std::string toolkit;
};

bool names(const fix::Fix& f, const std::string& id) {
  return f.id == id || f.finding == id;
}

// --only: the plan cut down to what the ids name (a fix id or a finding id).
void keep_only(fix::FixPlan& plan, const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  const auto named = [&](const std::string& a, const std::string& b) {
    return std::any_of(ids.begin(), ids.end(),
                       [&](const std::string& id) { return id == a || id == b; });
  };
  std::erase_if(plan.fixes, [&](const fix::Fix& f) { return !named(f.id, f.finding); });
  std::erase_if(plan.refused, [&](const fix::Refusal& r) { return !named(r.finding, r.finding); });
  std::erase_if(plan.manual,
                [&](const fix::ManualStep& m) { return !named(m.finding, m.finding); });
}

Result<std::vector<const fix::Fix*>> selected(const fix::FixPlan& plan,
                                              const std::vector<std::string>& ids) {
  std::vector<const fix::Fix*> out;
  const bool all = std::find(ids.begin(), ids.end(), "all") != ids.end();
  for (const auto& f : plan.fixes) {
    const bool on_request = f.only_by_id;
    const bool asked =
        std::any_of(ids.begin(), ids.end(), [&](const std::string& id) { return names(f, id); });
    if (asked || (all && !on_request)) out.push_back(&f);
  }
  for (const auto& id : ids) {
    if (id == "all") continue;
    const bool known = std::any_of(plan.fixes.begin(), plan.fixes.end(),
                                   [&](const fix::Fix& f) { return names(f, id); });
    if (!known) return kb::catalog_error("fix.error.unknown_fix", {{"id", id}});
  }
  return out;
}

// Two fixes that would set one line, or one registry value, to different things, or one that
// rewrites a whole file another one edits.
Error clash_error(const std::string& one, const std::string& other, const std::string& target) {
  return kb::catalog_error("fix.error.clash", {{"one", one}, {"other", other}, {"target", target}});
}

std::optional<Error> conflict(const std::vector<const fix::Fix*>& fixes) {
  std::map<std::string, std::pair<std::string, std::string>> seen;  // target -> (after, fix)
  std::map<std::string, std::string> touched;                       // target -> fix
  for (const fix::Fix* f : fixes) {
    for (const auto& a : f->actions) {
      const auto other = touched.find(a.target);
      if (other != touched.end() && other->second != f->id &&
          (a.kind == fix::ActionKind::write_file || a.kind == fix::ActionKind::move_file)) {
        return clash_error(other->second, f->id, a.target);
      }
      touched.emplace(a.target, f->id);
      const std::string key = a.target + "|" + a.value_name + "|" +
                              (a.line ? std::to_string(*a.line) : std::string("whole"));
      const auto it = seen.find(key);
      if (it != seen.end() && (it->second.first != a.after || it->second.second != f->id)) {
        return clash_error(it->second.second, f->id, a.target);
      }
      seen[key] = {a.after, f->id};
    }
  }
  return std::nullopt;
}

bool confirmed(const Context& context) {
  print(context.messages.text("fix.text.confirm"));
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "yes";
}

// What `check` says in a new shell: the variables the applied fixes stopped setting are gone.
void report_recheck(const sys::System& live, const pipeline::Report& before,
                    const std::vector<const fix::Fix*>& applied, const Context& context) {
  auto env = live.environment();
  for (const fix::Fix* f : applied) {
    for (const auto& name : f->unsets)
      env.erase(name);
  }
  const sys::EnvOverlaySystem fresh(live, env, live.host().cwd);
  auto after = pipeline::diagnose(fresh, context.kb, context.messages);
  if (!after) return;
  std::set<std::string> still;
  for (const auto& f : after->findings) {
    if (f.severity >= Severity::warning) still.insert(f.id + "|" + f.title);
  }
  std::vector<std::string> gone;
  for (const auto& f : before.findings) {
    if (f.severity >= Severity::warning && !still.count(f.id + "|" + f.title)) gone.push_back(f.id);
  }
  print(context.messages.text(
            "fix.text.recheck",
            {{"gone", gone.empty() ? "-" : fmt::format("{}", fmt::join(gone, ", "))},
             {"errors", std::to_string(after->summary.errors)},
             {"warnings", std::to_string(after->summary.warnings)}}) +
        "\n");
}

int run_fix(const FixOptions& options) {
  auto context = open_context(options.common);
  if (!context) return fail(context.error());
  if (!options.task.empty() && options.from.empty()) {
    return fail(context->messages.text("fix.error.needs_from"));
  }
  if (options.task.empty() && (!options.from.empty() || !options.toolkit.empty())) {
    return fail(context->messages.text("fix.error.task_options"));
  }
  auto system = open_system("");
  if (!system) return fail(system.error());
  auto report = pipeline::diagnose(**system, context->kb, context->messages);
  if (!report) return fail(report.error());
  fix::PlanRequest request{utc_now_iso8601(), {}};
  for (const auto* ids : {&options.apply, &options.only}) {
    for (const auto& id : *ids) {
      if (id == fix::kAllowGrowthFix) request.requested.push_back(id);
    }
  }
  auto plan = options.task.empty()
                  ? fix::plan_fixes(report->facts, report->findings, **system, fix::live_registry(),
                                    context->kb, context->messages, request)
                  : fix::plan_cudnn_install(
                        report->facts, context->kb, context->messages,
                        {options.from,
                         options.toolkit.empty() ? std::nullopt
                                                 : std::optional<std::string>(options.toolkit),
                         request.stamp});
  if (!plan) return fail(plan.error());
  keep_only(*plan, options.only);
  if (options.apply.empty()) {
    print(options.json ? report::render_fix_json(*plan)
                       : report::render_fix_text(*plan, context->messages, context->color));
    return plan->fixes.empty() ? kExitOk : kExitFound;
  }
  auto chosen = selected(*plan, options.apply);
  if (!chosen) return fail(chosen.error());
  if (chosen->empty()) {
    print(context->messages.text("fix.text.none") + "\n");
    return kExitOk;
  }
  // --apply all leaves out what needs an administrator, and says so; a fix named is refused.
  const bool all =
      std::find(options.apply.begin(), options.apply.end(), "all") != options.apply.end();
  if (!fix::running_as_admin()) {
    for (const fix::Fix* f : *chosen) {
      if (f->needs_admin && !all) {
        return fail(context->messages.text("fix.error.needs_admin", {{"id", f->id}}));
      }
      if (f->needs_admin) {
        print(context->messages.text("fix.text.skipped_admin", {{"id", f->id}}) + "\n");
      }
    }
    std::erase_if(*chosen, [](const fix::Fix* f) { return f->needs_admin; });
    if (chosen->empty()) return kExitFound;
  }
  if (auto clash = conflict(*chosen)) return fail(*clash);
  if (!options.yes) {
    if (!platform::stdin_is_terminal()) {
      return fail(context->messages.text("fix.error.no_terminal"));
    }
    fix::FixPlan shown = *plan;
    std::erase_if(shown.fixes, [&](const fix::Fix& f) {
      return std::none_of(chosen->begin(), chosen->end(),
                          [&](const fix::Fix* c) { return c->id == f.id; });
    });
    shown.refused.clear();
    shown.manual.clear();
    print(report::render_fix_text(shown, context->messages, context->color));
    if (!confirmed(*context)) {
      print(context->messages.text("fix.text.cancelled") + "\n");
      return kExitOk;
    }
  }
  const bool windows = report->facts.os.family == "windows";
  const auto journal = fix::journal_directory((*system)->environment(), windows);
  if (!journal) return fail(context->messages.text("fix.error.no_journal_folder"));
  auto entry = fix::apply_fixes(*chosen, *journal, plan->stamp, pipeline::tool_name());
  if (!entry) {
    print(context->messages.text("fix.text.apply_failed", {{"error", error_text(entry.error())}}) +
          "\n");
    return kExitFound;
  }
  print(context->messages.text(
            "fix.text.applied",
            {{"count", std::to_string(chosen->size())}, {"entry", *entry}, {"journal", *journal}}) +
        "\n");
  report_recheck(**system, *report, *chosen, *context);
  return kExitOk;
}

struct UndoOptions {
  CommonOptions common;
  bool last = false;
  bool list = false;
  bool force = false;
  std::string entry;
};

int list_journal(const std::string& journal, const Context& context) {
  auto entries = fix::list_entries(journal);
  if (!entries) return fail(entries.error());
  if (entries->empty()) {
    print(context.messages.text("undo.text.empty", {{"journal", journal}}) + "\n");
    return kExitOk;
  }
  std::string out;
  bool unreadable = false;
  for (const auto& item : *entries) {
    if (!item.entry) {
      unreadable = true;
      out += fmt::format("{}  {}\n", item.id, error_text(item.entry.error()));
      continue;
    }
    const auto& e = *item.entry;
    const std::string state = e.undone
                                  ? context.messages.text("undo.text.undone", {{"when", *e.undone}})
                                  : context.messages.text("undo.text.applied");
    out += fmt::format("{}  {}  {}  {}\n", e.id, e.created, state, fmt::join(e.fixes, ", "));
  }
  print(out);
  return unreadable ? kExitUsage : kExitOk;
}

int run_undo(const UndoOptions& options) {
  auto context = open_context(options.common);
  if (!context) return fail(context.error());
  const auto live = sys::make_live_system({});
  const bool windows = live->host().os == "windows";
  const auto journal = fix::journal_directory(live->environment(), windows);
  if (!journal) return fail(context->messages.text("fix.error.no_journal_folder"));
  if (options.list) return list_journal(*journal, *context);
  std::string id = options.entry;
  if (id.empty()) {
    auto last = fix::last_undoable_entry(*journal);
    if (!last) return fail(last.error());
    id = *last;
  } else if (id.find('/') != std::string::npos || id.find('\\') != std::string::npos ||
             id == "..") {
    return fail(context->messages.text("fix.error.not_entry", {{"id", id}}));
  }
  auto entry = fix::read_entry(*journal, id);
  if (!entry) return fail(entry.error());
  auto outcome = fix::undo_entry(*journal, id, options.force, utc_now_iso8601());
  if (!outcome) {
    print(context->messages.text("undo.text.refused", {{"error", error_text(outcome.error())}}) +
          "\n");
    return kExitFound;
  }
  std::string out = context->messages.text("undo.text.done", {{"entry", id}}) + "\n";
  for (const auto& target : outcome->restored)
    out += "  " + target + "\n";
  for (const auto& kept : outcome->kept_aside)
    out += "  " + context->messages.text("undo.text.kept", {{"what", kept}}) + "\n";
  print(out);
  return kExitOk;
}

}  // namespace

VerbRun declare_fix(CLI::App& command) {
  auto options = std::make_shared<FixOptions>();
  command.add_flag("--json", options->json);
  command.add_option("--apply", options->apply)->type_name("ID...");
  command.add_option("--only", options->only)->type_name("ID...");
  command.add_flag("--yes", options->yes);
  command.add_option("task", options->task)
      ->check(CLI::IsMember({"cudnn-install"}))
      ->option_text("cudnn-install");
  command.add_option("--from", options->from)->type_name("DIR|ZIP-FILE");
  command.add_option("--toolkit", options->toolkit)->type_name("DIR");
  add_common_options(command, options->common);
  return [options] { return run_fix(*options); };
}

VerbRun declare_undo(CLI::App& command) {
  auto options = std::make_shared<UndoOptions>();
  auto* last = command.add_flag("--last", options->last);
  command.add_flag("--list", options->list);
  command.add_flag("--force", options->force);
  auto* entry = command.add_option("entry", options->entry)->type_name("ENTRY");
  last->excludes(entry);
  add_common_options(command, options->common);
  return [options] { return run_undo(*options); };
}

}  // namespace gpuvet::cli
