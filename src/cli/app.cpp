#include "cli/app.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <functional>

#include "bench/bench_child.hpp"
#include "cli/bench_verb.hpp"
#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "pipeline/diagnose.hpp"
#include "platform/terminal.hpp"

namespace gpuvet::cli {

namespace {

std::string version_text() {
  auto kb = kb::Kb::embedded();
  return fmt::format("{} (knowledge base {})", pipeline::tool_name(),
                     kb ? kb->version() : "unreadable");
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

struct DeclaredVerb {
  CLI::App* command;
  VerbRun run;
};

std::vector<DeclaredVerb> declare_verbs(CLI::App& app) {
  std::vector<DeclaredVerb> declared;
  for (const Verb& verb : verbs()) {
    CLI::App* command = app.add_subcommand(std::string(verb.name), std::string(verb.help));
    if (verb.help.empty()) command->group("");
    declared.push_back({command, verb.declare(*command)});
  }
  return declared;
}

}  // namespace

int run(std::vector<std::string> args) {
  platform::prepare_console();
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
  const std::vector<DeclaredVerb> declared = declare_verbs(app);

  if (take_redact_user(args)) redact_user_names();
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
  for (const DeclaredVerb& verb : declared) {
    if (verb.command->parsed()) return verb.run();
  }
  return declared.front().run();  // check, the default verb
}

}  // namespace gpuvet::cli
