#include "cli/app.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "bench/bench_child.hpp"
#include "cli/bench_verb.hpp"
#include "cli/explain_verb.hpp"
#include "cli/kb_verb.hpp"
#include "cli/plan_verb.hpp"
#include "core/paths.hpp"
#include "explain/signatures.hpp"
#include "platform/terminal.hpp"
#include "probes/probes.hpp"
#include "probes/snapshot_privacy.hpp"
#include "report/render_which.hpp"
#include "resolve/which.hpp"
#include "system/native_query.hpp"
#include "system/recording_system.hpp"
#include "system/redact.hpp"
#include "system/replay_system.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::cli {

namespace {

struct CheckOptions {
  std::string kb_dir;
  std::string snapshot;
  std::string format = "text";
  bool json = false;
  std::string lang;
  bool no_color = false;
  bool verify = false;
};

struct SnapshotOptions {
  std::string output;
};

struct WhichArgs {
  std::string kb_dir;
  std::vector<std::string> names;
  std::string from;
  std::vector<std::string> dll_dirs;
  std::string snapshot;
  bool json = false;
  std::string lang;
  bool no_color = false;
};

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

const char* env_or_null(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

// --redact-user, and the users it hides.
bool g_redact_user = false;
std::vector<redact::Identity> g_users;

std::vector<redact::Identity> redacted_users() {
  return g_redact_user ? g_users : std::vector<redact::Identity>{};
}

std::map<std::string, std::string> process_identity_env() {
  std::map<std::string, std::string> env;
  for (const char* name : {"USER", "USERNAME", "LOGNAME", "HOME", "USERPROFILE"}) {
    if (const char* value = env_or_null(name)) env[name] = value;
  }
  return env;
}

// A global option: taken out before CLI11 sees the verb's options, so it works before or after
// the verb. Not when it is the value of an option that takes text (explain --text).
bool take_redact_user(std::vector<std::string>& args) {
  bool found = false;
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--") break;
    if (args[i] == "--redact-user" && (i == 0 || args[i - 1] != "--text")) {
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
      found = true;
    } else {
      ++i;
    }
  }
  return found;
}

// Colour unless --no-color or NO_COLOR says no, or the terminal cannot show it.
bool use_color(bool no_color_flag) {
  return !no_color_flag && !env_or_null("NO_COLOR") && terminal_supports_colour();
}

// The embedded knowledge base, or it overlaid with a newer copy (--kb DIR).
Result<kb::Kb> load_kb(const std::string& directory) {
  auto kb = kb::Kb::embedded();
  if (!kb || directory.empty()) return kb;
  return kb->overlaid_with(directory);
}

// Native driver queries run in a child copy of this executable, stopped after a deadline
// (GPUVET_NATIVE_TIMEOUT_MS, default 10 s): one child for the whole run where every probe runs
// anyway, a child per question where few may be asked (which).
enum class NativeChildren { per_question, one_session };

sys::LiveOptions live_options(NativeChildren children = NativeChildren::one_session) {
  sys::LiveOptions options;
  options.native_helper = current_executable();
  options.native_session = children == NativeChildren::one_session;
  if (const char* ms = env_or_null("GPUVET_NATIVE_TIMEOUT_MS")) {
    const long long value = std::atoll(ms);
    if (value > 0) options.native_timeout = std::chrono::milliseconds(value);
  }
  return options;
}

int run_check(const CheckOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const std::string format = options.json ? "json" : options.format;
  const kb::Lang lang =
      options.lang.empty() ? lang_from_environment() : kb::lang_from_locale(options.lang);
  auto kb = load_kb(options.kb_dir);
  if (!kb) return fail(kb.error().message);
  auto messages = kb::Messages::load(*kb, lang);
  if (!messages) return fail(messages.error().message);

  std::unique_ptr<sys::System> system;
  if (!options.snapshot.empty()) {
    auto snapshot = sys::load_snapshot_file(options.snapshot);
    if (!snapshot) return fail(snapshot.error().message);
    redact_users_of(snapshot->env);
    system = std::make_unique<sys::ReplaySystem>(std::move(*snapshot));
  } else {
    system = sys::make_live_system(live_options());
  }
  auto report = diagnose(*system, *kb, *messages);
  if (!report) return fail(report.error().message);
  if (options.verify && options.snapshot.empty()) {
    if (auto finding = verify_finding(report->facts, *kb, *messages)) {
      const bool known = std::any_of(report->findings.begin(), report->findings.end(),
                                     [&](const Finding& f) { return f.id == finding->id; });
      if (!known) report->findings.push_back(std::move(*finding));
      report->summary = checks::summarize(report->facts, report->findings);
    }
  }
  report->elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();

  if (format == "json") {
    print(report::render_json(*report));
  } else if (format == "md") {
    print(report::render_md(*report, *messages));
  } else {
    const bool color = use_color(options.no_color);
    print(report::render_text(*report, *messages, color));
  }
  return report->summary.errors > 0 ? kExitFound : kExitOk;
}

int run_snapshot(const SnapshotOptions& options) {
  const auto live = sys::make_live_system(live_options());
  const sys::RecordingSystem recorder(*live);
  probes::collect_facts(recorder);
  sys::Snapshot recorded = recorder.recorded();
  recorded.taken_at = utc_now_iso8601();
  // The recorded environment names this machine's user too (HOME of a sudo'ed run, say).
  redact_users_of(recorded.env);
  const sys::Snapshot snapshot = probes::private_snapshot(recorded, {redacted_users()});
  if (options.output.empty() || options.output == "-") {
    print(sys::serialize_snapshot(snapshot));
    return kExitOk;
  }
  if (auto saved = sys::save_snapshot_file(snapshot, options.output); !saved) {
    return fail(fmt::format("cannot write snapshot {}", saved.error().message));
  }
  return kExitOk;
}

// --from relative to the current directory, as the process that loads it would have opened it;
// links are kept, as glibc keeps them in $ORIGIN.
std::string absolute_from(const std::string& from) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(paths::to_fs(from), ec);
  return ec ? from : paths::from_fs(absolute);
}

