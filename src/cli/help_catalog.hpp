#pragma once
// The words of --help, the man page and usage errors, from the message catalogs: every verb's and
// option's description under help.<verb>[.<sub-verb>].<option>, CLI11's own labels, and parse
// errors rebuilt from what CLI11 knows (its own messages are English only).
#include <string>
#include <vector>

#include "kb/messages.hpp"

namespace CLI {
class App;
class Option;
class ParseError;
}  // namespace CLI

namespace gpuvet::cli {

// "help.plan", "help.fleet.report", "help.gpuvet" for the program itself.
std::string help_key(const CLI::App& command);
// "help.plan.os" (--os), "help.plan.framework" (FRAMEWORK), "help.help" (-h,--help).
std::string help_key(const CLI::App& command, const CLI::Option& option);

// Every description of `app` and its sub-verbs, its group and format labels, from `messages`.
void describe_from_catalog(CLI::App& app, const kb::Messages& messages);

// The --help of `command` (the program, a verb or a sub-verb) in the catalog's words and
// punctuation.
std::string help_text(const CLI::App& command, const kb::Messages& messages);
// "gpuvet fleet report": a verb as the user types it.
std::string command_words(const CLI::App& command);
// The verb (or sub-verb) the parser was in when it stopped.
const CLI::App& deepest_parsed(const CLI::App& app);
// The --help of the verb the parser stopped in.
std::string help_of_parsed(const CLI::App& app, const kb::Messages& messages);

// The catalog keys of every visible verb and option (what a catalog must hold).
std::vector<std::string> help_keys(const CLI::App& app);

// A parse error as one line in the catalog's language.
std::string usage_error(const CLI::ParseError& error, const CLI::App& app,
                        const kb::Messages& messages);

}  // namespace gpuvet::cli
