#pragma once
// `gpuvet plan`: which framework build, CUDA, cuDNN, Python and driver go together on a platform
// and a GPU, solved from the knowledge base (CONTRACTS.md `plan`). Deterministic: the same request
// and the same KB always give the same plan. Nothing here reads the machine; the request is
// completed from Facts by the caller.
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "facts/facts.hpp"
#include "frameworks/framework.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"

namespace gpuvet::plan {

struct Request {
  std::string framework;               // a family of the framework registry
  std::optional<std::string> version;  // a prefix: "2.1" means the newest 2.1.x
  std::string os;                      // linux | windows | wsl2
  std::optional<std::string> gpu;      // the name asked for, or the machine's
  std::optional<std::string> compute_capability;
  std::optional<std::string> driver;
  std::optional<std::string> python;  // X.Y
  std::optional<std::string> cuda;    // only builds for this CUDA (a prefix); never from facts
  // Python is a choice, not a constraint: `python` constrains only when given (--python) or when
  // the plan is for an existing environment (--env, --here). This machine's Python is a
  // preference: the new environment uses it when the build supports it.
  std::optional<std::string> preferred_python;
  std::optional<std::string> env_path;  // install into this existing environment
  bool env_is_conda = false;
  // Where each input came from: flag, snapshot, machine, environment (empty: unknown).
  struct Origins {
    std::string os, gpu, driver, python;
  } origins;
};

// How a plan uses the machine: `origin` names it ("machine" or "snapshot"); `env` (--env PATH)
// or `here` (--here, the active environment) plan for an existing environment, whose Python
// then constrains the plan.
struct MachineUse {
  std::string origin = "machine";
  std::string env;
  bool here = false;
};

// Fills what the request leaves open from the machine's facts: the OS (WSL2 counts as wsl2); and,
// only when the plan is for this machine's OS, the first GPU and its compute capability (from the
// KB when the driver did not say), the driver, this machine's Python as a preference, and the
// environment of --env / --here. An --env that is not found is an error.
Result<Request> complete_from_facts(Request request, const Facts& facts, const kb::Kb& kb,
                                    const kb::Messages& messages, const MachineUse& use = {});
// --gpu NAME: the compute capability from the KB; an unknown name is an error.
Result<std::string> compute_capability_of(const kb::Kb& kb, const kb::Messages& messages,
                                          const std::string& gpu);

using Build = frameworks::Build;

struct Blocker {
  std::string id;  // TAXONOMY.md
  std::string why;
};

struct Step {
  std::string title;
  std::vector<std::string> commands;  // in the platform's shell: sh, or cmd.exe on Windows
  // Windows: the same commands for PowerShell, line for line; empty elsewhere. A line that is
  // "rem …" in cmd and "# …" here is a note for the reader, not a command.
  std::vector<std::string> powershell;
};

struct Option {
  std::string platform;  // linux | windows | wsl2
  Build build;
  std::string package_spec;  // what pip installs: tensorflow-gpu==2.1.0, "torch==2.1.*" ...
  std::optional<std::string> index_url;     // torch: --index-url / --extra-index-url / -f target
  std::string index_option;                 // "--index-url", "--extra-index-url", "-f" or ""
  std::optional<std::string> min_driver;    // what the build's CUDA release asks for
  std::optional<std::string> driver_floor;  // the oldest driver it can run on (minor compatibility)
  std::string environment_python;           // the Python the steps create the environment with
  std::vector<Step> steps;
  std::vector<std::string> notes;
  bool alternative = false;  // offered because the exact wish is infeasible
  // False when the KB cannot settle whether the build runs here (its compiled architectures are
  // unknown); `unknowns` says what is missing. Such an option ranks below verified ones.
  bool verified = true;
  std::vector<std::string> unknowns;
};

// feasible: a verified option fits; unverified: options fit as far as the KB knows, none verified;
// infeasible: nothing fits (blockers say why).
enum class Outcome { feasible, unverified, infeasible };

struct Plan {
  Request request;
  Outcome outcome = Outcome::infeasible;
  bool feasible = false;        // outcome == feasible
  std::vector<Option> options;  // ranked, best first
  std::vector<Blocker> blockers;
};

// The plan for a complete request. An unknown framework, or a version the KB does not hold
// (or holds without its CUDA), is an error: gpuvet does not guess.
Result<Plan> make_plan(const Request& request, const kb::Kb& kb, const kb::Messages& messages);

// The builds the KB knows for a framework, on every platform, newest first.
Result<std::vector<Build>> known_builds(const kb::Kb& kb, const std::string& framework);

// --write DIR: environment.yml, requirements.txt and an activation script for the best option
// (activate-gpu.sh; on Windows activate-gpu.bat for cmd and activate-gpu.ps1 for PowerShell).
// A file already there (or a link, even a dangling one) is an error, before anything is written,
// unless force; with force it is replaced, a link itself and never its target.
Result<std::vector<std::string>> write_environment_files(const Option& option,
                                                         const std::string& directory,
                                                         bool force = false);

}  // namespace gpuvet::plan