int run_which(const WhichArgs& args) {
  const kb::Lang lang =
      args.lang.empty() ? lang_from_environment() : kb::lang_from_locale(args.lang);
  auto kb = load_kb(args.kb_dir);
  if (!kb) return fail(kb.error().message);
  auto messages = kb::Messages::load(*kb, lang);
  if (!messages) return fail(messages.error().message);

  std::unique_ptr<sys::System> system;
  resolve::WhichRequest request;
  request.names = args.names;
  request.dll_directories = args.dll_dirs;
  resolve::WhichOptions options;
  if (!args.snapshot.empty()) {
    auto snapshot = sys::load_snapshot_file(args.snapshot);
    if (!snapshot) return fail(snapshot.error().message);
    redact_users_of(snapshot->env);
    system = std::make_unique<sys::ReplaySystem>(std::move(*snapshot));
    options.elf_headers = resolve::ElfHeaders::from_snapshot;
    if (!args.from.empty()) request.from = args.from;
  } else {
    system = sys::make_live_system(live_options(NativeChildren::per_question));
    if (!args.from.empty()) request.from = absolute_from(args.from);
  }
  auto report = resolve::which(*system, request, options);
  if (!report) {
    return fail(messages->text("which.error.from",
                               {{"path", args.from}, {"error", report.error().message}}));
  }
  if (args.json) {
    print(report::render_which_json(*report));
  } else {
    const bool color = use_color(args.no_color);
    print(report::render_which_text(*report, *messages, color));
  }
  return report->all_resolved() ? kExitOk : kExitFound;
}

// `gpuvet`, `gpuvet --json` and `gpuvet --snapshot F` mean `gpuvet check ...`.
std::vector<std::string> with_default_verb(std::vector<std::string> args) {
  const bool top_level_flag =
      !args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "--version");
  if (args.empty() || (args[0].starts_with("-") && !top_level_flag)) {
    args.insert(args.begin(), "check");
  }
  return args;
}

