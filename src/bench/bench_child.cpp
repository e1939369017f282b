#include "bench/bench_child.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "bench/bench.hpp"
#include "bench/bench_json.hpp"
#include "bench/kernels.hpp"
#include "bench/libraries.hpp"
#include "bench/measure.hpp"
#include "core/result.hpp"
#include "gpu/api_binding.hpp"
#include "gpu/driver_apis.hpp"
#include "gpu/library_names.hpp"
#include "platform/dynlib.hpp"

namespace gpuvet::bench {

namespace {

using gpu::CUdeviceptr;
using gpu::CUhandle;
using gpu::CUresultCode;
using gpu::DynamicLibrary;
using gpu::nvmlDevice;
using gpu::NvmlMemory;
using gpu::NvmlPciInfo;
using gpu::nvmlReturn;

#define GPUVET_CUDA_ALL(X) GPUVET_CUDA_ENTRY_POINTS(X) GPUVET_CUDA_BENCH_ENTRY_POINTS(X)
GPUVET_DEFINE_API(CudaApi, GPUVET_CUDA_ALL)
#undef GPUVET_CUDA_ALL
GPUVET_DEFINE_API(NvmlApi, GPUVET_NVML_ENTRY_POINTS)
GPUVET_DEFINE_API(CublasApi, GPUVET_CUBLAS_ENTRY_POINTS)
GPUVET_DEFINE_API(CudnnApi, GPUVET_CUDNN_ENTRY_POINTS)
GPUVET_DEFINE_API(CblasApi, GPUVET_CBLAS_ENTRY_POINTS)

using json = nlohmann::ordered_json;

void emit(const char* tag, const json& value) {
  std::printf("@%s %s\n", tag, value.dump().c_str());
  std::fflush(stdout);
}

void stage(const std::string& where) {
  std::printf("@stage %s\n", where.c_str());
  std::fflush(stdout);
}

bool g_progress = false;

void progress(const std::string& what) {
  if (!g_progress) return;
  std::fprintf(stderr, "\r\x1b[K  gpuvet: %s", what.c_str());
  std::fflush(stderr);
}

void emit_result(const Result& r) {
  json j = {{"name", r.name}, {"unit", r.unit}, {"ok", r.ok}, {"detail", r.detail}};
  j["value"] = r.value ? json(*r.value) : json(nullptr);
  json series = json::array();
  for (const auto& p : r.series)
    series.push_back({p.x, p.y});
  j["series"] = series;
  emit("result", j);
  progress(r.name + (r.ok ? " done" : " could not run"));
}

void emit_failure(const std::string& id, const std::string& why) {
  emit("failure", json{{"id", id}, {"why", why}});
}

Result failed(const std::string& name, const std::string& unit, const std::string& why) {
  Result r;
  r.name = name;
  r.unit = unit;
  r.ok = false;
  r.detail = why;
  return r;
}

struct Loaded {
  std::optional<DynamicLibrary> library;
  std::string name;
  std::string tried;
};

Loaded open_first(const std::vector<std::string>& names) {
  Loaded out;
  for (const auto& name : names) {
    stage("dlopen " + name);
    auto lib = DynamicLibrary::open(name);
    if (lib) {
      out.name = lib->path().value_or(name);
      out.library.emplace(std::move(*lib));
      return out;
    }
    out.tried += (out.tried.empty() ? "" : ", ") + name;
  }
  return out;
}

// The running context: the driver API, the device, the stream-ordered timing events.
class Gpu {
 public:
  Gpu(const CudaApi& cu, int device) : cu_(cu), device_(device) {}
  ~Gpu() {
    if (module_) cu_.cuModuleUnload(module_);
    if (start_) cu_.cuEventDestroy_v2(start_);
    if (stop_) cu_.cuEventDestroy_v2(stop_);
    if (context_) cu_.cuDevicePrimaryCtxRelease_v2(device_);
  }
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  std::string error(int code) const {
    const char* name = nullptr;
    if (cu_.cuGetErrorName && cu_.cuGetErrorName(code, &name) == 0 && name) {
      return fmt::format("{} ({})", name, code);
    }
    return fmt::format("CUresult {}", code);
  }
  // A failed call as an error naming it.
  gpuvet::Result<bool> check(int code, const char* call) const {
    if (code == 0) return true;
    return make_error(fmt::format("{}: {}", call, error(code)));
  }

