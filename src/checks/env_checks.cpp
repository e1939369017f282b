// Checks that need only the environment: what TensorFlow's log level hides, and whether
// CUDA_VISIBLE_DEVICES hides the GPUs.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>

#include "checks/checks.hpp"
#include "core/text.hpp"

namespace gpuvet::checks {

namespace {

std::optional<std::string> variable(const Facts& facts, const std::string& name) {
  const auto it = facts.env.variables.find(name);
  if (it == facts.env.variables.end()) return std::nullopt;
  return it->second;
}

// TensorFlow reads the level with `istringstream >> int64`: leading blanks and a sign are
// accepted, trailing text is ignored, and anything unparsable or out of range means 0
// (tensorflow/core/platform/default/logging.cc, LogLevelStrToInt).
long long tf_log_level(const std::string& raw) {
  size_t i = 0;
  while (i < raw.size() && std::isspace(static_cast<unsigned char>(raw[i])))
    ++i;
  bool negative = false;
  if (i < raw.size() && (raw[i] == '-' || raw[i] == '+')) negative = raw[i++] == '-';
  size_t end = i;
  while (end < raw.size() && std::isdigit(static_cast<unsigned char>(raw[end])))
    ++end;
  long long level = 0;
  const auto [ptr, ec] = std::from_chars(raw.data() + i, raw.data() + end, level);
  if (ec != std::errc() || ptr == raw.data() + i) return 0;
  return negative ? -level : level;
}

Result<const kb::Table*> log_level_table(const CheckContext& context) {
  auto table = context.kb().table("tf_log_levels");
  if (!table) return table.error();
  for (const char* column : {"level", "hidden", "severity", "source"}) {
    if (!(*table)->has_column(column)) {
      return make_error(fmt::format("{}: missing column {}", (*table)->name(), column));
    }
  }
  return table;
}

}  // namespace

Result<bool> check_log_level(const CheckContext& context, std::vector<Finding>& findings) {
  const auto raw = variable(context.facts(), "TF_CPP_MIN_LOG_LEVEL");
  if (!raw) return true;
  auto table = log_level_table(context);
  if (!table) return table.error();
  const kb::Table& t = **table;

  // Levels above the highest row behave like it: FATAL always prints.
  long long level = tf_log_level(*raw);
  long long highest = 0;
  for (size_t row = 0; row < t.size(); ++row) {
    highest = std::max(highest, std::strtoll(t.cell(row, "level").c_str(), nullptr, 10));
  }
  const long long effective = std::clamp(level, 0LL, highest);
  for (size_t row = 0; row < t.size(); ++row) {
    if (std::strtoll(t.cell(row, "level").c_str(), nullptr, 10) != effective) continue;
    const std::string& severity_name = t.cell(row, "severity");
    if (severity_name == "none") return true;
    const auto severity = severity_from_string(severity_name);
    if (!severity) {
      return make_error(
          fmt::format("{}:{}: unknown severity \"{}\"", t.name(), t.line_of(row), severity_name));
    }
    const std::vector<std::string> hidden = text::split(t.cell(row, "hidden"), ' ');
    auto finding =
        context.finding("env.log_level_hides_errors", *severity, "env.log_level_hides_errors.title",
                        {{"level", *raw}, {"hidden", text::join(hidden, ", ")}});
    if (!finding) return finding.error();
    finding->evidence.push_back(fmt::format("TF_CPP_MIN_LOG_LEVEL={}", *raw));
    for (const auto& name : hidden) {
      const std::string key = "env.log_level_hides_errors.hides." + text::to_lower(name);
      if (context.messages().has(key)) finding->evidence.push_back(context.text(key));
    }
    finding->evidence.push_back(context.text("common.source", {{"source", t.cell(row, "source")}}));
    const bool windows = context.facts().os.family == "windows";
    finding->fix.push_back(context.text(windows ? "env.log_level_hides_errors.fix.windows"
                                                : "env.log_level_hides_errors.fix.posix"));
    finding->fix.push_back(context.text("env.log_level_hides_errors.fix.before_import"));
    findings.push_back(std::move(*finding));
    return true;
  }
  return make_error(fmt::format("{}: no row for level {}", t.name(), effective));
}

namespace {

// CUDA_VISIBLE_DEVICES is a comma-separated list of device indices or UUID prefixes ("GPU-...",
// "MIG-..."). Devices are enumerated in the list's order; at the first entry that names no
// device, the rest of the list is ignored. (CUDA C++ Programming Guide, "CUDA Environment
// Variables": https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars;
// MPS guide: https://docs.nvidia.com/deploy/topics/topic_5_2_1.html)
struct Visibility {
  std::vector<std::string> visible;
  std::optional<std::string> first_invalid;
};

bool names_a_device(const std::string& entry, const std::vector<GpuFact>& gpus) {
  if (text::is_digits(entry)) {
    if (entry.size() > 6) return false;
    // Without GPU facts the index cannot be checked against the device count.
    return gpus.empty() || std::stoi(entry) < static_cast<int>(gpus.size());
  }
  if (text::starts_with_icase(entry, "GPU-") || text::starts_with_icase(entry, "MIG-")) {
    if (gpus.empty()) return true;
    for (const auto& gpu : gpus) {
      if (gpu.uuid && text::starts_with_icase(*gpu.uuid, entry)) return true;
    }
    // A MIG instance UUID is not among the GPU UUIDs; do not call it invalid.
    return text::starts_with_icase(entry, "MIG-");
  }
  return false;
}

Visibility parse_visible_devices(const std::string& value, const std::vector<GpuFact>& gpus) {
  Visibility v;
  if (text::trim(value).empty()) {
    v.first_invalid = "";
    return v;
  }
  for (const auto& raw : text::split(value, ',')) {
    const std::string entry(text::trim(raw));
    if (!names_a_device(entry, gpus)) {
      v.first_invalid = entry;
      break;
    }
    v.visible.push_back(entry);
  }
  return v;
}

}  // namespace

Result<bool> check_visible_devices(const CheckContext& context, std::vector<Finding>& findings) {
  const auto value = variable(context.facts(), "CUDA_VISIBLE_DEVICES");
  if (!value) return true;
  const Visibility v = parse_visible_devices(*value, context.facts().gpus);
  if (!v.first_invalid) return true;

  const bool hides_all = v.visible.empty();
  std::string title_key = "gpu.not_visible.cvd_ignored_tail.title";
  if (hides_all) {
    title_key = text::trim(*value).empty() ? "gpu.not_visible.cvd_empty.title"
                                           : "gpu.not_visible.cvd_invalid.title";
  }
  auto finding = context.finding(
      "gpu.not_visible", hides_all ? Severity::error : Severity::warning, title_key,
      {{"value", *value}, {"entry", *v.first_invalid}, {"visible", text::join(v.visible, ",")}});
  if (!finding) return finding.error();
  finding->evidence.push_back(fmt::format("CUDA_VISIBLE_DEVICES=\"{}\"", *value));
  if (!context.facts().gpus.empty()) {
    finding->evidence.push_back(
        context.text("gpu.not_visible.cvd_device_count",
                     {{"count", std::to_string(context.facts().gpus.size())}}));
  }
  finding->evidence.push_back(context.text("gpu.not_visible.cvd_rule"));
  const bool windows = context.facts().os.family == "windows";
  finding->fix.push_back(
      context.text(windows ? "gpu.not_visible.cvd_fix.windows" : "gpu.not_visible.cvd_fix.posix"));
  findings.push_back(std::move(*finding));
  return true;
}

// A CUDA process enumerates one MIG instance: MIG UUIDs after the first in CUDA_VISIBLE_DEVICES
// give it no second device ("invalid device ordinal" for cuda:1). (PyTorch maintainers,
// https://github.com/pytorch/pytorch/issues/130181; https://github.com/pytorch/pytorch/pull/92315)
Result<bool> check_mig_devices(const CheckContext& context, std::vector<Finding>& findings) {
  const auto value = variable(context.facts(), "CUDA_VISIBLE_DEVICES");
  if (!value) return true;
  std::vector<std::string> instances;
  for (const auto& entry : parse_visible_devices(*value, context.facts().gpus).visible) {
    if (text::starts_with_icase(entry, "MIG-")) instances.push_back(entry);
  }
  if (instances.size() < 2) return true;
  auto finding = context.finding(
      "device.mig_misconfigured", Severity::warning, "device.mig_misconfigured.several.title",
      {{"count", std::to_string(instances.size())}, {"first", instances.front()}});
  if (!finding) return finding.error();
  finding->evidence.push_back(fmt::format("CUDA_VISIBLE_DEVICES=\"{}\"", *value));
  for (const auto& gpu : context.facts().gpus) {
    if (gpu.mig_mode.value_or(false)) {
      finding->evidence.push_back(
          context.text("device.mig_misconfigured.mode",
                       {{"index", std::to_string(gpu.index)}, {"name", gpu.name.value_or("?")}}));
    }
  }
  finding->fix.push_back(context.text("device.mig_misconfigured.several.fix"));
  findings.push_back(std::move(*finding));
  return true;
}

// pip writes TensorFlow's deeply nested files into site-packages; with long paths off, paths
// over 260 characters fail ("No such file or directory" / "Could not install packages").
Result<bool> check_long_paths(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (f.os.family != "windows" || f.os.long_paths_enabled != false || f.python_envs.empty()) {
    return true;
  }
  auto finding = context.finding("os.long_paths_disabled", Severity::warning,
                                 "os.long_paths_disabled.title", {});
  if (!finding) return finding.error();
  finding->evidence.push_back(context.text("os.long_paths_disabled.evidence"));
  finding->fix.push_back(context.text("os.long_paths_disabled.fix"));
  findings.push_back(std::move(*finding));
  return true;
}

// NVIDIA's framework containers warn at start when /dev/shm is Docker's default 64 MB and ask
// for --shm-size=1g or --ipc=host: DataLoader workers hand batches over through it and NCCL keeps
// its buffers there, and both fail with bus errors or "unhandled system error" when it fills.
Result<bool> check_shm_size(const CheckContext& context, std::vector<Finding>& findings) {
  constexpr std::int64_t kRecommendedShmBytes = std::int64_t{1} << 30;
  const Facts& f = context.facts();
  if (!f.os.container || !f.os.shm_bytes || *f.os.shm_bytes >= kRecommendedShmBytes) return true;
  const std::int64_t mib = *f.os.shm_bytes / (1024 * 1024);
  const kb::MessageArgs args = {{"container", *f.os.container},
                                {"size", mib > 0 ? fmt::format("{} MiB", mib)
                                                 : fmt::format("{} KiB", *f.os.shm_bytes / 1024)}};
  auto finding = context.finding("memory.shm_too_small", Severity::warning,
                                 "memory.shm_too_small.title", args);
  if (!finding) return finding.error();
  finding->evidence.push_back(context.text("memory.shm_too_small.evidence", args));
  finding->fix.push_back(context.text(*f.os.container == "kubernetes"
                                          ? "memory.shm_too_small.fix.kubernetes"
                                          : "memory.shm_too_small.fix.docker",
                                      args));
  finding->fix.push_back(context.text("memory.shm_too_small.fix.meanwhile", args));
  finding->details = {{"shm_bytes", std::to_string(*f.os.shm_bytes)}};
  findings.push_back(std::move(*finding));
  return true;
}

}  // namespace gpuvet::checks
