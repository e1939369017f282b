// Child side of the native query: loads NVML and the CUDA driver and asks them about the driver
// and the GPUs. Before every call that may crash or hang it writes a stage line, so that the
// parent can say where a dead child died.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

#include "gpu/api_binding.hpp"
#include "gpu/driver_apis.hpp"
#include "gpu/library_names.hpp"
#include "kb/kb.hpp"
#include "kb/versions.hpp"
#include "platform/dynlib.hpp"
#include "system/native_query.hpp"
#include "system/nvidia_smi.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::sys {

namespace {

// The entry-point tables name the driver's types (nvmlReturn, CUresultCode ...) unqualified.
using namespace gpu;
using platform::DynamicLibrary;

GPUVET_DEFINE_API(NvmlApi, GPUVET_NVML_ENTRY_POINTS)
GPUVET_DEFINE_API(CudaApi, GPUVET_CUDA_ENTRY_POINTS)

void stage(const std::string& where) {
  std::printf("@stage %s\n", where.c_str());
  std::fflush(stdout);
}

// CUDA encodes versions as 1000 * major + 10 * minor (cuda.h, CUDA_VERSION).
std::string cuda_version_text(int encoded) {
  return fmt::format("{}.{}", encoded / 1000, (encoded % 1000) / 10);
}

std::string nvml_error(const NvmlApi& api, nvmlReturn code) {
  const char* text = api.nvmlErrorString ? api.nvmlErrorString(code) : nullptr;
  return text ? fmt::format("{} ({})", text, code) : fmt::format("NVML error {}", code);
}

std::string c_string(const char* buffer, size_t size) {
  return std::string(buffer, strnlen(buffer, size));
}

// MIG mode, uncorrectable ECC errors and the row remapper: what a data-centre GPU says about
// its own state (nvml.h: nvmlDeviceGetMigMode, nvmlDeviceGetTotalEccErrors with
// NVML_MEMORY_ERROR_TYPE_UNCORRECTED (1) and NVML_VOLATILE_ECC (0), nvmlDeviceGetRemappedRows).
void read_health(const NvmlApi& api, nvmlDevice device, GpuAnswer& gpu) {
  constexpr int kUncorrected = 1;
  constexpr int kVolatile = 0;
  unsigned mig_current = 0;
  unsigned mig_pending = 0;
  if (api.nvmlDeviceGetMigMode &&
      api.nvmlDeviceGetMigMode(device, &mig_current, &mig_pending) == kNvmlSuccess) {
    gpu.mig_mode = mig_current == 1;
  }
  unsigned long long errors = 0;
  if (api.nvmlDeviceGetTotalEccErrors &&
      api.nvmlDeviceGetTotalEccErrors(device, kUncorrected, kVolatile, &errors) == kNvmlSuccess) {
    gpu.ecc_uncorrected = static_cast<std::int64_t>(std::min(errors, 1ULL << 50));
  }
  unsigned corrected_rows = 0;
  unsigned uncorrected_rows = 0;
  unsigned pending = 0;
  unsigned failure = 0;
  if (api.nvmlDeviceGetRemappedRows &&
      api.nvmlDeviceGetRemappedRows(device, &corrected_rows, &uncorrected_rows, &pending,
                                    &failure) == kNvmlSuccess) {
    gpu.row_remap_pending = pending != 0;
    gpu.row_remap_failure = failure != 0;
  }
}

GpuAnswer nvml_gpu(const NvmlApi& api, unsigned index, nvmlDevice device) {
  GpuAnswer gpu;
  gpu.index = static_cast<int>(index);
  char text[kNvmlStringBuffer] = {};
  if (api.nvmlDeviceGetName && api.nvmlDeviceGetName(device, text, sizeof text) == kNvmlSuccess) {
    gpu.name = c_string(text, sizeof text);
  }
  if (api.nvmlDeviceGetUUID && api.nvmlDeviceGetUUID(device, text, sizeof text) == kNvmlSuccess) {
    gpu.uuid = c_string(text, sizeof text);
  }
  NvmlPciInfo pci{};
  if (api.nvmlDeviceGetPciInfo_v3 && api.nvmlDeviceGetPciInfo_v3(device, &pci) == kNvmlSuccess) {
    gpu.pci_id = fmt::format("{:04X}:{:04X}", pci.pci_device_id & 0xffff, pci.pci_device_id >> 16);
  }
  int major = 0;
  int minor = 0;
  if (api.nvmlDeviceGetCudaComputeCapability &&
      api.nvmlDeviceGetCudaComputeCapability(device, &major, &minor) == kNvmlSuccess) {
    gpu.compute_capability = fmt::format("{}.{}", major, minor);
  }
  NvmlMemory memory{};
  if (api.nvmlDeviceGetMemoryInfo && api.nvmlDeviceGetMemoryInfo(device, &memory) == kNvmlSuccess) {
    gpu.memory_mib = static_cast<std::int64_t>(memory.total >> 20);
  }
  int mode = 0;
  if (api.nvmlDeviceGetComputeMode && api.nvmlDeviceGetComputeMode(device, &mode) == kNvmlSuccess) {
    gpu.compute_mode = compute_mode_name(mode);
  }
  // nvmlEnableState_t: 0 disabled, 1 enabled. Persistence is Linux only, ECC a data-centre
  // GPU's: elsewhere NVML_ERROR_NOT_SUPPORTED, and then nothing is said.
  int state = 0;
  if (api.nvmlDeviceGetPersistenceMode &&
      api.nvmlDeviceGetPersistenceMode(device, &state) == kNvmlSuccess) {
    gpu.persistence_mode = state == 1;
  }
  int ecc_current = 0;
  int ecc_pending = 0;
  if (api.nvmlDeviceGetEccMode &&
      api.nvmlDeviceGetEccMode(device, &ecc_current, &ecc_pending) == kNvmlSuccess) {
    gpu.ecc = ecc_current == 1;
  }
  read_health(api, device, gpu);
  // Windows only: Linux drivers answer NVML_ERROR_NOT_SUPPORTED, and then nothing is said.
  int current = 0;
  int pending = 0;
  if (api.nvmlDeviceGetDriverModel &&
      api.nvmlDeviceGetDriverModel(device, &current, &pending) == kNvmlSuccess) {
    gpu.driver_model = driver_model_name(current);
  }
  return gpu;
}

struct DriverReport {
  DriverAnswer driver;
  std::vector<GpuAnswer> gpus;
  std::vector<std::string> errors;
};

// Opens the first candidate that loads. A failure reports the first candidate's error: that is
// the bare name, and the later ones are only places where some drivers keep the library.
Result<DynamicLibrary> open_first(const std::vector<std::string>& candidates) {
  std::optional<Error> first_error;
  for (const auto& candidate : candidates) {
    stage(fmt::format("dlopen {}", candidate));
    auto lib = DynamicLibrary::open(candidate);
    if (lib) return lib;
    if (!first_error) first_error = lib.error();
  }
  return first_error.value_or(make_error("nothing to load"));
}

// Loads a library (its bare name, then the fallbacks) and binds its table of entry points;
// every failure is recorded on `load` and in the report, and ends the query of that library.
template <typename Api>
std::optional<Api> open_and_bind(const std::vector<std::string>& candidates,
                                 Api (*bind)(const DynamicLibrary&), LoadAnswer& load,
                                 DriverReport& report, std::optional<DynamicLibrary>& keep) {
  auto lib = open_first(candidates);
  if (!lib) {
    load.error = lib.error().message;
    report.errors.push_back(*load.error);
    return std::nullopt;
  }
  load.ok = true;
  load.path = lib->path();
  Api api = bind(*lib);
  keep.emplace(std::move(*lib));
  if (!api.missing.empty()) {
    load.error = fmt::format("{} does not export {}", candidates.front(), api.missing.front());
    report.errors.push_back(*load.error);
    return std::nullopt;
  }
  return api;
}

std::vector<std::string> nvml_candidates() {
  std::vector<std::string> candidates{nvml_library()};
  for (auto& path : nvml_fallback_paths())
    candidates.push_back(std::move(path));
  return candidates;
}

void query_nvml(sys::Snapshot& out, DriverReport& report) {
  LoadAnswer& load = out.loads[nvml_library()];
  std::optional<DynamicLibrary> lib;
  const auto bound = open_and_bind<NvmlApi>(nvml_candidates(), &NvmlApi::bind, load, report, lib);
  if (!bound) return;
  const NvmlApi& api = *bound;
  stage("nvmlInit_v2");
  const nvmlReturn init = api.nvmlInit_v2();
  load.init_code = init;
  if (init != kNvmlSuccess) {
    load.error = fmt::format("nvmlInit_v2: {}", nvml_error(api, init));
    report.errors.push_back(*load.error);
    return;
  }
  report.driver.installed = true;
  char version[kNvmlStringBuffer] = {};
  stage("nvmlSystemGetDriverVersion");
  if (api.nvmlSystemGetDriverVersion(version, sizeof version) == kNvmlSuccess) {
    report.driver.version = c_string(version, sizeof version);
  }
  int cuda = 0;
  if (api.nvmlSystemGetCudaDriverVersion_v2 &&
      api.nvmlSystemGetCudaDriverVersion_v2(&cuda) == kNvmlSuccess && cuda > 0) {
    report.driver.cuda_driver_version = cuda_version_text(cuda);
  }
  unsigned count = 0;
  stage("nvmlDeviceGetCount_v2");
  if (api.nvmlDeviceGetCount_v2(&count) == kNvmlSuccess) {
    for (unsigned i = 0; i < count && i < 4096; ++i) {
      nvmlDevice device = nullptr;
      stage(fmt::format("nvmlDeviceGetHandleByIndex_v2 {}", i));
      const nvmlReturn got = api.nvmlDeviceGetHandleByIndex_v2(i, &device);
      if (got != kNvmlSuccess) {
        report.errors.push_back(fmt::format("GPU {}: {}", i, nvml_error(api, got)));
        continue;
      }
      report.gpus.push_back(nvml_gpu(api, i, device));
    }
  }
  stage("nvmlShutdown");
  api.nvmlShutdown();
}

// As NVML spells a GPU's UUID, so that the two APIs' devices can be matched.
std::optional<std::string> cuda_uuid(const CudaApi& api, int device) {
  unsigned char bytes[kCuUuidBytes] = {};
  if (!api.cuDeviceGetUuid || api.cuDeviceGetUuid(bytes, device) != 0) return std::nullopt;
  std::string text = "GPU-";
  for (int i = 0; i < kCuUuidBytes; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += fmt::format("{:02x}", bytes[i]);
  }
  return text;
}

std::optional<bool> memory_pools(const CudaApi& api, int device) {
  int supported = 0;
  if (!api.cuDeviceGetAttribute ||
      api.cuDeviceGetAttribute(&supported, kCuAttributeMemoryPoolsSupported, device) != 0) {
    return std::nullopt;
  }
  return supported != 0;
}

GpuAnswer cuda_gpu(const CudaApi& api, int ordinal, int device) {
  GpuAnswer gpu;
  gpu.index = ordinal;
  gpu.uuid = cuda_uuid(api, device);
  gpu.memory_pools = memory_pools(api, device);
  char name[256] = {};
  if (api.cuDeviceGetName && api.cuDeviceGetName(name, sizeof name, device) == 0) {
    gpu.name = c_string(name, sizeof name);
  }
  int major = 0;
  int minor = 0;
  if (api.cuDeviceGetAttribute &&
      api.cuDeviceGetAttribute(&major, kCuAttributeComputeCapabilityMajor, device) == 0 &&
      api.cuDeviceGetAttribute(&minor, kCuAttributeComputeCapabilityMinor, device) == 0) {
    gpu.compute_capability = fmt::format("{}.{}", major, minor);
  }
  std::size_t bytes = 0;
  if (api.cuDeviceTotalMem_v2 && api.cuDeviceTotalMem_v2(&bytes, device) == 0) {
    gpu.memory_mib = static_cast<std::int64_t>(bytes >> 20);
  }
  return gpu;
}

// Well inside the parent's deadline for the whole query.
constexpr std::chrono::milliseconds kSmiTimeout{5000};

// Stub libcuda (CUDA_ERROR_STUB_LIBRARY, cuda.h) answers nothing worth keeping.
constexpr int kCudaErrorStubLibrary = 34;

void query_cuda(sys::Snapshot& out, DriverReport& report) {
  LoadAnswer& load = out.loads[cuda_driver_library()];
  std::optional<DynamicLibrary> lib;
  const auto bound =
      open_and_bind<CudaApi>({cuda_driver_library()}, &CudaApi::bind, load, report, lib);
  if (!bound) return;
  const CudaApi& api = *bound;
  stage("cuInit");
  const int init = api.cuInit(0);
  load.init_code = init;
  if (init == kCudaErrorStubLibrary) {
    report.errors.push_back(fmt::format("cuInit: CUresult {} (stub library)", init));
    return;
  }
  int version = 0;
  stage("cuDriverGetVersion");
  if (api.cuDriverGetVersion(&version) == 0 && version > 0) {
    report.driver.cuda_driver_version = cuda_version_text(version);
  }
  if (init != 0) {
    report.errors.push_back(fmt::format("cuInit: CUresult {}", init));
    return;
  }
  report.driver.installed = true;
  int count = 0;
  stage("cuDeviceGetCount");
  if (api.cuDeviceGetCount(&count) != 0) return;
  // NVML's list stays the list (CUDA orders devices fastest first, NVML by PCI bus); CUDA adds
  // what only it answers to the GPU of the same UUID.
  const bool listed_by_nvml = !report.gpus.empty();
  for (int i = 0; i < count && i < 4096; ++i) {
    int device = 0;
    stage(fmt::format("cuDeviceGet {}", i));
    if (api.cuDeviceGet(&device, i) != 0) continue;
    if (!listed_by_nvml) {
      report.gpus.push_back(cuda_gpu(api, i, device));
      continue;
    }
    const auto uuid = cuda_uuid(api, device);
    const auto same = std::find_if(report.gpus.begin(), report.gpus.end(),
                                   [&](const GpuAnswer& g) { return uuid && g.uuid == uuid; });
    if (same != report.gpus.end()) same->memory_pools = memory_pools(api, device);
  }
}

// nvidia-smi finds its own libnvidia-ml; when NVML cannot be loaded by name it still answers.
void query_smi(sys::Snapshot& out, DriverReport& report) {
  stage("nvidia-smi");
  auto smi = query_nvidia_smi(kSmiTimeout);
  if (!smi) {
    if (smi.error().message != "no nvidia-smi on PATH")
      report.errors.push_back(smi.error().message);
    return;
  }
  out.loads["nvidia-smi"] = LoadAnswer{true, std::nullopt, std::nullopt, std::nullopt, 0};
  report.driver.installed = true;
  if (!report.driver.version) report.driver.version = smi->driver_version;
  if (report.gpus.empty()) report.gpus = smi->gpus;
}

std::string load_one(sys::Snapshot& out, const std::string& library) {
  LoadAnswer& load = out.loads[library];
  stage(fmt::format("dlopen {}", library));
  auto lib = DynamicLibrary::open(library);
  if (!lib) {
    load.error = lib.error().message;
    return sys::serialize_snapshot(out);
  }
  load.ok = true;
  load.path = lib->path();
  // A library gpuvet knows how to initialise says whether it works, not only whether it loads.
  if (auto* cu_init = reinterpret_cast<CUresultCode (*)(unsigned)>(lib->symbol("cuInit"))) {
    stage("cuInit");
    load.init_code = cu_init(0);
  } else if (auto* nvml_init = reinterpret_cast<nvmlReturn (*)()>(lib->symbol("nvmlInit_v2"))) {
    stage("nvmlInit_v2");
    load.init_code = nvml_init();
  } else if (auto* cudnn_version =
                 reinterpret_cast<std::size_t (*)()>(lib->symbol("cudnnGetVersion"))) {
    stage("cudnnGetVersion");
    const auto raw = static_cast<long long>(cudnn_version());
    if (auto kb = kb::Kb::embedded()) load.version = kb::decode_cudnn_version(*kb, raw);
  }
  return sys::serialize_snapshot(out);
}

}  // namespace

