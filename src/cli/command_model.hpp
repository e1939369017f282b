#pragma once
// The command line as data, read from the CLI11 declarations of the verbs: what `gpuvet help`,
// the man page and the shell completions are made from, so that none is written twice.
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpuvet::cli {

// What an option's value is: how shells complete it.
enum class ValueKind { none, file, directory, choice, framework, verb, text };

struct OptionModel {
  std::vector<std::string> names;  // "-o", "--output"; a positional's is its metavariable
  std::string metavar;             // FILE, DIR, X.Y, en|zh; empty for a flag
  ValueKind kind = ValueKind::none;
  std::vector<std::string> choices;  // for ValueKind::choice
  std::string help;
  std::string help_key;  // its description's catalog key (help_catalog.hpp)
  bool positional = false;
};

struct CommandModel {
  std::string name;  // gpuvet, plan, report
  std::string help;
  std::string help_key;
  std::string footer;
  std::vector<OptionModel> options;       // the visible ones, positionals included, as declared
  std::vector<CommandModel> subcommands;  // the visible ones

  const CommandModel* subcommand(const std::string& verb) const;
};

// The visible verbs and options of `app` and its sub-verbs.
CommandModel describe_command_line(const CLI::App& app);

// en|zh -> {en, zh}; anything that is not a list of lower-case words -> {}.
std::vector<std::string> choices_of(const std::string& metavar);

}  // namespace gpuvet::cli
