#pragma once
// The parent side of verify and bench: runs the child (bench_child.hpp) with a deadline, reads
// what it printed, turns a crash or a hang into a failure that names the stage, makes sure every
// result name of the contract is present, and sets the peaks from the knowledge base.
#include <chrono>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "bench/bench_child.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "platform/child_process.hpp"

namespace gpuvet::bench {

struct RunOptions {
  Mode mode = Mode::full;
  bool progress = false;
  std::string helper;  // the gpuvet executable that runs `__bench`
  std::chrono::milliseconds timeout{600000};
  std::vector<std::string> cublas;  // library paths found on this machine (toolkits, wheels)
  std::vector<std::string> cudnn;
};

// The result names a report of this mode always holds (CONTRACTS.md bench/1).
std::vector<std::string> contract_names(Mode mode);

Report run(const RunOptions& options);
// What the child printed, however it ended.
Report parse_child_output(const platform::ChildOutcome& outcome, Mode mode);
// Peaks and fractions: GEMM and memory bandwidth from data/gpu_peaks.csv (memory bandwidth from
// the clocks when the GPU is not there), host<->device from the PCIe link and data/pcie_links.csv.
void attach_peaks(Report& report, const kb::Kb& kb);
// The failure and every detail in the catalog's language (the child speaks keys and English).
void put_in_words(Report& report, const kb::Messages& messages);
// verify passes when the kernel ran right and the data crossed the bus intact.
bool verify_passed(const Report& report);

}  // namespace gpuvet::bench
