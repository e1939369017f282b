// A Slurm node whose GPU configuration disagrees with its devices: slurmd stops when gres.conf
// names a device file that does not exist ("fatal: can't stat gres.conf file /dev/nvidia3"), and
// slurmctld drains a node that reports fewer GPUs than slurm.conf configures for it ("gres/gpu
// count reported lower than configured"). Either way the node runs no GPU job.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "checks/checks.hpp"
#include "core/text.hpp"

namespace gpuvet::checks {

namespace {

// /dev/nvidia0, /dev/nvidia1 ...: one per GPU (not nvidiactl, nvidia-uvm, nvidia-caps).
bool is_gpu_device_node(const std::string& path) {
  constexpr std::string_view prefix = "/dev/nvidia";
  return path.starts_with(prefix) && text::is_digits(std::string_view(path).substr(prefix.size()));
}

// The GPUs this node has, and what says so: the driver's answer, else its device nodes; nullopt
// where neither is known, or where MIG splits a GPU (AutoDetect then counts the instances).
std::optional<std::pair<std::int64_t, std::string>> gpus_present(const Facts& f) {
  if (!f.gpus.empty()) {
    if (std::any_of(f.gpus.begin(), f.gpus.end(),
                    [](const GpuFact& g) { return g.mig_mode.value_or(false); })) {
      return std::nullopt;
    }
    return std::make_pair(static_cast<std::int64_t>(f.gpus.size()), std::string("driver"));
  }
  const auto nodes = std::count_if(f.hardware.device_nodes.begin(), f.hardware.device_nodes.end(),
                                   is_gpu_device_node);
  if (nodes > 0) return std::make_pair(static_cast<std::int64_t>(nodes), std::string("dev"));
  if (f.driver && f.driver->installed == false) return std::make_pair(std::int64_t{0}, "driver");
  return std::nullopt;
}

Result<bool> missing_device_files(const CheckContext& context, const SlurmFacts& s,
                                  std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  std::vector<std::string> present;
  std::copy_if(f.hardware.device_nodes.begin(), f.hardware.device_nodes.end(),
               std::back_inserter(present), is_gpu_device_node);
  const kb::MessageArgs args = {
      {"gres_conf", s.gres_conf.value_or("gres.conf")},
      {"node", s.node.value_or("")},
      {"files", text::join(s.missing_gpu_files, ", ")},
      {"present", present.empty() ? context.text("scheduler.gres_misconfigured.no_device_files")
                                  : text::join(present, ", ")}};
  auto finding = context.finding("scheduler.gres_misconfigured", Severity::error,
                                 "scheduler.gres_misconfigured.title.missing_files", args);
  if (!finding) return finding.error();
  finding->evidence.push_back(context.text("scheduler.gres_misconfigured.evidence.files", args));
  finding->fix.push_back(context.text("scheduler.gres_misconfigured.fix.files", args));
  finding->fix.push_back(context.text("scheduler.gres_misconfigured.fix.resume", args));
  finding->details = {{"missing_gpu_files", text::join(s.missing_gpu_files, ", ")}};
  findings.push_back(std::move(*finding));
  return true;
}

// What slurmd reports: with AutoDetect, the GPUs it finds; else gres.conf's File= devices; with
// neither, slurm.conf's own count, which the devices are then compared with. Inside a job the
// driver answers for the job's GPUs, so only gres.conf's devices can be compared there.
Result<bool> fewer_gpus_than_configured(const CheckContext& context, const SlurmFacts& s,
                                        std::vector<Finding>& findings) {
  if (!s.configured_gpus) return true;
  const auto present = gpus_present(context.facts());
  const bool autodetect = s.autodetect && (*s.autodetect == "nvml" || *s.autodetect == "nvidia");
  std::int64_t reported = 0;
  std::string source;
  if (!autodetect && !s.gpu_files.empty()) {
    reported = static_cast<std::int64_t>(s.gpu_files.size());
    source = "files";
  } else if (present && !s.in_job) {
    reported = present->first;
    source = present->second;
  } else {
    return true;
  }
  if (reported >= *s.configured_gpus) return true;
  const kb::MessageArgs args = {{"conf", s.conf},
                                {"node", s.node.value_or("")},
                                {"configured", std::to_string(*s.configured_gpus)},
                                {"reported", std::to_string(reported)},
                                {"gres_conf", s.gres_conf.value_or("gres.conf")},
                                {"autodetect", s.autodetect.value_or("")}};
  auto finding = context.finding("scheduler.gres_misconfigured", Severity::error,
                                 "scheduler.gres_misconfigured.title.count", args);
  if (!finding) return finding.error();
  finding->evidence.push_back(
      context.text("scheduler.gres_misconfigured.evidence.count." + source, args));
  finding->fix.push_back(context.text("scheduler.gres_misconfigured.fix.count", args));
  finding->fix.push_back(context.text("scheduler.gres_misconfigured.fix.resume", args));
  finding->details = {{"configured_gpus", std::to_string(*s.configured_gpus)},
                      {"reported_gpus", std::to_string(reported)}};
  findings.push_back(std::move(*finding));
  return true;
}

}  // namespace

// Only a host slurm.conf names as a node: a login node reads the same files and runs no slurmd.
Result<bool> check_slurm_gres(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (!f.slurm || !f.slurm->node) return true;
  if (!f.slurm->missing_gpu_files.empty()) return missing_device_files(context, *f.slurm, findings);
  return fewer_gpus_than_configured(context, *f.slurm, findings);
}

}  // namespace gpuvet::checks
