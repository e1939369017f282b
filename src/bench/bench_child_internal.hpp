#pragma once
// What the files of the bench child share (internal to src/bench/): the bound library APIs, the
// output protocol of bench_child.hpp, the libraries tried by name, the running GPU context with its
// timing events, and the measurement families:
//   bench_child.cpp     the entry point, the protocol, the GPU context and the device query
//   measure_copies.cpp  the kernel launch, host/device copies and the STREAM triad
//   measure_gemm.cpp    GEMMs through cuBLAS and the CPU GEMM against the GPU's
//   measure_conv.cpp    the cuDNN convolution forward
#include <fmt/format.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "bench/bench_child.hpp"
#include "core/result.hpp"
#include "gpu/api_binding.hpp"
#include "gpu/driver_apis.hpp"
#include "kb/messages.hpp"
#include "platform/dynlib.hpp"

namespace gpuvet::bench::child {

using gpu::CUdeviceptr;
using gpu::CUhandle;
using gpu::CUresultCode;
using platform::DynamicLibrary;

#define GPUVET_CUDA_ALL(X) GPUVET_CUDA_ENTRY_POINTS(X) GPUVET_CUDA_BENCH_ENTRY_POINTS(X)
GPUVET_DEFINE_API(CudaApi, GPUVET_CUDA_ALL)
#undef GPUVET_CUDA_ALL
GPUVET_DEFINE_API(CublasApi, GPUVET_CUBLAS_ENTRY_POINTS)
GPUVET_DEFINE_API(CudnnApi, GPUVET_CUDNN_ENTRY_POINTS)
GPUVET_DEFINE_API(CblasApi, GPUVET_CBLAS_ENTRY_POINTS)

// ---- The protocol (bench_child.cpp) ------------------------------------------------------------

// "@stage TEXT": printed before every call that may crash or hang.
void stage(const std::string& where);
// The progress line on standard error, when the parent asked for one.
void progress(const std::string& what);
// "@result {json}": one measurement, as soon as it is known.
void emit_result(const Result& r);
// A result that could not run: `why` in gpuvet's words (a catalog key), or a failed call's own
// words (quoted as they are).
Result failed(const std::string& name, const std::string& unit, const Error& why);
Result failed(const std::string& name, const std::string& unit, const std::string& why);
// Sets the detail and its catalog words together.
void describe(Result& r, const Error& words);

// The first library of `names` that loads, with the path it loaded from; else every name tried.
struct Loaded {
  std::optional<DynamicLibrary> library;
  std::string name;
  std::string tried;
};
Loaded open_first(const std::vector<std::string>& names);

// ---- The GPU (bench_child.cpp) -----------------------------------------------------------------

// The running context: the driver API, the device, the stream-ordered timing events.
class Gpu {
 public:
  Gpu(const CudaApi& cu, int device) : cu_(cu), device_(device) {}
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  // A CUresult as its name and number.
  std::string error(int code) const;
  // A failed call as an error naming it.
  gpuvet::Result<bool> check(int code, const char* call) const;
  // Retains the primary context, makes it current and creates the timing events.
  gpuvet::Result<bool> open();
  // The median of `repetitions` timed runs of `work` on the default stream, after two untimed.
  gpuvet::Result<double> time_ms(int repetitions, const std::function<int()>& work);

  const CudaApi& cu() const { return cu_; }
  CUhandle& module() { return module_; }

 private:
  const CudaApi& cu_;
  int device_;
  CUhandle context_ = nullptr;
  CUhandle start_ = nullptr;
  CUhandle stop_ = nullptr;
  CUhandle module_ = nullptr;
};

// Device and pinned host memory, freed on every path.
class DeviceMemory {
 public:
  DeviceMemory(const CudaApi& cu, std::size_t bytes) : cu_(cu) {
    stage(fmt::format("cuMemAlloc {}", bytes));
    if (cu_.cuMemAlloc_v2(&ptr_, bytes) != 0) ptr_ = 0;
  }
  ~DeviceMemory() {
    if (ptr_) cu_.cuMemFree_v2(ptr_);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  explicit operator bool() const { return ptr_ != 0; }
  CUdeviceptr get() const { return ptr_; }

 private:
  const CudaApi& cu_;
  CUdeviceptr ptr_ = 0;
};

class PinnedMemory {
 public:
  PinnedMemory(const CudaApi& cu, std::size_t bytes) : cu_(cu) {
    stage(fmt::format("cuMemAllocHost {}", bytes));
    if (cu_.cuMemAllocHost_v2(&ptr_, bytes) != 0) ptr_ = nullptr;
  }
  ~PinnedMemory() {
    if (ptr_) cu_.cuMemFreeHost(ptr_);
  }
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  explicit operator bool() const { return ptr_ != nullptr; }
  unsigned char* get() const { return static_cast<unsigned char*>(ptr_); }

 private:
  const CudaApi& cu_;
  void* ptr_ = nullptr;
};

// ---- The measurement families ----------------------------------------------------------------

// measure_copies.cpp: JIT-compiles the PTX, launches gpuvet_fill and checks every value it wrote
// (the module stays loaded in `g` for the triad).
Result measure_kernel_launch(Gpu& g);
// measure_copies.cpp: host/device copies swept over transfer sizes, and the STREAM triad.
void measure_copies(Gpu& g, Mode mode);

// measure_gemm.cpp: what the CPU comparison needs from the GPU side.
struct GemmOutcome {
  std::optional<double> fp32_ms_at_cpu_size;
};
// measure_gemm.cpp: cublasGemmEx per precision; with cpu_size > 0 also an FP32 GEMM of that size
// for the CPU comparison.
void measure_gemms(Gpu& g, Mode mode, const DeviceInfo& device,
                   const std::vector<std::string>& extra, int cpu_size, GemmOutcome& outcome);
// measure_gemm.cpp: a CPU BLAS's sgemm of size n against the GPU's.
void measure_cpu_vs_gpu_gemm(const GemmOutcome& gpu_side, int n);

// measure_conv.cpp: the cuDNN convolution forward.
void measure_convolution(Gpu& g, Mode mode, const std::vector<std::string>& extra);

}  // namespace gpuvet::bench::child
