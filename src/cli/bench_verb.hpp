#pragma once
// The `verify` and `bench` verbs: real work on the GPU, measured against its peak
// (CONTRACTS.md bench/1), and `check --verify`'s runtime finding.
#include <optional>
#include <string>

#include "checks/finding.hpp"
#include "facts/facts.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"

namespace gpuvet::cli {

struct BenchArgs {
  bool verify = false;  // the fast pass/fail subset
  bool quick = false;
  bool json = false;
  std::string html;  // bench --html FILE
};

// Exit status: 0 passed (verify) or ran (bench), 1 failed or nothing could run, 2 bad usage.
int run_bench(const BenchArgs& args, const kb::Kb& kb, const kb::Messages& messages, bool color);

// `check --verify`: verify on this machine; a failure becomes a runtime-layer finding (or the
// driver/GPU finding the child names), success is nothing to report.
std::optional<Finding> verify_finding(const Facts& facts, const kb::Kb& kb,
                                      const kb::Messages& messages);

// The hidden child verb.
int run_bench_child_verb(const std::vector<std::string>& arguments);

}  // namespace gpuvet::cli
