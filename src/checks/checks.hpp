#pragma once
// Checks: the fault tree, as rules over Facts and the knowledge base. Each check adds Findings.
// Adding a check means adding its file and one line in checks.cpp.
#include <string_view>
#include <vector>

#include "checks/finding.hpp"
#include "core/result.hpp"
#include "facts/facts.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"

namespace gpuvet::checks {

class CheckContext {
 public:
  CheckContext(const Facts& facts, const kb::Kb& kb, const kb::Messages& messages);

  const Facts& facts() const { return facts_; }
  const kb::Kb& kb() const { return kb_; }
  const kb::Messages& messages() const { return messages_; }

  // A finding with its layer taken from the taxonomy (data/taxonomy.csv) and its title from
  // the message catalog. Fails when the id is not in the taxonomy.
  Result<Finding> finding(std::string_view id, Severity severity, std::string_view title_key,
                          const kb::MessageArgs& args = {}) const;
  std::string text(std::string_view key, const kb::MessageArgs& args = {}) const {
    return messages_.text(key, args);
  }

 private:
  const Facts& facts_;
  const kb::Kb& kb_;
  const kb::Messages& messages_;
};

// The interpreter of an environment, as a fix's command names it.
std::string env_python(const PythonEnvFact& env, bool windows);

struct Check {
  std::string_view name;
  // Appends findings; an Error means the check could not run (a broken knowledge base).
  Result<bool> (*run)(const CheckContext& context, std::vector<Finding>& findings);
};

const std::vector<Check>& all_checks();

// The ids of the errors that stop an environment's GPU: those about it, and those about the whole
// machine. Empty: nothing stops it.
std::vector<std::string> errors_blocking(const std::vector<Finding>& findings,
                                         const std::string& env);

// Marks each finding that follows from another (data/fault_tree.csv: a row names the pair, and the
// cause concerns the whole machine or the same environment or toolkit).
Result<bool> mark_what_follows(const kb::Kb& kb, std::vector<Finding>& findings);

// Runs every check; findings come back in fault-tree order, the worst first within a layer.
Result<std::vector<Finding>> run_checks(const CheckContext& context);

struct Summary {
  int errors = 0;
  int warnings = 0;
  bool gpu_ready = false;
};
Summary summarize(const Facts& facts, const std::vector<Finding>& findings);

Result<bool> check_log_level(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_long_paths(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_shm_size(const CheckContext& context, std::vector<Finding>& findings);
// A Slurm node whose gres.conf names missing devices, or that reports fewer GPUs than slurm.conf
// configures for it (scheduler_checks.cpp).
Result<bool> check_slurm_gres(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_gpu_and_driver(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_image_driver_libraries(const CheckContext& context,
                                          std::vector<Finding>& findings);
Result<bool> check_memory_pools(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_gpu_health(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_persistence(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_mig_devices(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_shadowed_copies(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_cuda_path_order(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_host_compiler(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_triton_compiler(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_triton_libcuda(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_visible_devices(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_driver_too_old(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_compute_capability(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_framework_libraries(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_libdevice(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_framework_builds(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_known_release_bugs(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_collectives(const CheckContext& context, std::vector<Finding>& findings);
Result<bool> check_conflicting_packages(const CheckContext& context,
                                        std::vector<Finding>& findings);

}  // namespace gpuvet::checks