  gpuvet::Result<bool> open() {
    stage("cuDevicePrimaryCtxRetain");
    if (auto ok =
            check(cu_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
        !ok) {
      context_ = nullptr;
      return ok;
    }
    if (auto ok = check(cu_.cuCtxSetCurrent(context_), "cuCtxSetCurrent"); !ok) return ok;
    if (auto ok = check(cu_.cuEventCreate(&start_, 0), "cuEventCreate"); !ok) return ok;
    return check(cu_.cuEventCreate(&stop_, 0), "cuEventCreate");
  }

  // The median of `repetitions` timed runs of `work` on the default stream, after two untimed.
  gpuvet::Result<double> time_ms(int repetitions, const std::function<int()>& work) {
    std::vector<double> samples;
    for (int i = -2; i < repetitions; ++i) {
      if (auto ok = check(cu_.cuEventRecord(start_, nullptr), "cuEventRecord"); !ok)
        return ok.error();
      if (auto ok = check(work(), "the timed work"); !ok) return ok.error();
      if (auto ok = check(cu_.cuEventRecord(stop_, nullptr), "cuEventRecord"); !ok)
        return ok.error();
      if (auto ok = check(cu_.cuEventSynchronize(stop_), "cuEventSynchronize"); !ok) {
        return ok.error();
      }
      float ms = 0;
      if (auto ok = check(cu_.cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime"); !ok) {
        return ok.error();
      }
      if (i >= 0) samples.push_back(ms);
    }
    return *median(samples);
  }

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

std::optional<int> attribute(const CudaApi& cu, int which, int device) {
  int value = 0;
  if (!cu.cuDeviceGetAttribute || cu.cuDeviceGetAttribute(&value, which, device) != 0) {
    return std::nullopt;
  }
  return value;
}

void nvml_details(DeviceInfo& info, int index) {
  auto lib = DynamicLibrary::open(gpu::nvml_library());
  if (!lib) return;
  const NvmlApi nvml = NvmlApi::bind(*lib);
  if (!nvml.missing.empty()) return;
  stage("nvmlInit_v2");
  if (nvml.nvmlInit_v2() != 0) return;
  char text[gpu::kNvmlStringBuffer] = {};
  if (nvml.nvmlSystemGetDriverVersion(text, sizeof text) == 0) {
    info.driver = std::string(text, strnlen(text, sizeof text));
  }
  gpu::nvmlDevice device = nullptr;
  if (nvml.nvmlDeviceGetHandleByIndex_v2(static_cast<unsigned>(index), &device) == 0) {
    unsigned value = 0;
    if (nvml.nvmlDeviceGetCurrPcieLinkGeneration &&
        nvml.nvmlDeviceGetCurrPcieLinkGeneration(device, &value) == 0) {
      info.pcie_generation = static_cast<int>(value);
    }
    if (nvml.nvmlDeviceGetCurrPcieLinkWidth &&
        nvml.nvmlDeviceGetCurrPcieLinkWidth(device, &value) == 0) {
      info.pcie_width = static_cast<int>(value);
    }
    int current = 0;
    int pending = 0;
    if (nvml.nvmlDeviceGetDriverModel &&
        nvml.nvmlDeviceGetDriverModel(device, &current, &pending) == 0) {
      info.driver_model = gpu::driver_model_name(current);
    }
  }
  nvml.nvmlShutdown();
}

DeviceInfo query_device(const CudaApi& cu, int index, int device) {
  DeviceInfo info;
  info.index = index;
  char name[256] = {};
  if (cu.cuDeviceGetName && cu.cuDeviceGetName(name, sizeof name, device) == 0) {
    info.name = std::string(name, strnlen(name, sizeof name));
  }
  const auto major = attribute(cu, gpu::kCuAttributeComputeCapabilityMajor, device);
  const auto minor = attribute(cu, gpu::kCuAttributeComputeCapabilityMinor, device);
  if (major && minor) info.compute_capability = fmt::format("{}.{}", *major, *minor);
  int version = 0;
  if (cu.cuDriverGetVersion(&version) == 0 && version > 0) {
    info.cuda_driver_version = fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
  }
  info.multiprocessors = attribute(cu, gpu::kCuAttributeMultiprocessorCount, device);
  if (auto khz = attribute(cu, gpu::kCuAttributeClockRate, device)) info.clock_mhz = *khz / 1000;
  if (auto khz = attribute(cu, gpu::kCuAttributeMemoryClockRate, device)) {
    info.memory_clock_mhz = *khz / 1000;
  }
  info.memory_bus_width = attribute(cu, gpu::kCuAttributeGlobalMemoryBusWidth, device);
  info.l2_cache_bytes = attribute(cu, gpu::kCuAttributeL2CacheSize, device);
  if (auto ecc = attribute(cu, gpu::kCuAttributeEccEnabled, device)) info.ecc = *ecc != 0;
  if (auto mode = attribute(cu, gpu::kCuAttributeComputeMode, device)) {
    info.compute_mode = gpu::compute_mode_name(*mode);
  }
  std::size_t bytes = 0;
  if (cu.cuDeviceTotalMem_v2 && cu.cuDeviceTotalMem_v2(&bytes, device) == 0) {
    info.memory_bytes = static_cast<long long>(bytes);
  }
  nvml_details(info, index);
  return info;
}

// --- the measurements -------------------------------------------------------------------------

constexpr unsigned kBlock = 256;

unsigned grid_for(std::size_t n) {
  return static_cast<unsigned>((n + kBlock - 1) / kBlock);
}

// JIT-compiles the PTX, launches gpuvet_fill and checks every value it wrote.
Result kernel_launch(Gpu& g) {
  const CudaApi& cu = g.cu();
  stage("cuModuleLoadData (PTX JIT)");
  const auto t0 = std::chrono::steady_clock::now();
  const int loaded = cu.cuModuleLoadData(&g.module(), kKernelsPtx);
  const double jit_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (loaded != 0) {
    g.module() = nullptr;
    return failed("kernel_launch", "ms",
                  fmt::format("the driver cannot JIT-compile gpuvet's PTX for this GPU: {}",
                              g.error(loaded)));
  }
  CUhandle fill = nullptr;
  if (auto ok =
          g.check(cu.cuModuleGetFunction(&fill, g.module(), kFillKernel), "cuModuleGetFunction");
      !ok) {
    return failed("kernel_launch", "ms", ok.error().message);
  }
  unsigned n = 1u << 20;
  DeviceMemory out(cu, n * sizeof(unsigned));
  if (!out) return failed("kernel_launch", "ms", "cuMemAlloc of 4 MiB failed");
  CUdeviceptr pointer = out.get();
  void* args[] = {&pointer, &n};
  stage("cuLaunchKernel gpuvet_fill");
  const auto launch = [&] {
    return cu.cuLaunchKernel(fill, grid_for(n), 1, 1, kBlock, 1, 1, 0, nullptr, args, nullptr);
  };
  auto ms = g.time_ms(5, launch);
  if (!ms) return failed("kernel_launch", "ms", ms.error().message);
  std::vector<unsigned> host(n);
  stage("cuMemcpyDtoH (kernel output)");
  if (auto ok =
          g.check(cu.cuMemcpyDtoH_v2(host.data(), out.get(), n * sizeof(unsigned)), "cuMemcpyDtoH");
      !ok) {
    return failed("kernel_launch", "ms", ok.error().message);
  }
  for (unsigned i = 0; i < n; ++i) {
    if (host[i] != fill_value(i)) {
      return failed("kernel_launch", "ms",
                    fmt::format("the kernel ran but wrote {} at index {} (expected {})", host[i], i,
                                fill_value(i)));
    }
  }
  Result r;
  r.name = "kernel_launch";
  r.unit = "ms";
  r.value = jit_ms;
  r.ok = true;
  r.detail = fmt::format(
      "PTX (ISA 5.0, sm_30) JIT-compiled by the driver in {:.1f} ms; a launch over {} threads "
      "took {:.3f} ms and all {} values were right",
      jit_ms, n, *ms, n);
  return r;
}

struct Buffers {
  std::size_t bytes = 0;
  std::unique_ptr<DeviceMemory> a, b, c;
  std::unique_ptr<PinnedMemory> pinned;
  std::vector<unsigned char> pageable;
};

// Plain device allocations within what is free, halving the size until they fit.
std::optional<Buffers> allocate(const CudaApi& cu, std::size_t wanted) {
  std::size_t free_bytes = 0;
  std::size_t total = 0;
  if (cu.cuMemGetInfo_v2(&free_bytes, &total) != 0) return std::nullopt;
  for (std::size_t bytes = wanted; bytes >= (std::size_t{4} << 20); bytes /= 2) {
    if (3 * bytes + (std::size_t{256} << 20) > free_bytes) continue;
    Buffers buffers;
    buffers.bytes = bytes;
    buffers.a = std::make_unique<DeviceMemory>(cu, bytes);
    buffers.b = std::make_unique<DeviceMemory>(cu, bytes);
    buffers.c = std::make_unique<DeviceMemory>(cu, bytes);
    buffers.pinned = std::make_unique<PinnedMemory>(cu, bytes);
    if (!*buffers.a || !*buffers.b || !*buffers.c || !*buffers.pinned) continue;
    try {
      buffers.pageable.assign(bytes, 0);
    } catch (const std::bad_alloc&) {
      continue;
    }
    return buffers;
  }
  return std::nullopt;
}

Result copy_sweep(Gpu& g, Buffers& buf, const std::string& name, bool quick,
                  const std::function<int(std::size_t)>& copy, double bytes_factor,
                  const std::string& what) {
  Result r;
  r.name = name;
  r.unit = "GB/s";
  for (const std::size_t size : transfer_sizes(buf.bytes)) {
    stage(fmt::format("{} {}", name, size));
    progress(fmt::format("{} {} KiB", name, size >> 10));
    auto ms = g.time_ms(repetitions_for(size, quick), [&] { return copy(size); });
    if (!ms) return failed(name, "GB/s", ms.error().message);
    r.series.push_back({static_cast<double>(size), gigabytes_per_second(bytes_factor * size, *ms)});
  }
  r.value = r.series.empty() ? std::nullopt : std::optional<double>(r.series.back().y);
  r.ok = r.value.has_value();
  r.detail = fmt::format("{}; median of timed runs (CUDA events) after two warm-ups, {} to {}",
                         what, "4 KiB", fmt::format("{} MiB", buf.bytes >> 20));
  return r;
}

// host (pinned) -> a -> b (device to device) -> host (pageable): the bytes must come back.
std::optional<std::string> verify_round_trip(Gpu& g, Buffers& buf) {
  const CudaApi& cu = g.cu();
  auto* words = reinterpret_cast<unsigned*>(buf.pinned->get());
  const std::size_t count = buf.bytes / sizeof(unsigned);
  for (std::size_t i = 0; i < count; ++i)
    words[i] = fill_value(static_cast<unsigned>(i)) ^ 0x5A5A5A5Au;
  stage("round trip");
  if (auto ok =
          g.check(cu.cuMemcpyHtoD_v2(buf.a->get(), buf.pinned->get(), buf.bytes), "cuMemcpyHtoD");
      !ok) {
    return ok.error().message;
  }
  if (auto ok = g.check(cu.cuMemcpyDtoDAsync_v2(buf.b->get(), buf.a->get(), buf.bytes, nullptr),
                        "cuMemcpyDtoD");
      !ok) {
    return ok.error().message;
  }
  if (auto ok =
          g.check(cu.cuMemcpyDtoH_v2(buf.pageable.data(), buf.b->get(), buf.bytes), "cuMemcpyDtoH");
      !ok) {
    return ok.error().message;
  }
  if (std::memcmp(buf.pageable.data(), buf.pinned->get(), buf.bytes) != 0) {
    return std::string("the data copied host -> device -> device -> host came back different");
  }
  return std::nullopt;
}

Result triad(Gpu& g, Buffers& buf, bool quick) {
  const CudaApi& cu = g.cu();
  CUhandle function = nullptr;
  if (!g.module() || cu.cuModuleGetFunction(&function, g.module(), kTriadKernel) != 0) {
    return failed("stream_triad", "GB/s", "the kernels did not load (see kernel_launch)");
  }
  unsigned n = static_cast<unsigned>(std::min<std::size_t>(buf.bytes / sizeof(float), 1u << 30));
  auto* floats = reinterpret_cast<float*>(buf.pinned->get());
  for (unsigned i = 0; i < n; ++i)
    floats[i] = 1.0f;
  if (cu.cuMemcpyHtoD_v2(buf.b->get(), floats, n * sizeof(float)) != 0) {
    return failed("stream_triad", "GB/s", "cuMemcpyHtoD failed");
  }
  for (unsigned i = 0; i < n; ++i)
    floats[i] = 2.0f;
  if (cu.cuMemcpyHtoD_v2(buf.c->get(), floats, n * sizeof(float)) != 0) {
    return failed("stream_triad", "GB/s", "cuMemcpyHtoD failed");
  }
  CUdeviceptr a = buf.a->get();
  CUdeviceptr b = buf.b->get();
  CUdeviceptr c = buf.c->get();
  float scalar = 3.0f;
  void* args[] = {&a, &b, &c, &scalar, &n};
  stage("cuLaunchKernel gpuvet_triad");
  auto ms = g.time_ms(repetitions_for(buf.bytes, quick), [&] {
    return cu.cuLaunchKernel(function, grid_for(n), 1, 1, kBlock, 1, 1, 0, nullptr, args, nullptr);
  });
  if (!ms) return failed("stream_triad", "GB/s", ms.error().message);
  if (cu.cuMemcpyDtoH_v2(floats, a, n * sizeof(float)) != 0) {
    return failed("stream_triad", "GB/s", "cuMemcpyDtoH failed");
  }
  for (unsigned i = 0; i < n; i += 4099) {
    if (floats[i] != 7.0f) {
      return failed("stream_triad", "GB/s",
                    fmt::format("a[{}] = {} after the triad (expected 7)", i, floats[i]));
    }
  }
  Result r;
  r.name = "stream_triad";
  r.unit = "GB/s";
  r.value = gigabytes_per_second(3.0 * n * sizeof(float), *ms);
  r.ok = true;
  r.detail =
      fmt::format("a = b + s*c over {} floats: 2 reads and 1 write each, results checked", n);
  return r;
}

void bandwidth(Gpu& g, Mode mode) {
  const std::size_t wanted = mode == Mode::full    ? std::size_t{1} << 30
                             : mode == Mode::quick ? std::size_t{256} << 20
                                                   : std::size_t{64} << 20;
  const bool quick = mode != Mode::full;
  auto buf = allocate(g.cu(), wanted);
  const std::vector<std::string> names = {"h2d_pinned",   "d2h_pinned", "h2d_pageable",
                                          "d2h_pageable", "d2d_copy",   "stream_triad"};
  if (!buf) {
    for (const auto& name : names) {
      emit_result(failed(name, "GB/s", "not enough free device or host memory for the buffers"));
    }
    return;
  }
  const CudaApi& cu = g.cu();
  const auto verified = verify_round_trip(g, *buf);
  const std::string check = verified ? "data check FAILED: " + *verified : "data verified";
  const auto copy_result = [&](const std::string& name, const std::function<int(std::size_t)>& f,
                               double factor, const std::string& what) {
    Result r = copy_sweep(g, *buf, name, quick, f, factor, what + "; " + check);
    if (verified) r.ok = false;
    emit_result(r);
  };
  copy_result(
      "h2d_pinned",
      [&](std::size_t n) {
        return cu.cuMemcpyHtoDAsync_v2(buf->a->get(), buf->pinned->get(), n, nullptr);
      },
      1.0, "host (pinned) to device");
  copy_result(
      "d2h_pinned",
      [&](std::size_t n) {
        return cu.cuMemcpyDtoHAsync_v2(buf->pinned->get(), buf->a->get(), n, nullptr);
      },
      1.0, "device to host (pinned)");
  if (mode != Mode::verify) {
    copy_result(
        "h2d_pageable",
        [&](std::size_t n) {
          return cu.cuMemcpyHtoDAsync_v2(buf->a->get(), buf->pageable.data(), n, nullptr);
        },
        1.0, "host (pageable) to device");
    copy_result(
        "d2h_pageable",
        [&](std::size_t n) {
          return cu.cuMemcpyDtoHAsync_v2(buf->pageable.data(), buf->a->get(), n, nullptr);
        },
        1.0, "device to host (pageable)");
  }
  copy_result(
      "d2d_copy",
      [&](std::size_t n) {
        return cu.cuMemcpyDtoDAsync_v2(buf->b->get(), buf->a->get(), n, nullptr);
      },
      2.0, "device to device, counting the bytes read and written");
  if (mode != Mode::verify) emit_result(triad(g, *buf, quick));
}

// --- GEMM through cuBLAS -----------------------------------------------------------------------

struct Precision {
  const char* name;
  int data_type;
  int compute_type;
  const char* min_cc;
};

constexpr Precision kPrecisions[] = {
    {"gemm_fp32", gpu::kCudaR32F, gpu::kCublasCompute32F, "3.0"},
    {"gemm_tf32", gpu::kCudaR32F, gpu::kCublasCompute32FFastTf32, "8.0"},
    {"gemm_fp16", gpu::kCudaR16F, gpu::kCublasCompute32F, "5.3"},
    {"gemm_bf16", gpu::kCudaR16BF, gpu::kCublasCompute32F, "8.0"},
};

bool cc_below(const std::string& cc, const std::string& minimum) {
  const double a = std::atof(cc.c_str());
  const double b = std::atof(minimum.c_str());
  return a + 1e-9 < b;
}

std::vector<unsigned char> encode(const std::vector<float>& values, int data_type) {
  std::vector<unsigned char> out;
  if (data_type == gpu::kCudaR32F) {
    out.resize(values.size() * 4);
    std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  out.resize(values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t bits =
        data_type == gpu::kCudaR16F ? float_to_half(values[i]) : float_to_bfloat16(values[i]);
    std::memcpy(out.data() + 2 * i, &bits, 2);
  }
  return out;
}

struct GemmRun {
  double ms = 0;
  std::string check;  // empty when the spot check passed
};

// C = A·B, column-major, n×n, inputs exact in every precision; 16 elements checked against
// double sums on the host.
gpuvet::Result<GemmRun> run_gemm(Gpu& g, const CublasApi& blas, CUhandle handle, const Precision& p,
                                 int n, int repetitions) {
  const CudaApi& cu = g.cu();
  const std::size_t count = static_cast<std::size_t>(n) * n;
  std::vector<float> a(count);
  std::vector<float> b(count);
  for (std::size_t i = 0; i < count; ++i) {
    a[i] = gemm_input(i, 1);
    b[i] = gemm_input(i, 2);
  }
  const auto a_bytes = encode(a, p.data_type);
  const auto b_bytes = encode(b, p.data_type);
  DeviceMemory da(cu, a_bytes.size());
  DeviceMemory db(cu, b_bytes.size());
  DeviceMemory dc(cu, count * sizeof(float));
  if (!da || !db || !dc) return make_error("not enough device memory for the matrices");
  if (auto ok =
          g.check(cu.cuMemcpyHtoD_v2(da.get(), a_bytes.data(), a_bytes.size()), "cuMemcpyHtoD");
      !ok) {
    return ok.error();
  }
  if (auto ok =
          g.check(cu.cuMemcpyHtoD_v2(db.get(), b_bytes.data(), b_bytes.size()), "cuMemcpyHtoD");
      !ok) {
    return ok.error();
  }
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const auto a_ptr = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(da.get()));
  const auto b_ptr = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(db.get()));
  const auto c_ptr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(dc.get()));
  int status = 0;
  const auto gemm = [&] {
    status = blas.cublasGemmEx(handle, gpu::kCublasOpN, gpu::kCublasOpN, n, n, n, &alpha, a_ptr,
                               p.data_type, n, b_ptr, p.data_type, n, &beta, c_ptr, gpu::kCudaR32F,
                               n, p.compute_type, gpu::kCublasGemmDefault);
    return 0;
  };
  stage(fmt::format("cublasGemmEx {} {}", p.name, n));
  gemm();
  if (status != 0) return make_error(fmt::format("cublasGemmEx: cublasStatus {}", status));
  auto ms = g.time_ms(repetitions, gemm);
  if (!ms) return ms.error();
  if (status != 0) return make_error(fmt::format("cublasGemmEx: cublasStatus {}", status));
  std::vector<float> c(count);
  if (auto ok =
          g.check(cu.cuMemcpyDtoH_v2(c.data(), dc.get(), count * sizeof(float)), "cuMemcpyDtoH");
      !ok) {
    return ok.error();
  }
  GemmRun run{*ms, ""};
  for (int s = 0; s < 16; ++s) {
    const int i = (s * 7919) % n;
    const int j = (s * 104729 + 13) % n;
    double want = 0;
    for (int k = 0; k < n; ++k) {
      want +=
          static_cast<double>(a[static_cast<std::size_t>(i) + static_cast<std::size_t>(k) * n]) *
          b[static_cast<std::size_t>(k) + static_cast<std::size_t>(j) * n];
    }
    const double got = c[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n];
    if (std::fabs(got - want) > 1e-3 * (1.0 + std::fabs(want))) {
      run.check = fmt::format("C[{},{}] = {} but the exact value is {}", i, j, got, want);
      break;
    }
  }
  return run;
}

struct GemmOutcome {
  std::optional<double> fp32_ms_at_cpu_size;
};

void gemms(Gpu& g, Mode mode, const DeviceInfo& device, const std::vector<std::string>& extra,
           int cpu_size, GemmOutcome& outcome) {
  std::vector<std::string> names = cublas_names();
  names.insert(names.end(), extra.begin(), extra.end());
  Loaded lib = open_first(names);
  if (!lib.library) {
    for (const auto& p : kPrecisions) {
      if (mode == Mode::verify && std::string(p.name) != "gemm_fp32") continue;
      emit_result(failed(p.name, "TFLOP/s", "cuBLAS not found (tried " + lib.tried + ")"));
    }
    return;
  }
  const CublasApi blas = CublasApi::bind(*lib.library);
  CUhandle handle = nullptr;
  stage("cublasCreate_v2");
  const int created = blas.missing.empty() ? blas.cublasCreate_v2(&handle) : -1;
  if (created != 0) {
    const std::string why =
        blas.missing.empty()
            ? fmt::format("cublasCreate: cublasStatus {} ({})", created, lib.name)
            : lib.name + " lacks " + blas.missing.front() + " (cuBLAS 11 or newer is needed)";
    for (const auto& p : kPrecisions) {
      if (mode == Mode::verify && std::string(p.name) != "gemm_fp32") continue;
      emit_result(failed(p.name, "TFLOP/s", why));
    }
    return;
  }
  const int n = mode == Mode::full ? 8192 : mode == Mode::quick ? 4096 : 1024;
  const int repetitions = mode == Mode::full ? 10 : 3;
  for (const auto& p : kPrecisions) {
    if (mode == Mode::verify && std::string(p.name) != "gemm_fp32") continue;
    if (cc_below(device.compute_capability, p.min_cc)) {
      emit_result(failed(p.name, "TFLOP/s",
                         fmt::format("needs compute capability {} (this GPU: {})", p.min_cc,
                                     device.compute_capability)));
      continue;
    }
    progress(fmt::format("{} {}^3", p.name, n));
    auto run = run_gemm(g, blas, handle, p, n, repetitions);
    if (!run) {
      emit_result(failed(p.name, "TFLOP/s", run.error().message));
      continue;
    }
    Result r;
    r.name = p.name;
    r.unit = "TFLOP/s";
    r.value = gemm_tflops(n, n, n, run->ms);
    r.ok = run->check.empty();
    r.detail = fmt::format("cublasGemmEx {}x{}x{} through {}; {}", n, n, n, lib.name,
                           run->check.empty() ? "16 elements checked exactly" : run->check);
    emit_result(r);
  }
  if (cpu_size > 0) {
    auto run = run_gemm(g, blas, handle, kPrecisions[0], cpu_size, 5);
    if (run && run->check.empty()) outcome.fp32_ms_at_cpu_size = run->ms;
  }
  blas.cublasDestroy_v2(handle);
}

// --- cuDNN convolution forward -----------------------------------------------------------------

// The seeds' benchmark layer: Conv2D(32 filters, 3x3) on 256x256 RGB images, padding "same".
void convolution(Gpu& g, Mode mode, const std::vector<std::string>& extra) {
  std::vector<std::string> names = cudnn_names();
  names.insert(names.end(), extra.begin(), extra.end());
  Loaded lib = open_first(names);
  if (!lib.library) {
    emit_result(failed("cudnn_conv_fwd", "TFLOP/s", "cuDNN not found (tried " + lib.tried + ")"));
    return;
  }
  const CudnnApi dnn = CudnnApi::bind(*lib.library);
  if (!dnn.missing.empty()) {
    emit_result(failed("cudnn_conv_fwd", "TFLOP/s", lib.name + " lacks " + dnn.missing.front()));
    return;
  }
  const CudaApi& cu = g.cu();
  const int batch = mode == Mode::full ? 32 : 8;
  const int channels = 3, height = 256, width = 256, filters = 32, r = 3, s = 3;
  CUhandle handle = nullptr, x_desc = nullptr, y_desc = nullptr, w_desc = nullptr, conv = nullptr;
  stage("cudnnCreate");
  int status = dnn.cudnnCreate(&handle);
  const auto fail = [&](const std::string& what) {
    emit_result(failed("cudnn_conv_fwd", "TFLOP/s",
                       fmt::format("{}: cudnnStatus {} ({})", what, status, lib.name)));
  };
  if (status != 0) return fail("cudnnCreate");
  dnn.cudnnCreateTensorDescriptor(&x_desc);
  dnn.cudnnCreateTensorDescriptor(&y_desc);
  dnn.cudnnCreateFilterDescriptor(&w_desc);
  dnn.cudnnCreateConvolutionDescriptor(&conv);
  const auto cleanup = [&] {
    dnn.cudnnDestroyConvolutionDescriptor(conv);
    dnn.cudnnDestroyFilterDescriptor(w_desc);
    dnn.cudnnDestroyTensorDescriptor(y_desc);
    dnn.cudnnDestroyTensorDescriptor(x_desc);
    dnn.cudnnDestroy(handle);
  };
  int on = 0, oc = 0, oh = 0, ow = 0;
  status = dnn.cudnnSetTensor4dDescriptor(x_desc, gpu::kCudnnTensorNchw, gpu::kCudnnDataFloat,
                                          batch, channels, height, width);
  if (status == 0) {
    status = dnn.cudnnSetFilter4dDescriptor(w_desc, gpu::kCudnnDataFloat, gpu::kCudnnTensorNchw,
                                            filters, channels, r, s);
  }
  if (status == 0) {
    status = dnn.cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1,
                                                 gpu::kCudnnCrossCorrelation, gpu::kCudnnDataFloat);
  }
  if (status == 0) {
    status = dnn.cudnnGetConvolution2dForwardOutputDim(conv, x_desc, w_desc, &on, &oc, &oh, &ow);
  }
  if (status == 0) {
    status = dnn.cudnnSetTensor4dDescriptor(y_desc, gpu::kCudnnTensorNchw, gpu::kCudnnDataFloat, on,
                                            oc, oh, ow);
  }
  std::size_t workspace_bytes = 0;
  if (status == 0) {
    status = dnn.cudnnGetConvolutionForwardWorkspaceSize(handle, x_desc, w_desc, conv, y_desc,
                                                         gpu::kCudnnFwdAlgoImplicitPrecompGemm,
                                                         &workspace_bytes);
  }
  if (status != 0) {
    fail("describing the convolution");
    return cleanup();
  }
  const std::size_t x_count = static_cast<std::size_t>(batch) * channels * height * width;
  const std::size_t w_count = static_cast<std::size_t>(filters) * channels * r * s;
  const std::size_t y_count = static_cast<std::size_t>(on) * oc * oh * ow;
  std::vector<float> x(x_count), w(w_count), y(y_count);
  for (std::size_t i = 0; i < x_count; ++i)
    x[i] = gemm_input(i, 3);
  for (std::size_t i = 0; i < w_count; ++i)
    w[i] = gemm_input(i, 4);
  DeviceMemory dx(cu, x_count * 4), dw(cu, w_count * 4), dy(cu, y_count * 4),
      dwork(cu, std::max<std::size_t>(workspace_bytes, 256));
  if (!dx || !dw || !dy || !dwork) {
    emit_result(failed("cudnn_conv_fwd", "TFLOP/s", "not enough device memory"));
    return cleanup();
  }
  cu.cuMemcpyHtoD_v2(dx.get(), x.data(), x_count * 4);
  cu.cuMemcpyHtoD_v2(dw.get(), w.data(), w_count * 4);
  const float alpha = 1.0f, beta = 0.0f;
  const auto ptr = [](const DeviceMemory& m) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(m.get()));
  };
  const auto forward = [&] {
    status = dnn.cudnnConvolutionForward(handle, &alpha, x_desc, ptr(dx), w_desc, ptr(dw), conv,
                                         gpu::kCudnnFwdAlgoImplicitPrecompGemm, ptr(dwork),
                                         workspace_bytes, &beta, y_desc, ptr(dy));
    return 0;
  };
  stage("cudnnConvolutionForward");
  progress("cudnn_conv_fwd");
  auto ms = g.time_ms(mode == Mode::full ? 10 : 3, forward);
  if (!ms || status != 0) {
    if (!ms) {
      emit_result(failed("cudnn_conv_fwd", "TFLOP/s", ms.error().message));
    } else {
      fail("cudnnConvolutionForward");
    }
    return cleanup();
  }
  cu.cuMemcpyDtoH_v2(y.data(), dy.get(), y_count * 4);
  // Output (n=0, k=0, p=1, q=1) on the host: padding 1, stride 1, cross-correlation.
  double want = 0;
  for (int c = 0; c < channels; ++c) {
    for (int i = 0; i < r; ++i) {
      for (int j = 0; j < s; ++j) {
        want += static_cast<double>(x[(static_cast<std::size_t>(c) * height + i) * width + j]) *
                w[(static_cast<std::size_t>(c) * r + i) * s + j];
      }
    }
  }
  const double got = y[static_cast<std::size_t>(ow) + 1];
  Result result;
  result.name = "cudnn_conv_fwd";
  result.unit = "TFLOP/s";
  result.value = convolution_flops(batch, channels, filters, r, s, oh, ow) / (*ms / 1000.0) / 1e12;
  result.ok = std::fabs(got - want) <= 1e-4 * (1.0 + std::fabs(want));
  result.detail = fmt::format(
      "FP32 NCHW {}x{}x{}x{} * {} filters {}x{}, padding 1, implicit precomputed GEMM, through {}; "
      "{}",
      batch, channels, height, width, filters, r, s, lib.name,
      result.ok ? "an output checked on the host"
                : fmt::format("y = {} but the host says {}", got, want));
  emit_result(result);
  cleanup();
}

