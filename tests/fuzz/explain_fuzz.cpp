// libFuzzer target for explain's log reader, signature engine and reasoning: whatever the bytes
// (huge lines, NULs, invalid UTF-8 or UTF-16, escape sequences), no crash, no hang, bounded
// evidence; and the two literal scans (Teddy, Wu-Manber) give the same answer. Built and run by
// scripts/fuzz.sh (clang -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "explain/explain.hpp"
#include "explain/literal_filter.hpp"
#include "explain/log_reader.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "report/render_explain.hpp"

namespace {

struct Setup {
  gpuvet::kb::Kb kb = *gpuvet::kb::Kb::embedded();
  gpuvet::kb::Messages messages = *gpuvet::kb::Messages::load(kb, gpuvet::kb::Lang::en);
  gpuvet::explain::Signatures signatures = [this] {
    auto loaded = gpuvet::explain::Signatures::load(kb);
    return std::move(loaded).value();
  }();
  std::vector<std::string> literals = [this] {
    std::vector<std::string> all;
    for (const auto& sig : signatures.all())
      all.insert(all.end(), sig.literals.begin(), sig.literals.end());
    return all;
  }();
  gpuvet::explain::LiteralFilter teddy{literals, gpuvet::explain::LiteralFilter::Scan::teddy};
  gpuvet::explain::LiteralFilter wu_manber{literals,
                                           gpuvet::explain::LiteralFilter::Scan::wu_manber};
};

const Setup& setup() {
  static const Setup s;
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Setup& s = setup();
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (s.teddy.find(bytes) != s.wu_manber.find(bytes)) __builtin_trap();
  gpuvet::explain::Collector collector(s.signatures, &gpuvet::explain::SimilarCases::embedded());
  // Split the input at a byte it chooses, so that chunk boundaries are fuzzed too.
  gpuvet::explain::LogReader reader(
      [&](std::size_t n, std::string_view line) { return collector.on_line(n, line); });
  reader.set_candidate_finder(
      [&](std::string_view lines) { return collector.first_candidate(lines); });
  const std::size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  if (reader.feed(bytes.substr(0, cut)) && reader.feed(bytes.substr(cut))) (void)reader.finish();
  const auto causes = gpuvet::explain::reason(collector.causes(), s.kb, s.messages, std::nullopt,
                                              collector.log_facts());
  for (const auto& c : causes) {
    if (c.evidence.size() > gpuvet::explain::kMaxEvidence) __builtin_trap();
  }
  (void)gpuvet::report::render_explain_json(causes);
  return 0;
}