// An empty value (--gpu "") is a usage error for every option and argument that takes one, in
// every verb: taken as given, it would read as "not given" and be silently ignored.
void refuse_empty_values(CLI::App& app) {
  const CLI::Validator non_empty(
      [](const std::string& value) {
        return value.empty() ? std::string("must not be empty") : std::string();
      },
      "", "NONEMPTY");
  for (CLI::Option* option : app.get_options()) {
    if (option->get_items_expected_max() > 0) option->check(non_empty);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    refuse_empty_values(*sub);
}

}  // namespace

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
  write_stdout(for_output(text));
}

int fail(const std::string& message) {
  std::fprintf(stderr, "gpuvet: %s\n", for_output(message).c_str());
  return kExitUsage;
}

std::string tool_name() {
  return fmt::format("gpuvet {}", GPUVET_VERSION);
}

std::string version_text() {
  auto kb = kb::Kb::embedded();
  return fmt::format("{} (knowledge base {})", tool_name(), kb ? kb->version() : "unreadable");
}

// --lang's help, as lang_from_environment decides.
constexpr const char* kLangHelp =
    "Language (default: from LC_ALL / LC_MESSAGES / LANG; on Windows, else its display language)";

kb::Lang lang_from_environment() {
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    if (const char* value = env_or_null(name)) return kb::lang_from_locale(value);
  }
  // Windows sets none of them: its user's display language decides there.
  if (const auto locale = user_locale()) return kb::lang_from_locale(*locale);
  return kb::Lang::en;
}

Result<report::Report> diagnose(const sys::System& system, const kb::Kb& kb,
                                const kb::Messages& messages) {
  report::Report report;
  report.tool = tool_name();
  report.kb_version = kb.version();
  report.facts = probes::collect_facts(system, kb);
  const checks::CheckContext context(report.facts, kb, messages);
  auto findings = checks::run_checks(context);
  if (!findings) return findings.error();
  report.findings = std::move(*findings);
  report.summary = checks::summarize(report.facts, report.findings);
  return report;
}

