#include "cli/app.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>

#include "bench/bench_child.hpp"
#include "cli/arguments.hpp"
#include "cli/bench_verb.hpp"
#include "cli/command_model.hpp"
#include "cli/common.hpp"
#include "cli/help_catalog.hpp"
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
    CLI::App* command = app.add_subcommand(std::string(verb.name));
    if (verb.hidden) command->group("");
    declared.push_back({command, verb.declare(*command)});
  }
  return declared;
}

// The exit statuses of a verb as CONTRACTS.md lists them, below its --help.
std::string exit_status_footer(const std::string& verb, const kb::Messages& m) {
  const std::string row = m.has(fmt::format("cli.exit.{}.0", verb)) ? verb : "other";
  std::string footer = m.text("cli.exit.title");
  for (int status = 0; status <= 2; ++status) {
    footer += fmt::format("\n  {}  {}", status, m.text(fmt::format("cli.exit.{}.{}", row, status)));
  }
  return footer;
}

void add_footers(CLI::App& app, const std::vector<DeclaredVerb>& declared, const kb::Messages& m) {
  app.footer(m.text("cli.footer"));
  for (const DeclaredVerb& verb : declared) {
    const std::string name = verb.command->get_name();
    verb.command->footer(exit_status_footer(name, m));
    for (CLI::App* sub : verb.command->get_subcommands([](CLI::App*) { return true; })) {
      // A sub-verb with statuses of its own (fleet collect), else its verb's.
      const std::string own = name + "." + sub->get_name();
      sub->footer(exit_status_footer(m.has("cli.exit." + own + ".0") ? own : name, m));
    }
  }
}

std::vector<std::string> visible_verbs(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  }
  return names;
}

// A first word that is no verb: a typo, most likely (`gpuvet chek`).
std::optional<std::string> unknown_verb_error(const CLI::App& app,
                                              const std::vector<std::string>& args,
                                              const kb::Messages& m) {
  if (args.empty() || args[0].starts_with("-")) return std::nullopt;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == args[0]) return std::nullopt;
  }
  if (const auto nearest = nearest_name(args[0], visible_verbs(app))) {
    return m.text("cli.unknown_verb.did_you_mean",
                  {{"verb", args[0]}, {"command", "gpuvet"}, {"suggestion", *nearest}});
  }
  return m.text("cli.unknown_verb", {{"verb", args[0]}, {"command", "gpuvet"}});
}

// "--jsn" given to check: "did you mean --json?"; nullopt when no option is near.
std::optional<std::string> unknown_option_error(const CLI::App& app, const kb::Messages& m) {
  const CLI::App* verb = &deepest_parsed(app);  // where the unexpected option was given
  std::vector<std::string> names;
  for (const CLI::Option* option : verb->get_options()) {
    if (option->get_group().empty()) continue;
    for (const std::string& name : option->get_lnames())
      names.push_back("--" + name);
  }
  for (const std::string& extra : app.remaining(true)) {
    if (!extra.starts_with("--")) continue;
    const std::string typed = extra.substr(0, extra.find('='));
    if (const auto nearest = nearest_name(typed, names)) {
      return m.text(
          "cli.unknown_option.did_you_mean",
          {{"option", typed}, {"command", command_words(*verb)}, {"suggestion", *nearest}});
    }
  }
  return std::nullopt;
}

// The catalog for messages printed before a verb runs; English when the knowledge base cannot
// be read (the verb then reports that).
kb::Messages early_messages(const std::vector<std::string>& args) {
  const kb::Lang lang = lang_of_arguments(args, lang_from_environment());
  if (auto kb = kb::Kb::embedded()) {
    if (auto messages = kb::Messages::load(*kb, lang)) return std::move(*messages);
  }
  return kb::Messages{};
}

std::vector<DeclaredVerb> declare_command_line(CLI::App& app, const kb::Messages& messages) {
  // Asked only when --version is given: no child process pays for it.
  app.set_version_flag("--version", std::function<std::string()>(version_text));
  // One syntax everywhere: CLI11 would take "/path" for a "/option" on Windows.
  app.allow_windows_style_options(false);
  app.require_subcommand(0, 1);
  std::vector<DeclaredVerb> declared = declare_verbs(app);
  add_footers(app, declared, messages);
  // Taken out of the arguments before parsing (take_redact_user); declared for --help.
  app.add_flag("--redact-user");
  refuse_empty_values(app);
  describe_from_catalog(app, messages);
  return declared;
}

}  // namespace

CommandModel command_line_model(const kb::Messages& messages) {
  CLI::App app{"", "gpuvet"};
  declare_command_line(app, messages);
  return describe_command_line(app);
}

int run(std::vector<std::string> args) {
  platform::prepare_console();
  // The benchmark child (hidden): its arguments are the parent's, not a user's.
  if (!args.empty() && args.front() == bench::kBenchVerb) {
    return run_bench_child_verb(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  CLI::App app{"", "gpuvet"};  // its description: help.gpuvet
  const kb::Messages messages = early_messages(args);
  set_error_language(messages.lang());
  const std::vector<DeclaredVerb> declared = declare_command_line(app, messages);
  if (take_redact_user(args)) redact_user_names();
  args = with_default_verb(hoist_global_options(std::move(args)));
  if (auto error = unknown_verb_error(app, args, messages)) return fail(*error);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed list
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    print(help_of_parsed(app, messages));
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    print(help_of_parsed(app, messages));
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    if (auto error = unknown_option_error(app, messages)) return fail(*error);
    return fail(usage_error(e, app, messages));
  } catch (const CLI::ParseError& e) {
    return fail(usage_error(e, app, messages));
  }
  for (const DeclaredVerb& verb : declared) {
    if (verb.command->parsed()) return verb.run();
  }
  return declared.front().run();  // check, the default verb
}

}  // namespace gpuvet::cli
