#include "cli/command_model.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

#include "cli/help_catalog.hpp"

namespace gpuvet::cli {

namespace {

bool is_choice_word(const std::string& word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
}

ValueKind kind_of(const std::string& metavar) {
  if (metavar.empty()) return ValueKind::none;
  if (!choices_of(metavar).empty()) return ValueKind::choice;
  // FILE, FILE|-, DIR, DIR|ZIP-FILE, FRAMEWORK[==VERSION], VERB: a file where one may be given.
  if (metavar.find("FILE") != std::string::npos) return ValueKind::file;
  const std::string word = metavar.substr(0, metavar.find_first_of("|[.="));
  if (word == "DIR" || word == "PATH") return ValueKind::directory;
  if (word == "FRAMEWORK") return ValueKind::framework;
  if (word == "VERB") return ValueKind::verb;
  return ValueKind::text;
}

OptionModel describe_option(const CLI::App& command, const CLI::Option& option) {
  OptionModel model;
  model.help_key = help_key(command, option);
  model.positional = option.get_positional();
  if (model.positional) {
    model.names.push_back(option.get_name());
  } else {
    for (const std::string& name : option.get_snames())
      model.names.push_back("-" + name);
    for (const std::string& name : option.get_lnames())
      model.names.push_back("--" + name);
  }
  if (option.get_items_expected_max() > 0) {
    // A list of choices is declared as the option's text (en|zh), anything else as its type
    // name (FILE); CLI11 appends its validators' descriptions to the latter.
    model.metavar = option.get_option_text();
    if (model.metavar.empty()) {
      const std::string type = option.get_type_name();
      model.metavar = type.substr(0, type.find(':'));
    }
    // A positional named for what it is (DIR, NAME) declares no type name of its own.
    if (model.metavar.empty()) model.metavar = option.get_name();
  }
  model.kind = kind_of(model.metavar);
  if (model.kind == ValueKind::choice) model.choices = choices_of(model.metavar);
  model.help = option.get_description();
  return model;
}

}  // namespace

std::vector<std::string> choices_of(const std::string& metavar) {
  std::vector<std::string> choices;
  size_t start = 0;
  while (start <= metavar.size()) {
    const size_t bar = std::min(metavar.find('|', start), metavar.size());
    std::string word = metavar.substr(start, bar - start);
    if (!is_choice_word(word)) return {};
    choices.push_back(std::move(word));
    start = bar + 1;
  }
  return choices;
}

const CommandModel* CommandModel::subcommand(const std::string& verb) const {
  for (const CommandModel& sub : subcommands) {
    if (sub.name == verb) return &sub;
  }
  return nullptr;
}

CommandModel describe_command_line(const CLI::App& app) {
  CommandModel model;
  model.name = app.get_name();
  model.help = app.get_description();
  model.help_key = help_key(app);
  model.footer = app.get_footer();
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    model.options.push_back(describe_option(app, *option));
  }
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_group().empty()) continue;  // hidden
    model.subcommands.push_back(describe_command_line(*sub));
  }
  return model;
}

}  // namespace gpuvet::cli
