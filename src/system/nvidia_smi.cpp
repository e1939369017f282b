#include "system/nvidia_smi.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "gpu/library_names.hpp"
#include "platform/child_process.hpp"

namespace gpuvet::sys {

namespace {

constexpr const char* kFields = "index,name,uuid,pci.device_id,driver_version,memory.total";

// "0x250410DE" (device id << 16 | vendor id) -> "10DE:2504".
std::optional<std::string> pci_id(std::string_view text) {
  if (!text::starts_with_icase(text, "0x") || text.size() != 10) return std::nullopt;
  const std::string hex = text::to_lower(text.substr(2));
  std::string out = hex.substr(4, 4) + ":" + hex.substr(0, 4);
  for (auto& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::string> known(std::string_view field) {
  const std::string value(text::trim(field));
  if (value.empty() || value.starts_with("[N/A]") || value.starts_with("[Not Supported]")) {
    return std::nullopt;
  }
  return value;
}

// This runs in the native-query child, which may look at its own process's PATH; then at the
// places some drivers keep nvidia-smi off PATH.
std::optional<std::string> find_on_path() {
  std::vector<std::string> candidates;
  for (const auto& dir : text::split(gpu::executable_search_path(), gpu::path_list_separator())) {
    if (!dir.empty()) candidates.push_back(paths::join(dir, gpu::nvidia_smi_program()));
  }
  for (auto& path : gpu::nvidia_smi_fallback_paths())
    candidates.push_back(std::move(path));
  for (const auto& candidate : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(paths::to_fs(candidate), ec)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

Result<SmiAnswer> parse_smi_csv(const std::string& output) {
  SmiAnswer answer;
  for (const auto& raw : text::split(output, '\n')) {
    if (text::trim(raw).empty()) continue;
    const auto fields = text::split(raw, ',');
    if (fields.size() < 6 || !text::is_digits(text::trim(fields[0]))) {
      return make_error(fmt::format("nvidia-smi printed an unexpected line: {}", text::trim(raw)));
    }
    GpuAnswer gpu;
    gpu.index = std::atoi(std::string(text::trim(fields[0])).c_str());
    gpu.name = known(fields[1]);
    gpu.uuid = known(fields[2]);
    if (const auto id = known(fields[3])) gpu.pci_id = pci_id(*id);
    answer.driver_version = known(fields[4]);
    if (const auto mib = known(fields[5]); mib && text::is_digits(*mib) && mib->size() < 12) {
      gpu.memory_mib = std::atoll(mib->c_str());
    }
    if (fields.size() >= 7) gpu.compute_capability = known(fields[6]);
    answer.gpus.push_back(gpu);
  }
  if (answer.gpus.empty()) return make_error("nvidia-smi listed no GPU");
  return answer;
}

Result<SmiAnswer> query_nvidia_smi(std::chrono::milliseconds timeout) {
  const auto program = find_on_path();
  if (!program) return make_error("no nvidia-smi on PATH");
  // compute_cap is a newer field; older drivers reject the whole query, so ask again without it.
  for (const std::string& fields : {std::string(kFields) + ",compute_cap", std::string(kFields)}) {
    const platform::ChildOutcome run = platform::run_child(
        *program, {"--query-gpu=" + fields, "--format=csv,noheader,nounits"}, timeout, 1 << 16);
    if (run.kind == platform::ChildOutcome::Kind::timed_out) {
      return make_error(
          fmt::format("{} hung and was stopped after {} ms", *program, timeout.count()));
    }
    if (run.kind == platform::ChildOutcome::Kind::exited && run.exit_code == 0)
      return parse_smi_csv(run.output);
  }
  return make_error(fmt::format("{} failed", *program));
}

}  // namespace gpuvet::sys
