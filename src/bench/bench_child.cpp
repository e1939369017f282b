// The bench child's entry point (hidden verb `__bench`), its output protocol (bench_child.hpp),
// the GPU context and the device query; the measurements are in measure_*.cpp.
#include "bench/bench_child.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "bench/bench_child_internal.hpp"
#include "bench/bench_json.hpp"
#include "bench/measure.hpp"
#include "gpu/library_names.hpp"
#include "kb/messages.hpp"

namespace gpuvet::bench {

namespace child {

namespace {

using gpu::nvmlDevice;
using gpu::NvmlMemory;
using gpu::NvmlPciInfo;
using gpu::nvmlReturn;

GPUVET_DEFINE_API(NvmlApi, GPUVET_NVML_ENTRY_POINTS)

using json = nlohmann::ordered_json;

bool g_progress = false;

void emit(const char* tag, const json& value) {
  std::printf("@%s %s\n", tag, value.dump().c_str());
  std::fflush(stdout);
}

void emit_failure(const std::string& id, const Error& why) {
  emit("failure", json{{"id", id}, {"why", why.message}, {"words", words_to_json(why)}});
}

}  // namespace

// ---- The protocol
// --------------------------------------------------------------------------------

void stage(const std::string& where) {
  std::printf("@stage %s\n", where.c_str());
  std::fflush(stdout);
}

void progress(const std::string& what) {
  if (!g_progress) return;
  std::fprintf(stderr, "\r\x1b[K  gpuvet: %s", what.c_str());
  std::fflush(stderr);
}

void emit_result(const Result& r) {
  json j = {{"name", r.name}, {"unit", r.unit}, {"ok", r.ok}, {"detail", r.detail}};
  if (!r.detail_words.key.empty()) j["detail_words"] = words_to_json(r.detail_words);
  j["value"] = r.value ? json(*r.value) : json(nullptr);
  json series = json::array();
  for (const auto& p : r.series)
    series.push_back({p.x, p.y});
  j["series"] = series;
  emit("result", j);
  progress(r.name + (r.ok ? " done" : " could not run"));
}

Result failed(const std::string& name, const std::string& unit, const Error& why) {
  Result r;
  r.name = name;
  r.unit = unit;
  r.ok = false;
  describe(r, why);
  return r;
}

Result failed(const std::string& name, const std::string& unit, const std::string& why) {
  return failed(name, unit, kb::catalog_error("bench.detail.call_failed", {{"reason", why}}));
}

void describe(Result& r, const Error& words) {
  r.detail = words.message;
  r.detail_words = words;
}

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

// ---- The GPU
// -------------------------------------------------------------------------------------

Gpu::~Gpu() {
  if (module_) cu_.cuModuleUnload(module_);
  if (start_) cu_.cuEventDestroy_v2(start_);
  if (stop_) cu_.cuEventDestroy_v2(stop_);
  if (context_) cu_.cuDevicePrimaryCtxRelease_v2(device_);
}

std::string Gpu::error(int code) const {
  const char* name = nullptr;
  if (cu_.cuGetErrorName && cu_.cuGetErrorName(code, &name) == 0 && name) {
    return fmt::format("{} ({})", name, code);
  }
  return fmt::format("CUresult {}", code);
}

gpuvet::Result<bool> Gpu::check(int code, const char* call) const {
  if (code == 0) return true;
  return make_error(fmt::format("{}: {}", call, error(code)));
}

gpuvet::Result<bool> Gpu::open() {
  stage("cuDevicePrimaryCtxRetain");
  if (auto ok = check(cu_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
      !ok) {
    context_ = nullptr;
    return ok;
  }
  if (auto ok = check(cu_.cuCtxSetCurrent(context_), "cuCtxSetCurrent"); !ok) return ok;
  if (auto ok = check(cu_.cuEventCreate(&start_, 0), "cuEventCreate"); !ok) return ok;
  return check(cu_.cuEventCreate(&stop_, 0), "cuEventCreate");
}

gpuvet::Result<double> Gpu::time_ms(int repetitions, const std::function<int()>& work) {
  std::vector<double> samples;
  for (int i = -2; i < repetitions; ++i) {
    if (auto ok = check(cu_.cuEventRecord(start_, nullptr), "cuEventRecord"); !ok)
      return ok.error();
    if (auto ok = check(work(), "the timed work"); !ok) return ok.error();
    if (auto ok = check(cu_.cuEventRecord(stop_, nullptr), "cuEventRecord"); !ok) return ok.error();
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

// ---- The device query
// ----------------------------------------------------------------------------

namespace {

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

}  // namespace

}  // namespace child

// ---- The entry point
// -----------------------------------------------------------------------------

void run_bench_child(const ChildOptions& options) {
  using namespace child;
  g_progress = options.progress;
  const std::string driver = gpu::cuda_driver_library();
  stage("dlopen " + driver);
  auto lib = DynamicLibrary::open(driver);
  if (!lib) {
    emit_failure("driver.missing",
                 kb::catalog_error("bench.failure.no_driver",
                                   {{"library", driver}, {"reason", lib.error().message}}));
    return;
  }
  const CudaApi cu = CudaApi::bind(*lib);
  if (!cu.missing.empty()) {
    emit_failure("driver.too_old", kb::catalog_error("bench.failure.driver_lacks",
                                                     {{"library", lib->path().value_or(driver)},
                                                      {"function", cu.missing.front()}}));
    return;
  }
  stage("cuInit");
  const int init = cu.cuInit(0);
  if (init == gpu::kCuErrorStubLibrary) {
    emit_failure("driver.missing", kb::catalog_error("bench.failure.stub_library",
                                                     {{"library", lib->path().value_or(driver)}}));
    return;
  }
  if (init == gpu::kCuErrorNoDevice) {
    emit_failure("gpu.none", kb::catalog_error("bench.failure.no_device_at_init"));
    return;
  }
  if (init != 0) {
    emit_failure(
        "device.busy_or_init_failed",
        kb::catalog_error("bench.failure.init_failed", {{"status", std::to_string(init)}}));
    return;
  }
  int count = 0;
  if (cu.cuDeviceGetCount(&count) != 0 || count < 1) {
    emit_failure("gpu.none", kb::catalog_error("bench.failure.no_device"));
    return;
  }
  int device = 0;
  if (cu.cuDeviceGet(&device, 0) != 0) {
    emit_failure("device.busy_or_init_failed",
                 kb::catalog_error("bench.failure.call_failed", {{"reason", "cuDeviceGet 0"}}));
    return;
  }
  stage("device query");
  const DeviceInfo info = query_device(cu, 0, device);
  emit("device", device_to_json(info));
  Gpu g(cu, device);
  if (auto opened = g.open(); !opened) {
    emit_failure(
        "device.busy_or_init_failed",
        kb::catalog_error("bench.failure.call_failed", {{"reason", opened.error().message}}));
    return;
  }
  emit_result(measure_kernel_launch(g));
  measure_copies(g, options.mode);
  const int cpu_size = options.mode == Mode::verify ? 0 : options.mode == Mode::quick ? 1024 : 2048;
  GemmOutcome outcome;
  measure_gemms(g, options.mode, info, options.cublas, cpu_size, outcome);
  if (options.mode != Mode::verify) {
    measure_convolution(g, options.mode, options.cudnn);
    measure_cpu_vs_gpu_gemm(outcome, cpu_size);
  }
  if (g_progress) std::fprintf(stderr, "\r\x1b[K");
  stage("done");
}

}  // namespace gpuvet::bench