std::string run_native_query(const std::optional<std::string>& library) {
  sys::Snapshot out;
  out.host = sys::make_live_system()->host();
  if (library) return load_one(out, *library);
  DriverReport report;
  query_nvml(out, report);
  query_cuda(out, report);
  if (!out.loads[nvml_library()].ok) query_smi(out, report);
  if (!report.driver.installed && !report.errors.empty()) {
    report.driver.error = report.errors.front();
    for (size_t i = 1; i < report.errors.size(); ++i)
      *report.driver.error += "; " + report.errors[i];
  }
  out.driver = report.driver;
  out.gpus = report.gpus;
  return sys::serialize_snapshot(out);
}

int serve_native_queries() {
  const auto reply = [](const std::string& fragment) {
    const std::string text = "@result\n" + fragment + "\n" + std::string(kReplyEnd) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  };
  reply(run_native_query(std::nullopt));
  static char line[1 << 16];
  constexpr std::string_view kLoad = "load ";
  while (std::fgets(line, sizeof line, stdin)) {
    std::string request(line);
    while (!request.empty() && (request.back() == '\n' || request.back() == '\r'))
      request.pop_back();
    if (!request.starts_with(kLoad)) continue;
    reply(run_native_query(request.substr(kLoad.size())));
  }
  return 0;
}

}  // namespace gpuvet::sys
