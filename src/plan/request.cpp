// Completing a plan request from the machine's facts (live or a snapshot).
#include <fmt/format.h>

#include <algorithm>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "kb/queries.hpp"
#include "plan/plan.hpp"

namespace gpuvet::plan {

Result<std::string> compute_capability_of(const kb::Kb& kb, const kb::Messages& messages,
                                          const std::string& gpu) {
  auto match = kb::find_gpu(kb, gpu);
  if (!match) return match.error();
  if (match->rows.empty()) {
    return make_error(messages.text(
        match->closest.empty() ? "plan.error.gpu_unknown" : "plan.error.gpu_unknown_closest",
        {{"gpu", gpu}, {"closest", text::join(match->closest, ", ")}}));
  }
  // A partial name is enough when every GPU it may mean has one compute capability.
  if (!match->compute_capability.empty()) return match->compute_capability;
  const bool differ = std::any_of(match->rows.begin(), match->rows.end(), [&](const kb::Row& r) {
    return !r.get("compute_capability").empty();
  });
  return make_error(messages.text(differ ? "plan.error.gpu_ambiguous" : "plan.error.gpu_cc_unknown",
                                  {{"gpu", gpu}}));
}

namespace {

std::string os_of(const Facts& facts) {
  return facts.os.wsl ? "wsl2" : facts.os.family == "windows" ? "windows" : "linux";
}

// --env PATH or --here: the environment the plan installs into, and its Python as a constraint.
Result<bool> use_environment(Request& request, const Facts& facts, const kb::Messages& messages,
                             const MachineUse& use) {
  const bool windows = facts.os.family == "windows";
  const PythonEnvFact* chosen = nullptr;
  for (const auto& env : facts.python_envs) {
    if (use.here
            ? env.active
            : paths::comparison_key(env.path, windows) == paths::comparison_key(use.env, windows)) {
      chosen = &env;
      break;
    }
  }
  if (!chosen) {
    return make_error(use.here ? messages.text("plan.error.no_active_env")
                               : messages.text("plan.error.env_unknown", {{"env", use.env}}));
  }
  request.env_path = chosen->path;
  request.env_is_conda = chosen->kind == "conda";
  if (!request.python && chosen->python) {
    request.python = version::prefix(*chosen->python, 2);
    request.origins.python = "environment";
  }
  return true;
}

}  // namespace

Result<Request> complete_from_facts(Request request, const Facts& facts, const kb::Kb& kb,
                                    const kb::Messages& messages, const MachineUse& use) {
  if (request.os.empty()) {
    request.os = os_of(facts);
    request.origins.os = use.origin;
  }
  // Planning for another OS uses nothing of this machine.
  if (request.os != os_of(facts)) {
    if (use.here || !use.env.empty()) {
      return make_error(messages.text("plan.error.env_other_os", {{"os", request.os}}));
    }
    return request;
  }
  const GpuFact* gpu = facts.gpus.empty() ? nullptr : &facts.gpus.front();
  if (!request.gpu && !request.compute_capability && gpu) {
    request.gpu = gpu->name;
    request.compute_capability = gpu->compute_capability;
    if (!request.compute_capability && gpu->name) {
      if (auto cc = compute_capability_of(kb, messages, *gpu->name); cc)
        request.compute_capability = *cc;
    }
    request.origins.gpu = use.origin;
  }
  // A GPU no driver answers for (the driver is what the plan will install) is known by its PCI id.
  if (!request.gpu && !request.compute_capability && !gpu) {
    for (const auto& pci : facts.hardware.pci_gpus) {
      if (!pci.compute_capability) continue;
      request.gpu = pci.name;
      request.compute_capability = pci.compute_capability;
      request.origins.gpu = use.origin;
      break;
    }
  }
  if (!request.driver && facts.driver && facts.driver->version) {
    request.driver = facts.driver->version;
    request.origins.driver = use.origin;
  }
  if (use.here || !use.env.empty()) {
    if (auto ok = use_environment(request, facts, messages, use); !ok) return ok.error();
  } else if (!request.python) {
    for (const auto& env : facts.python_envs) {
      if (env.active && env.python) {
        request.preferred_python = version::prefix(*env.python, 2);
        break;
      }
    }
  }
  return request;
}

}  // namespace gpuvet::plan
