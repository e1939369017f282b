#pragma once
// `gpuvet verify` and `gpuvet bench`: real GPU work through the driver, cuBLAS and cuDNN loaded
// at run time, in a child process with a deadline (CONTRACTS.md `bench/1`). These are the values
// the child reports and the renderers print; nothing here touches a GPU.
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuvet::bench {

// What deviceQuery prints, as far as the driver and NVML tell.
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string compute_capability;                  // "9.0"
  std::string driver;                              // "580.159.04"
  std::optional<std::string> cuda_driver_version;  // "13.0"
  std::optional<int> multiprocessors;
  std::optional<int> clock_mhz;  // SM clock
  std::optional<int> memory_clock_mhz;
  std::optional<int> memory_bus_width;  // bits
  std::optional<long long> memory_bytes;
  std::optional<int> l2_cache_bytes;
  std::optional<int> pcie_generation;  // the current link
  std::optional<int> pcie_width;
  std::optional<bool> ecc;
  std::optional<std::string> compute_mode;
  std::optional<std::string> driver_model;  // WDDM | TCC | MCDM (Windows)
};

// One point of a sweep: transfer size in bytes and the value measured there.
struct Point {
  double x = 0;
  double y = 0;
};

// One measurement. `ok` false means it could not run here; `detail` says why.
struct Result {
  std::string name;  // kernel_launch, h2d_pinned, ..., cpu_vs_gpu_gemm_speedup
  std::optional<double> value;
  std::string unit;  // GB/s, TFLOP/s, ms, x
  std::optional<double> peak;
  std::optional<double> fraction_of_peak;
  bool ok = false;
  bool ran = true;  // false: never started (nothing to run it on, or the run stopped before it)
  std::string detail;
  // `detail` in the catalogs' words: its key and arguments (an Error is what carries them).
  Error detail_words;
  std::vector<Point> series;  // bandwidth against transfer size, when swept
};

struct Report {
  std::optional<DeviceInfo> device;
  std::vector<Result> results;
  // Why nothing ran at all (no driver, no GPU): the finding id and its words.
  std::optional<std::string> failure_id;
  std::optional<std::string> failure;
  // `failure` in the catalogs' words.
  Error failure_words;
  // What to do about it: the fix of check's first cause on this machine, where one was found.
  std::vector<std::string> failure_fix;
  // The run's own words when check's cause replaced them ("libcuda.so.1 cannot be loaded").
  std::optional<std::string> failure_detail;
};

}  // namespace gpuvet::bench
