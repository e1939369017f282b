#pragma once
// Rendering of `gpuvet verify` and `gpuvet bench` (CONTRACTS.md bench/1).
#include <string>

#include "bench/bench.hpp"
#include "kb/messages.hpp"

namespace gpuvet::report {

std::string render_bench_json(const bench::Report& report);
std::string render_bench_text(const bench::Report& report, const kb::Messages& messages,
                              bool verify, bool passed, bool color);

}  // namespace gpuvet::report
