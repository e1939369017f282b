// Hardware and driver checks on Linux, WSL2 and Windows: is there a GPU at all, can this process
// see it, is a working driver behind it, and does the device initialise.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "checks/checks.hpp"
#include "core/text.hpp"
#include "kb/queries.hpp"

namespace gpuvet::checks {

namespace {

constexpr std::string_view kWslLibDir = "/usr/lib/wsl/lib/";
constexpr int kCudaSuccess = 0;
constexpr int kCudaErrorStubLibrary = 34;
constexpr int kCudaErrorSystemNotReady = 802;

// "CUDA_ERROR_STUB_LIBRARY (34)" from the driver API's rows of data/cuda_library_errors.csv; the
// bare number when unknown.
std::string cuda_error_name(const CheckContext& context, int code) {
  if (auto table = context.kb().table("cuda_library_errors")) {
    const kb::Table& t = **table;
    const std::string wanted = std::to_string(code);
    for (size_t row = 0; row < t.size(); ++row) {
      if (t.cell(row, "library") == "cuda_driver" && t.cell(row, "code") == wanted) {
        return fmt::format("{} ({})", t.cell(row, "name"), code);
      }
    }
  }
  return fmt::format("CUresult {}", code);
}

bool driver_works(const Facts& f) {
  return f.driver && f.driver->installed.value_or(false);
}

bool has_nvidia_nodes(const Facts& f) {
  return std::any_of(f.hardware.device_nodes.begin(), f.hardware.device_nodes.end(),
                     [](const std::string& n) { return n.starts_with("/dev/nvidia"); });
}

// What the driver side said, as evidence lines.
void add_driver_evidence(const CheckContext& context, Finding& finding) {
  const Facts& f = context.facts();
  if (!f.driver) return;
  const DriverFacts& d = *f.driver;
  if (d.nouveau_loaded) finding.evidence.push_back(context.text("driver.evidence.nouveau"));
  if (f.os.family == "linux" && !d.nvidia_module_loaded && !d.kernel_module_version) {
    finding.evidence.push_back(context.text("driver.evidence.no_module"));
  }
  if (d.libcuda && d.cuinit_code) {
    finding.evidence.push_back(
        context.text("driver.evidence.cuinit",
                     {{"path", *d.libcuda}, {"result", cuda_error_name(context, *d.cuinit_code)}}));
  }
  if (d.error)
    finding.evidence.push_back(context.text("driver.evidence.error", {{"error", *d.error}}));
  for (const auto& stub : d.stub_libraries) {
    const std::string result = d.stub_cuinit_code ? cuda_error_name(context, *d.stub_cuinit_code)
                                                  : context.text("report.unknown_value");
    finding.evidence.push_back(
        context.text("driver.evidence.stub", {{"path", stub}, {"result", result}}));
  }
}

Result<bool> emit(const CheckContext& context, std::vector<Finding>& findings, std::string_view id,
                  std::string_view key, const kb::MessageArgs& args,
                  const std::vector<std::string>& evidence, bool driver_evidence,
                  const std::vector<std::string>& fix_keys) {
  auto finding = context.finding(id, Severity::error, fmt::format("{}.title", key), args);
  if (!finding) return finding.error();
  finding->evidence = evidence;
  if (driver_evidence) add_driver_evidence(context, *finding);
  for (const auto& fix : fix_keys)
    finding->fix.push_back(context.text(fix, args));
  findings.push_back(std::move(*finding));
  return true;
}

Result<bool> check_wsl(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (!f.driver) return true;
  const DriverFacts& d = *f.driver;
  std::vector<std::string> evidence;
  if (d.nvidia_module_loaded || d.kernel_module_version) {
    evidence.push_back(context.text("driver.wsl_linux_driver_installed.module"));
  }
  for (const auto& path : {d.libcuda, d.ld_cache_libcuda}) {
    if (path && !path->starts_with(kWslLibDir)) {
      evidence.push_back(
          context.text("driver.wsl_linux_driver_installed.libcuda", {{"path", *path}}));
      break;
    }
  }
  if (!evidence.empty()) {
    return emit(context, findings, "driver.wsl_linux_driver_installed",
                "driver.wsl_linux_driver_installed", {}, evidence, false,
                {"driver.wsl_linux_driver_installed.fix.remove",
                 "driver.wsl_linux_driver_installed.fix.windows"});
  }
  if (!d.wsl_libcuda && !driver_works(f)) {
    return emit(context, findings, "driver.missing", "driver.missing_wsl", {},
                {context.text("driver.missing_wsl.evidence")}, true, {"driver.missing_wsl.fix"});
  }
  return true;
}

// CUDA_ERROR_SYSTEM_NOT_READY: a daemon the system needs before CUDA work is not running; on the
// NVSwitch systems where it is answered that daemon is the Fabric Manager (its user guide).
Result<bool> check_fabric_not_ready(const CheckContext& context, std::vector<Finding>& findings,
                                    const std::string& result) {
  std::vector<std::string> evidence;
  for (const auto& node : context.facts().hardware.device_nodes) {
    if (node.starts_with("/dev/nvidia-nvswitch")) {
      evidence.push_back(
          context.text("driver.fabric_manager_not_running.nvswitch", {{"node", node}}));
      break;
    }
  }
  return emit(context, findings, "driver.fabric_manager_not_running",
              "driver.fabric_manager_not_running", {{"result", result}}, evidence, true,
              {"driver.fabric_manager_not_running.fix.status",
               "driver.fabric_manager_not_running.fix.version"});
}

// cuInit failed although a driver answered: the device is there but cannot be initialised.
Result<bool> check_device_init(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (!driver_works(f) || !f.driver->cuinit_code || *f.driver->cuinit_code == kCudaSuccess ||
      *f.driver->cuinit_code == kCudaErrorStubLibrary) {
    return true;
  }
  const std::string result = cuda_error_name(context, *f.driver->cuinit_code);
  if (*f.driver->cuinit_code == kCudaErrorSystemNotReady) {
    return check_fabric_not_ready(context, findings, result);
  }
  std::vector<std::string> evidence;
  for (const auto& gpu : f.gpus) {
    if (gpu.compute_mode && *gpu.compute_mode != "Default") {
      evidence.push_back(
          context.text("device.busy_or_init_failed.mode",
                       {{"index", std::to_string(gpu.index)}, {"mode", *gpu.compute_mode}}));
    }
  }
  return emit(context, findings, "device.busy_or_init_failed", "device.busy_or_init_failed",
              {{"result", result}}, evidence, true,
              {"device.busy_or_init_failed.fix.processes", "device.busy_or_init_failed.fix.reset"});
}

// Windows runs an NVIDIA GPU it has no driver for with the Microsoft Basic Display Adapter
// (Windows Update's fallback): the GPU is there, CUDA is not.
Result<bool> check_basic_adapters(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (driver_works(f)) return true;
  std::vector<std::string> evidence;
  for (const auto& a : f.hardware.display_adapters) {
    const bool nvidia = a.pci_id && a.pci_id->starts_with("10DE:");
    if (!a.basic || !nvidia) continue;
    evidence.push_back(context.text("driver.missing_basic_adapter.evidence",
                                    {{"name", a.name.value_or("?")}, {"id", *a.pci_id}}));
  }
  if (evidence.empty()) return true;
  return emit(context, findings, "driver.missing", "driver.missing_basic_adapter", {}, evidence,
              false, {"driver.missing_basic_adapter.fix"});
}

// A Remote Desktop session in which CUDA finds no GPU while Windows runs one with NVIDIA's
// driver: the session, not the driver, hides it. A session in which CUDA works says nothing.
bool hidden_by_remote_session(const Facts& f) {
  if (!f.os.remote_session) return false;
  const bool cuda_failed = !driver_works(f) || f.gpus.empty() ||
                           (f.driver->cuinit_code && *f.driver->cuinit_code != kCudaSuccess);
  return cuda_failed &&
         std::any_of(f.hardware.display_adapters.begin(), f.hardware.display_adapters.end(),
                     [](const auto& a) { return a.nvidia_driver && !a.basic; });
}

Result<bool> check_remote_session(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  std::vector<std::string> evidence = {context.text("gpu.not_visible.remote_session.session")};
  for (const auto& a : f.hardware.display_adapters) {
    if (!a.nvidia_driver || a.basic) continue;
    evidence.push_back(
        context.text("gpu.not_visible.remote_session.adapter",
                     {{"name", a.name.value_or("?")}, {"driver", *a.nvidia_driver}}));
  }
  return emit(
      context, findings, "gpu.not_visible", "gpu.not_visible.remote_session", {}, evidence, true,
      {"gpu.not_visible.remote_session.fix.console", "gpu.not_visible.remote_session.fix.confirm"});
}

// Windows listed its display adapters, none is NVIDIA's, and no NVIDIA driver answered.
Result<bool> check_no_nvidia_adapter(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  std::vector<std::string> names;
  for (const auto& a : f.hardware.display_adapters)
    names.push_back(a.name.value_or("?"));
  const std::string evidence =
      names.empty()
          ? context.text("gpu.none.no_display_adapter")
          : context.text("gpu.none.display_adapters", {{"adapters", text::join(names, ", ")}});
  return emit(context, findings, "gpu.none", "gpu.none", {}, {evidence}, true,
              {"gpu.none.fix.machine", "gpu.none.fix.no_driver"});
}

Result<bool> check_windows(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  const size_t before = findings.size();
  auto basic = check_basic_adapters(context, findings);
  if (!basic || findings.size() != before) return basic;
  if (hidden_by_remote_session(f)) return check_remote_session(context, findings);
  if (f.hardware.pci_scanned && f.hardware.pci_gpus.empty() && !driver_works(f) && f.gpus.empty()) {
    return check_no_nvidia_adapter(context, findings);
  }
  return check_device_init(context, findings);
}

bool container_without_gpu(const Facts& f) {
  if (!f.os.container) return false;
  const auto& nvd = f.hardware.nvidia_visible_devices;
  const bool runtime_said_none = nvd && (*nvd == "void" || *nvd == "none" || nvd->empty());
  return runtime_said_none || !has_nvidia_nodes(f);
}

// NVML's own answer when the loaded kernel module and the libraries disagree: nvmlInit's
// NVML_ERROR_LIB_RM_VERSION_MISMATCH (18), "Driver/library version mismatch".
bool library_mismatch(const Facts& f) {
  if (!f.driver || !f.driver->error) return false;
  const std::string error = text::to_lower(*f.driver->error);
  return error.find("driver/library version mismatch") != std::string::npos ||
         error.find("nvmlinit_v2: nvml error 18") != std::string::npos;
}

// The driver's user-space libraries are installed (the loader finds its libcuda.so.1) but its
// kernel module is not running: a kernel updated without the module rebuilt for it (DKMS), nouveau
// holding the GPU, or Secure Boot refusing the unsigned module. Installing a driver is not the fix.
bool module_not_loaded(const Facts& f) {
  if (!f.driver || !f.driver->libcuda) return false;
  const DriverFacts& d = *f.driver;
  const bool stub = d.cuinit_code && *d.cuinit_code == kCudaErrorStubLibrary;
  return !stub && !d.nvidia_module_loaded && !d.kernel_module_version;
}

// The running kernel's NVIDIA module builds: DKMS's versions with no module for it, and a failed
// build's log where DKMS kept one (or akmods wrote one for this kernel).
struct KernelModuleBuilds {
  const ModuleBuildFact* failed = nullptr;
  const ModuleBuildFact* unbuilt = nullptr;
};

KernelModuleBuilds builds_for_running_kernel(const Facts& f) {
  KernelModuleBuilds found;
  if (!f.driver || !f.os.kernel) return found;
  for (const auto& build : f.driver->module_builds) {
    if (std::find(build.kernels.begin(), build.kernels.end(), *f.os.kernel) !=
        build.kernels.end()) {
      continue;
    }
    // A failed build for another kernel says nothing of this one's.
    const bool failed_here =
        build.failed_log && (!build.failed_kernel || *build.failed_kernel == *f.os.kernel);
    if (failed_here && !found.failed) found.failed = &build;
    if (!failed_here && !found.unbuilt) found.unbuilt = &build;
  }
  return found;
}

kb::MessageArgs module_build_args(const ModuleBuildFact& build, const std::string& kernel) {
  return {{"tool", build.tool},
          {"module", build.module},
          {"version", build.version},
          {"kernel", kernel},
          {"kernels", text::join(build.kernels, ", ")},
          {"log", build.failed_log.value_or("")}};
}

// The module for the running kernel failed to build: nothing can load until a build succeeds.
Result<bool> emit_module_build_failed(const CheckContext& context, std::vector<Finding>& findings,
                                      const ModuleBuildFact& build, std::vector<std::string> pci) {
  const kb::MessageArgs args = module_build_args(build, *context.facts().os.kernel);
  std::string state = "driver.module_build_failed.akmods";
  if (build.tool == "dkms") {
    state = build.kernels.empty() ? "driver.module_build_failed.dkms_none"
                                  : "driver.module_build_failed.dkms";
  }
  pci.insert(pci.begin(), context.text(state, args));
  std::vector<std::string> fixes = {"driver.module_build_failed.fix.log",
                                    "driver.module_build_failed.fix.driver." + build.tool};
  if (!build.kernels.empty()) fixes.push_back("driver.module_build_failed.fix.boot");
  fixes.push_back("driver.module_build_failed.fix.compiler");
  return emit(context, findings, "driver.module_build_failed", "driver.module_build_failed", args,
              pci, true, fixes);
}

// The kernel log's Xids that NVIDIA's catalog puts in the card (ECC, row remapping, NVLink, PCIe,
// power), one line per GPU and code: how often since boot and when last (events come newest
// first). The program's own faults and those the catalog does not place say nothing of the card.
// `fatal` when one of them is more than a fault the GPU corrected or retired itself or a wear
// warning (the table's gpu_still_works: a row remapped, single-bit errors corrected).
std::vector<std::string> hardware_xids(const CheckContext& context, bool& fatal) {
  std::vector<std::string> evidence;
  const Facts& f = context.facts();
  if (!f.driver) return evidence;
  struct Seen {
    const XidEventFact* latest;
    kb::Row row;
    size_t count;
  };
  std::vector<Seen> seen;
  for (const auto& event : f.driver->xid_events) {
    auto row = kb::xid_error(context.kb(), std::to_string(event.xid));
    if (!row || row->get("cause") != "device.hardware_error") continue;
    if (row->get("gpu_still_works") != "yes") fatal = true;
    const auto same = std::find_if(seen.begin(), seen.end(), [&](const Seen& s) {
      return s.latest->pci == event.pci && s.latest->xid == event.xid;
    });
    if (same != seen.end()) {
      ++same->count;
    } else {
      seen.push_back({&event, std::move(*row), 1});
    }
  }
  for (const Seen& s : seen) {
    evidence.push_back(
        context.text("device.hardware_error.xid", {{"pci", s.latest->pci},
                                                   {"xid", std::to_string(s.latest->xid)},
                                                   {"mnemonic", s.row.get("mnemonic")},
                                                   {"description", s.row.get("description")},
                                                   {"count", std::to_string(s.count)},
                                                   {"time", s.latest->time}}));
  }
  return evidence;
}

// What a GPU says about its own hardware through NVML: uncorrectable ECC errors since the driver
// loaded, or a failed row remapping, are faults no software causes or fixes (an error), as are
// the driver's Xids of the card's faults in the kernel's log; rows waiting for remapping take
// effect at the next GPU reset, and Xids of faults the GPU corrected or retired itself are a
// warning too.
std::vector<std::string> hardware_faults(const CheckContext& context, bool& fatal) {
  std::vector<std::string> evidence = hardware_xids(context, fatal);
  for (const auto& gpu : context.facts().gpus) {
    const kb::MessageArgs args = {{"index", std::to_string(gpu.index)},
                                  {"name", gpu.name.value_or("?")},
                                  {"count", std::to_string(gpu.ecc_uncorrected.value_or(0))}};
    if (gpu.ecc_uncorrected.value_or(0) > 0) {
      evidence.push_back(context.text("device.hardware_error.ecc", args));
      fatal = true;
    }
    if (gpu.row_remap_failure.value_or(false)) {
      evidence.push_back(context.text("device.hardware_error.remap_failure", args));
      fatal = true;
    } else if (gpu.row_remap_pending.value_or(false)) {
      evidence.push_back(context.text("device.hardware_error.remap_pending", args));
    }
  }
  return evidence;
}

}  // namespace

Result<bool> check_gpu_health(const CheckContext& context, std::vector<Finding>& findings) {
  bool fatal = false;
  const auto evidence = hardware_faults(context, fatal);
  if (evidence.empty()) return true;
  const bool pending =
      std::any_of(context.facts().gpus.begin(), context.facts().gpus.end(),
                  [](const GpuFact& g) { return g.row_remap_pending.value_or(false); });
  const std::string key = fatal     ? "device.hardware_error"
                          : pending ? "device.hardware_error.pending_reset"
                                    : "device.hardware_error.repaired";
  auto finding = context.finding("device.hardware_error",
                                 fatal ? Severity::error : Severity::warning, key + ".title", {});
  if (!finding) return finding.error();
  finding->evidence = evidence;
  finding->fix.push_back(context.text("device.hardware_error.fix.reset"));
  if (fatal) finding->fix.push_back(context.text("device.hardware_error.fix.service"));
  findings.push_back(std::move(*finding));
  return true;
}

// A data-centre GPU (NVIDIA's "Data Center" and "Tesla" lines, data/gpus.csv): headless, where no
// display server keeps the driver's state between programs. The driver's names carry a variant
// after the product's ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB"): the product is the
// longest name of the table that starts it, up to a space or a dash.
bool data_centre_gpu(const kb::Kb& kb, const GpuFact& gpu) {
  const auto table = kb.table("gpus");
  if (!gpu.name || !table) return false;
  const std::string name = text::to_lower(*gpu.name);
  size_t best = 0;
  std::string family;
  for (size_t row = 0; row < (*table)->size(); ++row) {
    const std::string product = text::to_lower((*table)->cell(row, "name"));
    if (product.size() <= best || !name.starts_with(product)) continue;
    if (name.size() > product.size() && name[product.size()] != ' ' &&
        name[product.size()] != '-') {
      continue;
    }
    best = product.size();
    family = (*table)->cell(row, "family");
  }
  return family == "Data Center" || family == "Tesla";
}

// Persistence off on every data-centre GPU: the driver tears them down whenever no program holds
// them and sets them up again for the next one. Worth knowing, not a fault: info.
Result<bool> check_persistence(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (f.os.family != "linux" || f.os.wsl || !f.driver || f.gpus.empty()) return true;
  std::vector<std::string> off;
  for (const auto& gpu : f.gpus) {
    if (gpu.persistence_mode != false || !data_centre_gpu(context.kb(), gpu)) return true;
    off.push_back(fmt::format("GPU {} ({})", gpu.index, gpu.name.value_or("?")));
  }
  const kb::MessageArgs args = {{"gpus", text::join(off, ", ")},
                                {"count", std::to_string(off.size())}};
  auto finding = context.finding("driver.persistenced_not_running", Severity::info,
                                 "driver.persistenced_not_running.title", args);
  if (!finding) return finding.error();
  finding->evidence.push_back(context.text("driver.persistenced_not_running.mode", args));
  const std::optional<bool> running = f.driver->persistenced_running;
  finding->evidence.push_back(
      context.text(!running   ? "driver.persistenced_not_running.container"
                   : *running ? "driver.persistenced_not_running.daemon_without_mode"
                              : "driver.persistenced_not_running.no_daemon",
                   args));
  finding->fix.push_back(context.text(running == true
                                          ? "driver.persistenced_not_running.fix.mode"
                                          : "driver.persistenced_not_running.fix.enable",
                                      args));
  findings.push_back(std::move(*finding));
  return true;
}

// An environment variable that makes PyTorch or TensorFlow allocate with cudaMallocAsync, as
// "NAME=value"; empty when none does.
std::string async_allocator_variable(const Facts& f) {
  for (const char* name : {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"}) {
    const auto it = f.env.variables.find(name);
    if (it != f.env.variables.end() && it->second.find("cudaMallocAsync") != std::string::npos)
      return it->first + "=" + it->second;
  }
  const auto tf = f.env.variables.find("TF_GPU_ALLOCATOR");
  if (tf != f.env.variables.end() && tf->second == "cuda_malloc_async")
    return tf->first + "=" + tf->second;
  return "";
}

Result<bool> check_memory_pools(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  std::vector<std::string> evidence;
  for (const auto& gpu : f.gpus) {
    if (gpu.memory_pools.value_or(true)) continue;
    evidence.push_back(
        context.text("device.async_allocator_unsupported.gpu",
                     {{"index", std::to_string(gpu.index)}, {"name", gpu.name.value_or("?")}}));
  }
  if (evidence.empty()) return true;
  // Asked for by this environment, every allocation fails; otherwise only programs that choose
  // the allocator themselves (ComfyUI, Fooocus) do.
  const std::string variable = async_allocator_variable(f);
  auto finding = context.finding(
      "device.async_allocator_unsupported", variable.empty() ? Severity::warning : Severity::error,
      variable.empty() ? "device.async_allocator_unsupported.title"
                       : "device.async_allocator_unsupported.asked.title",
      {{"variable", variable}});
  if (!finding) return finding.error();
  finding->evidence = evidence;
  finding->fix.push_back(context.text("device.async_allocator_unsupported.fix.off"));
  finding->fix.push_back(context.text("device.async_allocator_unsupported.fix.driver"));
  findings.push_back(std::move(*finding));
  return true;
}

Result<bool> check_image_driver_libraries(const CheckContext& context,
                                          std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (!f.driver || f.driver->image_libraries.empty()) return true;
  const DriverFacts& d = *f.driver;
  const std::string loaded = d.libcuda_file.value_or("");
  const bool loads_image_library = std::find(d.image_libraries.begin(), d.image_libraries.end(),
                                             loaded) != d.image_libraries.end();
  // The image's library in use, or the driver refusing to start beside it: the clash has happened.
  const bool clash = loads_image_library || library_mismatch(f);
  const kb::MessageArgs args = {{"container", f.os.container.value_or("container")}};
  auto finding =
      context.finding("container.driver_libs_in_image", clash ? Severity::error : Severity::warning,
                      clash ? "container.driver_libs_in_image.title"
                            : "container.driver_libs_in_image.unused.title",
                      args);
  if (!finding) return finding.error();
  finding->evidence.push_back(context.text("container.driver_libs_in_image.files",
                                           {{"paths", text::join(d.image_libraries, ", ")}}));
  if (loads_image_library) {
    finding->evidence.push_back(
        context.text("container.driver_libs_in_image.loaded", {{"path", loaded}}));
  }
  if (d.kernel_module_version) {
    finding->evidence.push_back(
        context.text("driver.library_mismatch.module", {{"version", *d.kernel_module_version}}));
  }
  add_driver_evidence(context, *finding);
  for (const char* fix :
       {"container.driver_libs_in_image.fix.remove", "container.driver_libs_in_image.fix.never"}) {
    finding->fix.push_back(context.text(fix, {{"path", d.image_libraries.front()}}));
  }
  findings.push_back(std::move(*finding));
  return true;
}

Result<bool> check_gpu_and_driver(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (f.os.family == "windows") return check_windows(context, findings);
  if (f.os.family != "linux") return true;
  if (library_mismatch(f)) {
    // Inside a container that carries its own driver libraries, they are why the versions
    // differ: check_image_driver_libraries says so.
    if (!f.driver->image_libraries.empty()) return true;
    std::vector<std::string> evidence;
    if (f.driver->kernel_module_version) {
      evidence.push_back(context.text("driver.library_mismatch.module",
                                      {{"version", *f.driver->kernel_module_version}}));
    }
    return emit(context, findings, "driver.library_mismatch", "driver.library_mismatch", {},
                evidence, true,
                {"driver.library_mismatch.fix.reboot", "driver.library_mismatch.fix.packages"});
  }
  if (f.os.wsl) return check_wsl(context, findings);
  if (!f.hardware.pci_scanned || driver_works(f) || !f.gpus.empty()) {
    return check_device_init(context, findings);
  }
  if (f.hardware.pci_gpus.empty()) {
    std::vector<std::string> evidence = {context.text("gpu.none.pci")};
    if (f.os.container) {
      evidence.push_back(context.text("gpu.none.container", {{"container", *f.os.container}}));
    }
    return emit(context, findings, "gpu.none", "gpu.none", {}, evidence, true,
                {"gpu.none.fix.machine", "gpu.none.fix.no_driver"});
  }
  std::vector<std::string> pci;
  for (const auto& g : f.hardware.pci_gpus) {
    pci.push_back(context.text("gpu.pci_device",
                               {{"address", g.address},
                                {"name", g.name.value_or(context.text("gpu.pci_device.unnamed"))},
                                {"id", g.pci_id},
                                {"driver", g.kernel_driver.value_or("-")}}));
  }
  if (!f.hardware.denied_nodes.empty()) {
    for (const auto& node : f.hardware.denied_nodes) {
      pci.push_back(context.text("gpu.not_visible.denied_node", {{"node", node}}));
    }
    return emit(context, findings, "gpu.not_visible", "gpu.not_visible.denied", {}, pci, false,
                {"gpu.not_visible.denied.fix.group", "gpu.not_visible.denied.fix.check"});
  }
  if (container_without_gpu(f)) {
    return emit(
        context, findings, "gpu.not_visible", "gpu.not_visible.container",
        {{"container", *f.os.container}}, pci, false,
        {"gpu.not_visible.container.fix.docker", "gpu.not_visible.container.fix.kubernetes"});
  }
  const bool nouveau = f.driver && f.driver->nouveau_loaded;
  if (module_not_loaded(f)) {
    pci.push_back(
        context.text("driver.module_not_loaded.libraries", {{"path", *f.driver->libcuda}}));
    // No module for this kernel at all: a build that failed is the cause, before any reason the
    // kernel could have had to refuse one.
    const KernelModuleBuilds builds = builds_for_running_kernel(f);
    if (builds.failed) return emit_module_build_failed(context, findings, *builds.failed, pci);
    if (builds.unbuilt) {
      pci.push_back(context.text(builds.unbuilt->kernels.empty()
                                     ? "driver.module_not_loaded.dkms_none"
                                     : "driver.module_not_loaded.dkms_unbuilt",
                                 module_build_args(*builds.unbuilt, *f.os.kernel)));
    }
    // With Secure Boot on the kernel refuses a module no enrolled key signed: the DKMS builds of
    // NVIDIA's driver are unsigned until their key is enrolled. nouveau claiming the GPU is
    // another reason, and then the first one to name.
    if (f.driver->secure_boot.value_or(false) && !nouveau) {
      // The state first: explain quotes a finding's first evidence as the fact that decided it.
      pci.insert(pci.begin(), context.text("driver.secure_boot_blocked.state"));
      return emit(context, findings, "driver.secure_boot_blocked", "driver.secure_boot_blocked", {},
                  pci, true,
                  {"driver.secure_boot_blocked.fix.enrol", "driver.secure_boot_blocked.fix.check",
                   "driver.secure_boot_blocked.fix.disable"});
    }
    std::vector<std::string> fixes = {"driver.module_not_loaded.fix.rebuild"};
    if (nouveau) fixes.push_back("driver.missing.fix.nouveau");
    fixes.push_back("driver.module_not_loaded.fix.secure_boot");
    return emit(context, findings, "driver.module_not_loaded", "driver.module_not_loaded", {}, pci,
                true, fixes);
  }
  std::vector<std::string> fixes = {"driver.missing.fix.install"};
  if (nouveau) fixes.push_back("driver.missing.fix.nouveau");
  return emit(context, findings, "driver.missing", "driver.missing", {}, pci, true, fixes);
}

}  // namespace gpuvet::checks
