#pragma once
// From a diagnosis to the fixes that repair its findings at their origin (fix/fix.hpp): read-only.
#include <optional>
#include <string>
#include <vector>

#include "checks/finding.hpp"
#include "facts/facts.hpp"
#include "fix/fix.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "system/system.hpp"

namespace gpuvet::fix {

// Fixes made only when asked for by id (gpuvet fix --apply ID): they change what a program does,
// not what is broken.
inline constexpr const char* kAllowGrowthFix = "env.set.TF_FORCE_GPU_ALLOW_GROWTH";

// The saved Windows environment as the planner reads it: the live registry, or a test's.
class RegistryReader {
 public:
  virtual ~RegistryReader() = default;
  virtual Result<std::optional<RegistryData>> read(const std::string& key,
                                                   const std::string& name) const = 0;
};
// This machine's registry (fix/target_files.hpp); an error for every read where there is none.
const RegistryReader& live_registry();

struct PlanRequest {
  std::string stamp;                   // "2026-12-02T16:05:12Z"
  std::vector<std::string> requested;  // on-request fix ids to plan too
};

// From the facts of one machine and the findings its checks made.
Result<FixPlan> plan_fixes(const Facts& facts, const std::vector<Finding>& findings,
                           const sys::System& system, const RegistryReader& registry,
                           const kb::Kb& kb, const kb::Messages& messages,
                           const PlanRequest& request);

}  // namespace gpuvet::fix
