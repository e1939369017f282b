#pragma once
// The explain tests' shared setup: the embedded signatures, and a log explained as `gpuvet
// explain` reads it.
#include <optional>
#include <string_view>
#include <vector>

#include "explain/explain.hpp"
#include "explain/log_reader.hpp"
#include "test_support.hpp"

namespace gpuvet::testing {

inline const explain::Signatures& signatures() {
  static const explain::Signatures s = [] {
    auto loaded = explain::Signatures::load(embedded_kb());
    if (!loaded) ADD_FAILURE() << loaded.error().message;
    return std::move(loaded).value();
  }();
  return s;
}

// With the fast path's filter, as `gpuvet explain` reads: lines before a candidate are skipped.
inline std::vector<explain::Cause> explain_text(
    std::string_view text, const std::optional<explain::MachineFindings>& machine = std::nullopt) {
  explain::Collector collector(signatures());
  auto read = explain::read_log_text(
      text, [&](size_t n, std::string_view line) { return collector.on_line(n, line); },
      [&](std::string_view lines) { return collector.first_candidate(lines); });
  EXPECT_TRUE(read.ok());
  return explain::reason(collector.causes(), embedded_kb(), messages(), machine,
                         collector.log_facts());
}

}  // namespace gpuvet::testing
