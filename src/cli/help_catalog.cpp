#include "cli/help_catalog.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>

namespace gpuvet::cli {

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string command_path(const CLI::App& command) {
  std::string path;
  for (const CLI::App* at = &command; at && at->get_parent(); at = at->get_parent()) {
    path = path.empty() ? at->get_name() : at->get_name() + "." + path;
  }
  return path;
}

bool visible(const CLI::App& command) {
  return !command.get_group().empty();
}

std::vector<CLI::App*> subcommands_of(CLI::App& app) {
  return app.get_subcommands([](CLI::App*) { return true; });
}

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

const CLI::Option* option_named(const CLI::App& command, const std::string& name) {
  for (const CLI::App* at = &command; at; at = at->get_parent()) {
    for (const CLI::Option* option : at->get_options()) {
      if (option->check_name(name) || option->get_name() == name) return option;
    }
  }
  return nullptr;
}

std::string metavar_of(const CLI::Option& option) {
  if (!option.get_option_text().empty()) return option.get_option_text();
  const std::string type = option.get_type_name();
  return type.substr(0, type.find(':'));
}

// CLI11 writes "--lang: fr not in {en,zh}", "FRAMEWORK is required": the option it names first.
std::string named_option(const std::string& message) {
  const size_t end = message.find_first_of(": ");
  return message.substr(0, end);
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words)
    text += (text.empty() ? "" : " ") + word;
  return text;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from == to) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

std::string command_words(const CLI::App& command) {
  const std::string path = command_path(command);
  std::string words = "gpuvet";
  for (char c : path)
    words += c == '.' ? ' ' : c;
  if (!path.empty()) words.insert(6, " ");
  return words;
}

const CLI::App& deepest_parsed(const CLI::App& app) {
  const CLI::App* deepest = &app;
  while (!deepest->get_subcommands().empty())
    deepest = deepest->get_subcommands().front();
  return *deepest;
}

std::string help_text(const CLI::App& command, const kb::Messages& m) {
  std::string text = command.get_formatter()->make_help(&command, command_words(command),
                                                        CLI::AppFormatMode::Normal);
  // CLI11 puts an ASCII colon after its labels; Chinese text takes a full-width one.
  const std::string colon = m.text("cli.label.colon");
  if (colon == ":") return text;
  for (const char* key : {"cli.label.options", "cli.label.positionals", "cli.label.subcommands"})
    replace_all(text, "\n" + m.text(key) + ":\n", "\n" + m.text(key) + colon + "\n");
  replace_all(text, m.text("cli.label.usage") + ": ", m.text("cli.label.usage") + colon);
  for (const char* key : {"cli.label.excludes", "cli.label.needs"})
    replace_all(text, " " + m.text(key) + ":", " " + m.text(key) + colon);
  return text;
}

std::string help_of_parsed(const CLI::App& app, const kb::Messages& m) {
  return help_text(deepest_parsed(app), m);
}

std::string help_key(const CLI::App& command) {
  const std::string path = command_path(command);
  return "help." + (path.empty() ? std::string("gpuvet") : path);
}

std::string help_key(const CLI::App& command, const CLI::Option& option) {
  std::string name =
      option.get_positional() ? lower(option.get_name()) : option.get_lnames().front();
  std::replace(name.begin(), name.end(), '-', '_');
  // The same option in every verb (common.hpp, and CLI11's own) says the same everywhere.
  for (const char* shared : {"help", "version", "kb", "lang", "no_color"}) {
    if (!option.get_positional() && name == shared) return "help.common." + name;
  }
  return help_key(command) + "." + name;
}

void describe_from_catalog(CLI::App& app, const kb::Messages& m) {
  if (m.has(help_key(app))) app.description(m.text(help_key(app)));
  for (CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    option->group(m.text(option->get_positional() ? "cli.label.positionals" : "cli.label.options"));
    if (m.has(help_key(app, *option))) option->description(m.text(help_key(app, *option)));
  }
  for (CLI::App* sub : subcommands_of(app)) {
    if (!visible(*sub)) continue;
    sub->group(m.text("cli.label.subcommands"));
    describe_from_catalog(*sub, m);
  }
  if (!app.get_parent()) {
    auto formatter = app.get_formatter();
    const std::pair<const char*, const char*> labels[] = {
        {"Usage", "cli.label.usage"},
        {"Positionals", "cli.label.positionals"},
        {"OPTIONS", "cli.label.options_badge"},
        {"SUBCOMMAND", "cli.label.subcommand"},
        {"SUBCOMMANDS", "cli.label.subcommands_badge"},
        {"REQUIRED", "cli.label.required"},
        {"Excludes", "cli.label.excludes"},
        {"Needs", "cli.label.needs"}};
    for (const auto& [label, key] : labels)
      formatter->label(label, m.text(key));
  }
}

std::vector<std::string> help_keys(const CLI::App& app) {
  std::vector<std::string> keys = {help_key(app)};
  for (const CLI::Option* option : app.get_options()) {
    if (!option->get_group().empty()) keys.push_back(help_key(app, *option));
  }
  for (const CLI::App* sub : subcommands_of(app)) {
    if (!visible(*sub)) continue;
    const auto below = help_keys(*sub);
    keys.insert(keys.end(), below.begin(), below.end());
  }
  return keys;
}

std::string usage_error(const CLI::ParseError& error, const CLI::App& app, const kb::Messages& m) {
  const CLI::App& command = deepest_parsed(app);
  const std::string where = command_words(command);
  const std::string message = error.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&error)) {
    return m.text("cli.error.extras",
                  {{"command", where}, {"arguments", joined(app.remaining(true))}});
  }
  const std::string name = named_option(message);
  const CLI::Option* option = option_named(command, name);
  if (dynamic_cast<const CLI::ValidationError*>(&error) && option) {
    if (message.find("must not be empty") != std::string::npos)
      return m.text("cli.error.empty", {{"command", where}, {"option", name}});
    return m.text("cli.error.value",
                  {{"command", where}, {"option", name}, {"metavar", metavar_of(*option)}});
  }
  if ((dynamic_cast<const CLI::ArgumentMismatch*>(&error) ||
       dynamic_cast<const CLI::ConversionError*>(&error)) &&
      option) {
    return m.text("cli.error.value",
                  {{"command", where}, {"option", name}, {"metavar", metavar_of(*option)}});
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error)) {
    if (option) {
      return m.text(
          "cli.error.required",
          {{"command", where}, {"what", option->get_positional() ? metavar_of(*option) : name}});
    }
    return m.text("cli.error.verb_required", {{"command", where}});
  }
  if (dynamic_cast<const CLI::ExcludesError*>(&error)) {
    const size_t excludes = message.find(" excludes ");
    const std::string other =
        excludes == std::string::npos ? std::string() : message.substr(excludes + 10);
    return m.text("cli.error.excludes", {{"command", where}, {"option", name}, {"other", other}});
  }
  return m.text("cli.error.other", {{"command", where}, {"detail", message}});
}

}  // namespace gpuvet::cli
