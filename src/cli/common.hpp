#pragma once
// What every verb shares: exit statuses, the output net, the knowledge base and catalog a verb
// runs with, and the System it reads (this machine or a snapshot). Verbs include this, never
// the app.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "system/redact.hpp"
#include "system/system.hpp"

namespace CLI {
class App;
}

namespace gpuvet::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFound = 1;  // check: an error finding; others: the thing checked failed
inline constexpr int kExitUsage = 2;  // usage error or unreadable input

// Standard output, flushed; and a usage error as one "gpuvet: ..." line on standard error,
// returning kExitUsage. Both pass every text through the output net (for_output).
void print(const std::string& text);
int fail(const std::string& message);
// An error in the language of this run's messages (set_error_language), else in English.
int fail(const Error& error);
// An error's words in that language.
std::string error_text(const Error& error);
void set_error_language(kb::Lang lang);

// Every output passes here: the pattern net (redact::scrub_text), and with --redact-user the
// user's name and home replaced. `html`: the markers are written as HTML text (&lt;redacted&gt;).
std::string for_output(std::string_view text, bool html = false);
// --redact-user: on for this run.
void redact_user_names();
// The users --redact-user hides: the one running gpuvet, and the one of each snapshot read.
void redact_users_of(const std::map<std::string, std::string>& env);
// The identity variables of this process (USER, HOME ...).
std::map<std::string, std::string> process_identity_env();
// The users hidden in this run's outputs (none without --redact-user).
std::vector<redact::Identity> redacted_users();

// The language from the locale variables, as POSIX orders them (LC_ALL, LC_MESSAGES, LANG).
kb::Lang lang_from_environment();

// --kb, --lang and --no-color, as every verb that prints takes them.
struct CommonOptions {
  std::string kb_dir;
  std::string lang;
  bool no_color = false;
};
void add_common_options(CLI::App& command, CommonOptions& options);
// --lang and --no-color alone, for the verbs without a knowledge base (snapshot, completion): a
// global option given before any verb is accepted by all of them (CONTRACTS.md). The language of
// their errors is set from the arguments before the verb runs (app.cpp).
void add_language_options(CLI::App& command, CommonOptions& options);
// --format text|json|md and --json (the same as --format json), as every verb with formats takes.
void add_format_options(CLI::App& command, std::string& format, bool& json);

// The knowledge base (embedded, or overlaid with --kb DIR), its catalog in the language asked
// for, and whether to colour.
struct Context {
  kb::Kb kb;
  kb::Messages messages;
  bool color = false;
};
Result<Context> open_context(const CommonOptions& options);
// The embedded knowledge base, or it overlaid with a newer copy (--kb DIR).
Result<kb::Kb> load_kb(const std::string& directory);

// Native driver queries run in a child copy of this executable, stopped after a deadline
// (GPUVET_NATIVE_TIMEOUT_MS, default 10 s): one child for the whole run where every probe runs
// anyway, a child per question where few may be asked (which).
enum class NativeChildren { per_question, one_session };
sys::LiveOptions live_options(NativeChildren children = NativeChildren::one_session);
// This machine, or the snapshot file when one is given (its user is then redacted too).
Result<std::unique_ptr<sys::System>> open_system(
    const std::string& snapshot, NativeChildren children = NativeChildren::one_session);

// Now, as "2026-12-02T16:05:12Z".
std::string utc_now_iso8601();

}  // namespace gpuvet::cli
