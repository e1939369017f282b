// `gpuvet help [VERB [SUB-VERB]]` and `gpuvet completion SHELL`: both read the verbs' own
// declarations (command_model.hpp), so neither repeats what --help says.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "cli/arguments.hpp"
#include "cli/command_model.hpp"
#include "cli/common.hpp"
#include "cli/completion.hpp"
#include "cli/help_catalog.hpp"
#include "cli/man_page.hpp"
#include "cli/verb.hpp"
#include "frameworks/framework.hpp"
#include "pipeline/diagnose.hpp"

namespace gpuvet::cli {

namespace {

struct HelpOptions {
  CommonOptions common;
  std::vector<std::string> verbs;
  bool man = false;
};

std::vector<std::string> verb_names(const CommandModel& command) {
  std::vector<std::string> names;
  for (const CommandModel& sub : command.subcommands)
    names.push_back(sub.name);
  return names;
}

// "2026.11.30" -> "2026-11-30": the date the man page carries.
std::string kb_date(const kb::Kb& kb) {
  std::string date = kb.version();
  for (char& c : date) {
    if (c == '.') c = '-';
  }
  return date;
}

int run_help(const CLI::App& root, const HelpOptions& options) {
  auto context = open_context(options.common);
  if (!context) return fail(context.error());
  const CommandModel command_line = describe_command_line(root);
  if (options.man) {
    print(render_man_page(command_line, context->messages, pipeline::tool_name(),
                          kb_date(context->kb)));
    return kExitOk;
  }
  const CLI::App* target = &root;
  const CommandModel* model = &command_line;
  std::string name = "gpuvet";  // "gpuvet fleet report": as the usage line names it
  for (const std::string& verb : options.verbs) {
    const CommandModel* sub = model->subcommand(verb);
    if (!sub) {
      const auto nearest = nearest_name(verb, verb_names(*model));
      return fail(nearest ? context->messages.text(
                                "cli.unknown_verb.did_you_mean",
                                {{"verb", verb}, {"command", name}, {"suggestion", *nearest}})
                          : context->messages.text("cli.unknown_verb",
                                                   {{"verb", verb}, {"command", name}}));
    }
    name += " " + verb;
    target = target->get_subcommand(verb);
    model = sub;
  }
  print(help_text(*target, context->messages));
  return kExitOk;
}

std::vector<std::string> framework_names() {
  std::vector<std::string> names;
  for (const frameworks::Framework* framework : frameworks::all()) {
    names.emplace_back(framework->family);
    for (std::string_view alias : framework->aliases)
      names.emplace_back(alias);
  }
  return names;
}

}  // namespace

VerbRun declare_help(CLI::App& command) {
  auto options = std::make_shared<HelpOptions>();
  command.add_option("VERB", options->verbs)->type_name("");  // its name says it
  command.add_flag("--man", options->man)->group("");         // the man page, in roff, for builds
  add_common_options(command, options->common);
  const CLI::App* root = command.get_parent();
  return [options, root] { return run_help(*root, *options); };
}

VerbRun declare_completion(CLI::App& command) {
  auto shell = std::make_shared<std::string>();
  auto language = std::make_shared<CommonOptions>();
  std::string shells;
  for (const std::string& name : completion_shells())
    shells += (shells.empty() ? "" : "|") + name;
  command.add_option("SHELL", *shell)
      ->required()
      ->check(CLI::IsMember(completion_shells()))
      ->option_text(shells);
  add_language_options(command, *language);
  const CLI::App* root = command.get_parent();
  return [shell, root, language] {
    auto script = completion_script(*shell, describe_command_line(*root), framework_names());
    if (!script) return fail(script.error());
    print(*script);
    return kExitOk;
  };
}

}  // namespace gpuvet::cli
