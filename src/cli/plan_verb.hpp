#pragma once
// The `plan` verb: the versions and steps that go together for a framework on this machine or a
// described one (CONTRACTS.md plan).
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "system/system.hpp"

namespace gpuvet::cli {

struct PlanArgs {
  std::string spec;  // FRAMEWORK[==VERSION]
  std::string os;    // windows | linux | wsl2, empty: this machine's
  std::string gpu;
  std::string cc;
  std::string driver;
  std::string python;
  std::string cuda;
  std::string snapshot;
  std::string env;    // --env PATH: plan for this existing environment
  bool here = false;  // --here: plan for the active environment
  std::string write_dir;
  bool force = false;  // --write may replace files already there
  bool json = false;
};

// open_system: the machine the open fields come from (live or the snapshot); called only when
// a field is open. Exit status: 0 feasible, 1 infeasible or unverified, 2 usage error or unknown
// version.
int run_plan(const PlanArgs& args, const kb::Kb& kb, const kb::Messages& messages,
             const std::function<Result<std::unique_ptr<sys::System>>()>& open_system, bool color);

}  // namespace gpuvet::cli
