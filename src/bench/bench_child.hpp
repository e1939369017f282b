#pragma once
// The child side of verify and bench (hidden verb `gpuvet __bench`): loads the CUDA driver,
// cuBLAS, cuDNN and a CPU BLAS, runs the measurements and prints each as soon as it is known, so
// that a crash or a hang loses only the one that was running. Lines on standard output:
//   @stage TEXT        before every call that may crash or hang
//   @device {json}     what deviceQuery prints
//   @result {json}     one measurement (bench.hpp Result)
//   @failure {json}    why nothing (more) can run: {"id": "driver.missing", "why": "..."}
#include <string>
#include <vector>

namespace gpuvet::bench {

inline constexpr const char* kBenchVerb = "__bench";

enum class Mode { verify, quick, full };

struct ChildOptions {
  Mode mode = Mode::full;
  bool progress = false;            // a progress line on standard error (a terminal)
  std::vector<std::string> cublas;  // paths tried after the library names
  std::vector<std::string> cudnn;
};

void run_bench_child(const ChildOptions& options);

}  // namespace gpuvet::bench