// --- CPU against GPU ---------------------------------------------------------------------------

void cpu_speedup(const GemmOutcome& gpu_side, int n) {
  Loaded lib;
  std::string label;
  for (const auto& [name, what] : cpu_blas_names()) {
    Loaded tried = open_first({name});
    if (tried.library) {
      lib = std::move(tried);
      label = what;
      break;
    }
  }
  if (!lib.library) {
    emit_result(
        failed("cpu_vs_gpu_gemm_speedup", "x", "no CPU BLAS found (OpenBLAS, BLIS, libblas.so.3)"));
    return;
  }
  const CblasApi cblas = CblasApi::bind(*lib.library);
  if (!cblas.missing.empty()) {
    emit_result(failed("cpu_vs_gpu_gemm_speedup", "x", lib.name + " has no cblas_sgemm"));
    return;
  }
  if (!gpu_side.fp32_ms_at_cpu_size) {
    emit_result(failed("cpu_vs_gpu_gemm_speedup", "x", "the GPU FP32 GEMM did not run"));
    return;
  }
  const std::size_t count = static_cast<std::size_t>(n) * n;
  std::vector<float> a(count), b(count), c(count);
  for (std::size_t i = 0; i < count; ++i) {
    a[i] = gemm_input(i, 1);
    b[i] = gemm_input(i, 2);
  }
  stage("cblas_sgemm");
  progress(fmt::format("CPU sgemm {}^3", n));
  std::vector<double> samples;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    cblas.cblas_sgemm(gpu::kCblasColMajor, gpu::kCblasNoTrans, gpu::kCblasNoTrans, n, n, n, 1.0f,
                      a.data(), n, b.data(), n, 0.0f, c.data(), n);
    samples.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const double cpu_ms = *median(samples);
  const int threads = cblas.openblas_get_num_threads ? cblas.openblas_get_num_threads() : 1;
  Result r;
  r.name = "cpu_vs_gpu_gemm_speedup";
  r.unit = "x";
  r.value = cpu_ms / *gpu_side.fp32_ms_at_cpu_size;
  r.ok = true;
  r.detail = fmt::format(
      "FP32 GEMM {}x{}x{}: CPU {} ({}, {} thread{}) {:.1f} GFLOP/s, GPU {:.2f} TFLOP/s", n, n, n,
      label, lib.name, threads, threads == 1 ? "" : "s", gemm_tflops(n, n, n, cpu_ms) * 1000,
      gemm_tflops(n, n, n, *gpu_side.fp32_ms_at_cpu_size));
  emit_result(r);
}

}  // namespace