int run(std::vector<std::string> args) {
  prepare_console();
  // The benchmark child (hidden): its arguments are the parent's, not a user's.
  if (!args.empty() && args.front() == bench::kBenchVerb) {
    return run_bench_child_verb(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  CLI::App app{
      "gpuvet checks every layer of a GPU deep-learning stack: hardware, driver, CUDA, "
      "cuDNN, Python environments and frameworks.",
      "gpuvet"};
  // Asked only when --version is given: no child process pays for it.
  app.set_version_flag("--version", std::function<std::string()>(version_text));
  // One syntax everywhere: CLI11 would take "/path" for a "/option" on Windows.
  app.allow_windows_style_options(false);
  app.require_subcommand(0, 1);

  CheckOptions check;
  CLI::App* check_cmd =
      app.add_subcommand("check", "Check every layer in fault-tree order (the default verb)");
  check_cmd->add_option("--snapshot", check.snapshot,
                        "Diagnose a snapshot file instead of this machine");
  check_cmd->add_option("--format", check.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "md"}));
  check_cmd->add_flag("--json", check.json, "Same as --format json");
  check_cmd->add_option("--lang", check.lang, kLangHelp)->check(CLI::IsMember({"en", "zh"}));
  check_cmd->add_flag("--no-color", check.no_color, "No colour (also: NO_COLOR set)");
  check_cmd->add_option("--kb", check.kb_dir, "Use a newer knowledge base: a copy of data/");
  check_cmd->add_flag("--verify", check.verify,
                      "Also run gpuvet verify on the GPU; a failure is a runtime finding");

  BenchArgs bench_args;
  std::string bench_kb_dir;
  std::string bench_lang;
  bool bench_no_color = false;
  CLI::App* verify_cmd = app.add_subcommand(
      "verify", "Prove the GPU computes: a kernel, copies and a GEMM, checked (a few seconds)");
  CLI::App* bench_cmd = app.add_subcommand(
      "bench", "Measure bandwidth, GEMM and convolution against the GPU's own peak");
  for (CLI::App* cmd : {verify_cmd, bench_cmd}) {
    cmd->add_flag("--json", bench_args.json, "JSON output (gpuvet.bench/1)");
    cmd->add_option("--kb", bench_kb_dir, "Use a newer knowledge base: a copy of data/");
    cmd->add_option("--lang", bench_lang, kLangHelp)->check(CLI::IsMember({"en", "zh"}));
    cmd->add_flag("--no-color", bench_no_color, "No colour (also: NO_COLOR set)");
  }
  bench_cmd->add_flag("--quick", bench_args.quick, "Smaller sizes and fewer repetitions");
  bench_cmd->add_option("--html", bench_args.html,
                        "Also write a self-contained HTML page with the charts to FILE");

  SnapshotOptions snapshot;
  CLI::App* snapshot_cmd = app.add_subcommand(
      "snapshot", "Record what the probes read on this machine, secrets redacted");
  snapshot_cmd->add_option("-o,--output", snapshot.output,
                           "Write to FILE (gzip-compressed when it ends in .gz; default: stdout)");

  WhichArgs which;
  CLI::App* which_cmd = app.add_subcommand(
      "which",
      "Which file the dynamic loader would load for each library name, and the copies "
      "it shadows");
  which_cmd->add_option("NAME", which.names, "Library names (libcudnn.so.9) or paths")->required();
  which_cmd->add_option("--from", which.from,
                        "The module that loads them: its RPATH/RUNPATH and $ORIGIN apply (Linux); "
                        "the .exe, or a Python extension module (Windows)");
  which_cmd->add_option("--dll-dir", which.dll_dirs,
                        "Windows: a folder added with os.add_dll_directory / AddDllDirectory");
  which_cmd->add_option("--snapshot", which.snapshot, "Answer for a snapshot file");
  which_cmd->add_flag("--json", which.json, "JSON output (gpuvet.which/1)");
  which_cmd->add_option("--lang", which.lang, kLangHelp)->check(CLI::IsMember({"en", "zh"}));
  which_cmd->add_flag("--no-color", which.no_color, "No colour (also: NO_COLOR set)");
  which_cmd->add_option("--kb", which.kb_dir, "Use a newer knowledge base: a copy of data/");

  ExplainArgs explain_args;
  std::string explain_kb_dir;
  std::string explain_lang;
  bool explain_no_color = false;
  CLI::App* explain_cmd = app.add_subcommand(
      "explain", "From an error message or a whole log to the real cause, checked on this machine");
  explain_cmd->add_option("FILE", explain_args.input, "The log (\"-\": standard input)");
  explain_cmd->add_option("--text", explain_args.text, "The message itself");
  explain_cmd->add_option("--snapshot", explain_args.snapshot,
                          "Confirm against a snapshot instead of this machine");
  explain_cmd->add_flag("--no-facts", explain_args.no_facts, "Read the text only");
  explain_cmd->add_flag("--json", explain_args.json, "JSON output (gpuvet.explain/1)");
  explain_cmd->add_option("--kb", explain_kb_dir, "Use a newer knowledge base: a copy of data/");
  explain_cmd->add_option("--lang", explain_lang, kLangHelp)->check(CLI::IsMember({"en", "zh"}));
  explain_cmd->add_flag("--no-color", explain_no_color, "No colour (also: NO_COLOR set)");
  bool export_patterns = false;  // hidden: the benchmark's grep baseline
  explain_cmd->add_flag("--export-patterns", export_patterns, "")->group("");

  PlanArgs plan_args;
  std::string plan_kb_dir;
  std::string plan_lang;
  bool plan_no_color = false;
  CLI::App* plan_cmd = app.add_subcommand(
      "plan",
      "The framework, CUDA, cuDNN, Python and driver versions that go together, with steps");
  plan_cmd
      ->add_option("FRAMEWORK", plan_args.spec,
                   "tensorflow, torch (pytorch) or jax, optionally ==VERSION (a prefix)")
      ->required();
  plan_cmd->add_option("--os", plan_args.os, "windows, linux or wsl2 (default: this machine's)")
      ->check(CLI::IsMember({"windows", "linux", "wsl2"}));
  auto* plan_gpu = plan_cmd->add_option("--gpu", plan_args.gpu, "A GPU by name (\"RTX 3060\")");
  plan_cmd->add_option("--cc", plan_args.cc, "The GPU's compute capability, X.Y")
      ->excludes(plan_gpu);
  plan_cmd->add_option("--driver", plan_args.driver, "The NVIDIA driver version");
  plan_cmd->add_option("--python", plan_args.python, "The Python version, X.Y");
  plan_cmd->add_option("--cuda", plan_args.cuda, "Only builds for this CUDA version, X.Y");
  plan_cmd->add_option("--snapshot", plan_args.snapshot,
                       "Take what is not given from a snapshot instead of this machine");
  plan_cmd->add_option("--write", plan_args.write_dir,
                       "Write environment.yml, requirements.txt and an activation script there");
  plan_cmd->add_flag("--force", plan_args.force,
                     "With --write: replace those files when they are already there");
  plan_cmd->add_flag("--json", plan_args.json, "JSON output (gpuvet.plan/1)");
  plan_cmd->add_option("--kb", plan_kb_dir, "Use a newer knowledge base: a copy of data/");
  plan_cmd->add_option("--lang", plan_lang, kLangHelp)->check(CLI::IsMember({"en", "zh"}));
  plan_cmd->add_flag("--no-color", plan_no_color, "No colour (also: NO_COLOR set)");

  KbArgs kb_args;
  std::string kb_dir;
  std::string kb_lang;
  bool kb_no_color = false;
  CLI::App* kb_cmd = app.add_subcommand(
      "kb", "Ask the knowledge base: a GPU, a CUDA or cuDNN version, a framework's builds");
  kb_cmd->require_subcommand(1);
  const std::vector<std::pair<std::string, std::string>> topics = {
      {"gpu", "A GPU by name (\"RTX 3060\"): compute capability, architecture, what runs on it"},
      {"cuda",
       "A CUDA version (10.1): its releases, minimum drivers, architectures, library names"},
      {"cudnn", "A cuDNN version (8.9): the CUDA versions it supports and its library names"},
      {"framework",
       "FRAMEWORK[==VERSION] (tensorflow==2.1, torch): tested builds and minimum "
       "compute capability"}};
  for (const auto& [topic, description] : topics) {
    CLI::App* sub = kb_cmd->add_subcommand(topic, description);
    sub->add_option("ARGUMENT", kb_args.argument, "What to look up")->required();
    sub->fallthrough();
    sub->callback([&kb_args, name = topic] { kb_args.topic = name; });
  }
  kb_cmd->add_flag("--json", kb_args.json, "JSON output (gpuvet.kb/1)");
  kb_cmd->add_option("--kb", kb_dir, "Use a newer knowledge base: a copy of data/");
  kb_cmd->add_option("--lang", kb_lang, kLangHelp)->check(CLI::IsMember({"en", "zh"}));
  kb_cmd->add_flag("--no-color", kb_no_color, "No colour (also: NO_COLOR set)");
  kb_cmd->fallthrough();

  // Hidden: the child process of a native query (see gpu/native_query.hpp).
  std::string native_library;
  CLI::App* native_cmd = app.add_subcommand(gpu::kNativeQueryVerb, "")->group("");
  native_cmd->add_option("--load", native_library);
  bool native_serve = false;
  native_cmd->add_flag(gpu::kNativeServeFlag, native_serve);

  g_redact_user = take_redact_user(args);
  if (g_redact_user) redact_users_of(process_identity_env());
  bool redact_user_help = false;  // the flag is taken out above; this lists it in --help
  app.add_flag("--redact-user", redact_user_help,
               "Replace the user name and home directory in every output (any verb)");
  refuse_empty_values(app);
  args = with_default_verb(std::move(args));
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed list
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(fmt::format("{} (see gpuvet --help)", e.what()));
  }
  if (*snapshot_cmd) return run_snapshot(snapshot);
  if (*which_cmd) return run_which(which);
  if (*explain_cmd && export_patterns) {
    auto kb = load_kb(explain_kb_dir);
    if (!kb) return fail(kb.error().message);
    auto signatures = explain::Signatures::load(*kb);
    if (!signatures) return fail(signatures.error().message);
    for (const auto& s : signatures->all())
      print(explain::to_grep_pattern(s.pattern) + "\n");
    return kExitOk;
  }
  if (*explain_cmd) {
    auto kb = load_kb(explain_kb_dir);
    if (!kb) return fail(kb.error().message);
    const kb::Lang lang =
        explain_lang.empty() ? lang_from_environment() : kb::lang_from_locale(explain_lang);
    auto messages = kb::Messages::load(*kb, lang);
    if (!messages) return fail(messages.error().message);
    explain_args.has_text = explain_cmd->count("--text") > 0;
    if (explain_args.has_text == !explain_args.input.empty()) {
      return fail(messages->text("explain.error.input"));
    }
    std::unique_ptr<sys::System> system;
    if (!explain_args.snapshot.empty()) {
      auto snapshot = sys::load_snapshot_file(explain_args.snapshot);
      if (!snapshot) return fail(snapshot.error().message);
      redact_users_of(snapshot->env);
      system = std::make_unique<sys::ReplaySystem>(std::move(*snapshot));
    } else if (!explain_args.no_facts) {
      system = sys::make_live_system(live_options());
    }
    const bool color = use_color(explain_no_color);
    return run_explain(explain_args, *kb, *messages, system.get(), color);
  }
  if (*verify_cmd || *bench_cmd) {
    auto kb = load_kb(bench_kb_dir);
    if (!kb) return fail(kb.error().message);
    const kb::Lang lang =
        bench_lang.empty() ? lang_from_environment() : kb::lang_from_locale(bench_lang);
    auto messages = kb::Messages::load(*kb, lang);
    if (!messages) return fail(messages.error().message);
    bench_args.verify = verify_cmd->parsed();
    const bool color = use_color(bench_no_color);
    return run_bench(bench_args, *kb, *messages, color);
  }
  if (*plan_cmd) {
    auto kb = load_kb(plan_kb_dir);
    if (!kb) return fail(kb.error().message);
    const kb::Lang lang =
        plan_lang.empty() ? lang_from_environment() : kb::lang_from_locale(plan_lang);
    auto messages = kb::Messages::load(*kb, lang);
    if (!messages) return fail(messages.error().message);
    const auto open_system = [&]() -> Result<std::unique_ptr<sys::System>> {
      if (plan_args.snapshot.empty()) return sys::make_live_system(live_options());
      auto snapshot = sys::load_snapshot_file(plan_args.snapshot);
      if (!snapshot) return snapshot.error();
      redact_users_of(snapshot->env);
      return std::unique_ptr<sys::System>(
          std::make_unique<sys::ReplaySystem>(std::move(*snapshot)));
    };
    const bool color = use_color(plan_no_color);
    return run_plan(plan_args, *kb, *messages, open_system, color);
  }
  if (*kb_cmd) {
    auto kb = load_kb(kb_dir);
    if (!kb) return fail(kb.error().message);
    const kb::Lang lang = kb_lang.empty() ? lang_from_environment() : kb::lang_from_locale(kb_lang);
    auto messages = kb::Messages::load(*kb, lang);
    if (!messages) return fail(messages.error().message);
    const bool color = use_color(kb_no_color);
    return run_kb(kb_args, *kb, *messages, color);
  }
  if (*native_cmd && native_serve) return gpu::serve_native_queries();
  if (*native_cmd) {
    // For the parent to read, not a user: past the output net, byte for byte.
    write_stdout(std::string("@result\n") +
                 gpu::run_native_query(native_library.empty()
                                           ? std::nullopt
                                           : std::optional<std::string>(native_library)));
    return kExitOk;
  }
  return run_check(check);
}

}  // namespace gpuvet::cli
