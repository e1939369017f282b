#include "kb/versions.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace gpuvet::kb {

std::optional<std::string> decode_cudnn_version(const Kb& kb, long long value) {
  auto table = kb.table("cudnn_version_encoding");
  if (!table || value <= 0) return std::nullopt;
  const Table& t = **table;
  for (size_t row = 0; row < t.size(); ++row) {
    const long long major_factor = std::atoll(t.cell(row, "major_factor").c_str());
    const long long minor_factor = std::atoll(t.cell(row, "minor_factor").c_str());
    const long long from = std::atoll(t.cell(row, "from_major").c_str());
    const std::string& to_text = t.cell(row, "to_major");
    if (major_factor <= 0 || minor_factor <= 0) continue;
    const long long major = value / major_factor;
    if (major < from || (!to_text.empty() && major > std::atoll(to_text.c_str()))) continue;
    const long long minor = (value % major_factor) / minor_factor;
    const long long patch = value % minor_factor;
    return fmt::format("{}.{}.{}", major, minor, patch);
  }
  return std::nullopt;
}

}  // namespace gpuvet::kb