void run_bench_child(const ChildOptions& options) {
  g_progress = options.progress;
  const std::string driver = gpu::cuda_driver_library();
  stage("dlopen " + driver);
  auto lib = DynamicLibrary::open(driver);
  if (!lib) {
    emit_failure("driver.missing", fmt::format("no NVIDIA driver: {} cannot be loaded ({})", driver,
                                               lib.error().message));
    return;
  }
  const CudaApi cu = CudaApi::bind(*lib);
  if (!cu.missing.empty()) {
    emit_failure("driver.too_old",
                 fmt::format("{} lacks {}", lib->path().value_or(driver), cu.missing.front()));
    return;
  }
  stage("cuInit");
  const int init = cu.cuInit(0);
  if (init == gpu::kCuErrorStubLibrary) {
    emit_failure("driver.missing",
                 fmt::format("{} is the CUDA toolkit's stub library, not a driver (cuInit: "
                             "CUDA_ERROR_STUB_LIBRARY)",
                             lib->path().value_or(driver)));
    return;
  }
  if (init == gpu::kCuErrorNoDevice) {
    emit_failure("gpu.none", "the driver sees no CUDA-capable GPU (cuInit: CUDA_ERROR_NO_DEVICE)");
    return;
  }
  if (init != 0) {
    emit_failure("device.busy_or_init_failed", fmt::format("cuInit: CUresult {}", init));
    return;
  }
  int count = 0;
  if (cu.cuDeviceGetCount(&count) != 0 || count < 1) {
    emit_failure("gpu.none", "the driver sees no CUDA-capable GPU");
    return;
  }
  int device = 0;
  if (cu.cuDeviceGet(&device, 0) != 0) {
    emit_failure("device.busy_or_init_failed", "cuDeviceGet 0 failed");
    return;
  }
  stage("device query");
  const DeviceInfo info = query_device(cu, 0, device);
  emit("device", device_to_json(info));
  Gpu g(cu, device);
  if (auto opened = g.open(); !opened) {
    emit_failure("device.busy_or_init_failed", opened.error().message);
    return;
  }
  emit_result(kernel_launch(g));
  bandwidth(g, options.mode);
  const int cpu_size = options.mode == Mode::verify ? 0 : options.mode == Mode::quick ? 1024 : 2048;
  GemmOutcome outcome;
  gemms(g, options.mode, info, options.cublas, cpu_size, outcome);
  if (options.mode != Mode::verify) {
    convolution(g, options.mode, options.cudnn);
    cpu_speedup(outcome, cpu_size);
  }
  if (g_progress) std::fprintf(stderr, "\r\x1b[K");
  stage("done");
}

}  // namespace gpuvet::bench
