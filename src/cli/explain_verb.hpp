#pragma once
// The `explain` verb: a log or message in, ranked causes out (CONTRACTS.md explain).
#include <memory>
#include <string>

#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "system/system.hpp"

namespace gpuvet::cli {

struct ExplainArgs {
  std::string input;  // a file, "-" for standard input
  std::string text;   // --text
  bool has_text = false;
  std::string snapshot;
  bool no_facts = false;
  bool same_machine = false;  // --same-machine: the log was printed where the facts are from
  bool json = false;
};

// system: the machine to confirm against (live or a snapshot), null with --no-facts.
// Exit status: 0 a cause recognised, 1 nothing recognised, 2 unreadable input.
int run_explain(const ExplainArgs& args, const kb::Kb& kb, const kb::Messages& messages,
                const sys::System* system, bool color);

}  // namespace gpuvet::cli
