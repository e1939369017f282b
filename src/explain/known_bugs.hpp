#pragma once
// Releases with a bug their maintainers confirmed (data/known_release_bugs.csv): a line a bug
// prints names it (a signature of a *.known_bug cause), and the release the log shows decides
// whether it is that bug. The answer to a bug is another release, not a change to the machine.
#include <optional>
#include <string_view>
#include <vector>

#include "explain/explain.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"

namespace gpuvet::explain {

// framework.known_bug, driver.known_bug, container.toolkit_known_bug.
bool is_known_bug_cause(std::string_view id);

// For each cause a known bug's line names: the log shows a release it affects, and the bug is the
// answer (the other readings of its lines follow from it); a release it does not affect, and it is
// dropped; no release in the log, but the checks of the log's own machine find an affected
// release installed, and it is the answer likewise; else it stays as the line named it (a line only
// the bug prints) or a reading of it (a line other causes print too). Its captures say which
// releases, which fixed it and which was the last without it.
void apply_known_release_bugs(std::vector<Cause>& causes, const kb::Kb& kb, const LogFacts& log,
                              const kb::Messages& m, const std::optional<MachineFindings>& machine);

// The checks' finding (check_known_release_bugs) of the very bug a cause's line names, installed
// on the log's own machine; null elsewhere.
const Finding* known_bug_on_machine(const Cause& c, const std::optional<MachineFindings>& machine);

}  // namespace gpuvet::explain
