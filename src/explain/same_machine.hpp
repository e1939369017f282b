#pragma once
// Whether a log comes from the machine whose facts would confirm its causes. A log printed
// elsewhere (a forum thread's log explained on a build server, a colleague's paste) must not be
// ranked by this machine's findings: a machine without a GPU would "confirm" every log's
// alternative that no GPU was found.
#include <optional>
#include <string>
#include <vector>

#include "explain/explain.hpp"
#include "facts/facts.hpp"

namespace gpuvet::sys {
class System;
}

namespace gpuvet::explain {

// One thing the log shows of its machine, compared with the facts: the same (the log's GeForce
// RTX 3060 is this machine's GPU) or not (driver 470.82 where this machine has 535.104).
struct MachineClue {
  bool same = false;
  std::string key;  // explain.facts.clue.<what>.<same|other|absent>
  kb::MessageArgs args;
};

// Every clue the log gives: its GPUs, NVIDIA driver, TensorFlow and PyTorch versions, the cuDNN
// it loaded and its Python environments. `system`, when given, is asked whether a Python
// environment the log's paths name exists (a venv the probes did not look for).
std::vector<MachineClue> compare_with_machine(const LogFacts& log, const Facts& facts,
                                              const kb::Kb& kb, const sys::System* system);

struct FactsForLog {
  FactsUse use;
  std::optional<MachineFindings> machine;  // none when the facts are another machine's
};

// How the facts speak for the log. Another platform, or any clue that differs: another machine,
// ranked as with --no-facts. A clue that agrees and none that differs: this machine, whose facts
// confirm and rule out. No clue: unknown, ranked as with --no-facts, and a cause the checks also
// find says so. `said_same` (--same-machine: the user ran the program here) makes it this
// machine unless the platforms differ; a clue that differs then says what changed since.
FactsForLog facts_for_log(const LogFacts& log, const Facts& facts, std::vector<Finding> findings,
                          const kb::Kb& kb, const kb::Messages& m, const sys::System* system,
                          bool said_same = false);

// Fills `machine.libraries` for the libraries the causes' lines could not load, of the machine's
// platform: from the facts where the checks resolved that name (for a framework, with its own
// RPATH), else, given the live system, as its loader would search (resolve::which). A snapshot
// records only what its probes looked up, so without `live` another name stays unknown.
void look_up_libraries(MachineFindings& machine, const std::vector<Cause>& causes,
                       const Facts& facts, const sys::System* live);

}  // namespace gpuvet::explain
