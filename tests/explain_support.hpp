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

// With the fast path's filter, as `gpuvet explain` reads: lines before a candidate are skipped;
// with `similar`, the reported cases nearest the log (but those of the thread `exclude_url`).
inline std::vector<explain::Cause> explain_with(
    std::string_view text, const std::optional<explain::MachineFindings>& machine,
    const explain::SimilarCases* similar, const std::string& exclude_url = {}) {
  explain::Collector collector(signatures(), similar, exclude_url);
  auto read = explain::read_log_text(
      text, [&](size_t n, std::string_view line) { return collector.on_line(n, line); },
      [&](std::string_view lines) { return collector.first_candidate(lines); });
  EXPECT_TRUE(read.ok());
  return explain::reason(collector.causes(), embedded_kb(), messages(), machine,
                         collector.log_facts());
}

// As `gpuvet explain` explains: the signatures, then the reported cases like the log.
inline std::vector<explain::Cause> explain_text(
    std::string_view text, const std::optional<explain::MachineFindings>& machine = std::nullopt,
    const std::string& exclude_url = {}) {
  return explain_with(text, machine, &explain::SimilarCases::embedded(), exclude_url);
}

// What the signatures alone make of a log: for tests of how they are matched and reasoned about.
inline std::vector<explain::Cause> explain_by_signatures(
    std::string_view text, const std::optional<explain::MachineFindings>& machine = std::nullopt) {
  return explain_with(text, machine, nullptr);
}

}  // namespace gpuvet::testing
