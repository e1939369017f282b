#include "cli/common.hpp"

#include <chrono>

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>

#include "platform/terminal.hpp"
#include "system/replay_system.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::cli {

namespace {

const char* env_or_null(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

// --redact-user, and the users it hides.
bool g_redact_user = false;
std::vector<redact::Identity> g_users;

// Colour unless --no-color or NO_COLOR says no, or the terminal cannot show it.
bool use_color(bool no_color_flag) {
  return !no_color_flag && !env_or_null("NO_COLOR") && platform::terminal_supports_colour();
}

}  // namespace

std::vector<redact::Identity> redacted_users() {
  return g_redact_user ? g_users : std::vector<redact::Identity>{};
}

void redact_user_names() {
  g_redact_user = true;
  redact_users_of(process_identity_env());
}

std::map<std::string, std::string> process_identity_env() {
  std::map<std::string, std::string> env;
  for (const char* name : {"USER", "USERNAME", "LOGNAME", "HOME", "USERPROFILE"}) {
    if (const char* value = env_or_null(name)) env[name] = value;
  }
  return env;
}

void redact_users_of(const std::map<std::string, std::string>& env) {
  const redact::Identity id = redact::identity_of(env);
  if (id.user.empty() && id.home.empty()) return;
  for (const auto& known : g_users) {
    if (known.user == id.user && known.home == id.home) return;
  }
  g_users.push_back(id);
}

std::string for_output(std::string_view text, bool html) {
  const std::string redacted = html ? "&lt;redacted&gt;" : redact::kRedacted;
  return redact::redact_user(redact::scrub_text(text, redacted), redacted_users(),
                             html ? "&lt;user&gt;" : "<user>");
}

void print(const std::string& text) {
  platform::write_stdout(for_output(text));
}

int fail(const std::string& message) {
  std::fprintf(stderr, "gpuvet: %s\n", for_output(message).c_str());
  return kExitUsage;
}

namespace {
kb::Lang g_error_lang = kb::Lang::en;
}  // namespace

void set_error_language(kb::Lang lang) {
  g_error_lang = lang;
}

std::string error_text(const Error& error) {
  auto kb = kb::Kb::embedded();
  auto messages = kb ? kb::Messages::load(*kb, g_error_lang) : Result<kb::Messages>(kb.error());
  return messages ? kb::render_error(error, *messages) : error.message;
}

int fail(const Error& error) {
  return fail(error_text(error));
}

kb::Lang lang_from_environment() {
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    if (const char* value = env_or_null(name)) return kb::lang_from_locale(value);
  }
  // Windows sets none of them: its user's display language decides there.
  if (const auto locale = platform::user_locale()) return kb::lang_from_locale(*locale);
  return kb::Lang::en;
}

void add_common_options(CLI::App& command, CommonOptions& options) {
  command.add_option("--kb", options.kb_dir)->type_name("DIR");
  add_language_options(command, options);
}

void add_language_options(CLI::App& command, CommonOptions& options) {
  command.add_option("--lang", options.lang)
      ->check(CLI::IsMember({"en", "zh"}))
      ->option_text("en|zh");
  command.add_flag("--no-color", options.no_color);
}

void add_format_options(CLI::App& command, std::string& format, bool& json) {
  command.add_option("--format", format)
      ->check(CLI::IsMember({"text", "json", "md"}))
      ->option_text("text|json|md");
  command.add_flag("--json", json);
}

Result<kb::Kb> load_kb(const std::string& directory) {
  auto kb = kb::Kb::embedded();
  if (!kb || directory.empty()) return kb;
  return kb->overlaid_with(directory);
}

Result<Context> open_context(const CommonOptions& options) {
  auto kb = load_kb(options.kb_dir);
  if (!kb) return kb.error();
  const kb::Lang lang =
      options.lang.empty() ? lang_from_environment() : kb::lang_from_locale(options.lang);
  auto messages = kb::Messages::load(*kb, lang);
  if (!messages) return messages.error();
  return Context{std::move(*kb), std::move(*messages), use_color(options.no_color)};
}

sys::LiveOptions live_options(NativeChildren children) {
  sys::LiveOptions options;
  options.native_helper = platform::current_executable();
  options.native_session = children == NativeChildren::one_session;
  if (const char* ms = env_or_null("GPUVET_NATIVE_TIMEOUT_MS")) {
    const long long value = std::atoll(ms);
    if (value > 0) options.native_timeout = std::chrono::milliseconds(value);
  }
  return options;
}

Result<std::unique_ptr<sys::System>> open_system(const std::string& snapshot,
                                                 NativeChildren children) {
  if (snapshot.empty()) return sys::make_live_system(live_options(children));
  auto loaded = sys::load_snapshot_file(snapshot);
  if (!loaded) return loaded.error();
  redact_users_of(loaded->env);
  return std::unique_ptr<sys::System>(std::make_unique<sys::ReplaySystem>(std::move(*loaded)));
}

std::string utc_now_iso8601() {
  using namespace std::chrono;
  const auto now = floor<seconds>(system_clock::now());
  const auto day = floor<days>(now);
  const year_month_day date{day};
  const hh_mm_ss time{now - day};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                     time.hours().count(), time.minutes().count(), time.seconds().count());
}

}  // namespace gpuvet::cli
