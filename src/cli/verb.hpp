#pragma once
// The command line as a table of verbs (verbs.cpp): each declares its options on its own
// subcommand and returns what runs it once the command line is parsed. A verb calls nothing of
// the app; what verbs share is in common.hpp.
#include <functional>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace gpuvet::cli {

// Runs a parsed verb; returns the exit status.
using VerbRun = std::function<int()>;

struct Verb {
  std::string_view name;
  bool hidden;  // not in --help, the man page or the completions
  // Declares the verb's options on `command`; the result runs the verb with their values.
  VerbRun (*declare)(CLI::App& command);
};

// In the order --help lists them; `check` is the default verb.
const std::vector<Verb>& verbs();

VerbRun declare_check(CLI::App& command);
VerbRun declare_verify(CLI::App& command);
VerbRun declare_bench(CLI::App& command);
VerbRun declare_snapshot(CLI::App& command);
VerbRun declare_which(CLI::App& command);
VerbRun declare_explain(CLI::App& command);
VerbRun declare_plan(CLI::App& command);
VerbRun declare_kb(CLI::App& command);
VerbRun declare_fix(CLI::App& command);
VerbRun declare_undo(CLI::App& command);
VerbRun declare_fleet(CLI::App& command);
VerbRun declare_help(CLI::App& command);
VerbRun declare_completion(CLI::App& command);
VerbRun declare_native_query(CLI::App& command);

}  // namespace gpuvet::cli
