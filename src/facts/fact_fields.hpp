#pragma once
// The JSON fields of every fact, declared once (core/json_fields.hpp walks them): the check JSON
// prints them with unknowns as null, snapshots hold the GPU answers with the same fields.
#include "core/json_fields.hpp"
#include "facts/facts.hpp"

namespace gpuvet {

template <>
struct JsonFields<OsFacts> {
  using T = OsFacts;
  static constexpr auto fields = std::make_tuple(
      json_field("family", &T::family), json_field("name", &T::name),
      json_field("version", &T::version), json_field("release", &T::release),
      json_field("kernel", &T::kernel), json_field("arch", &T::arch), json_field("wsl", &T::wsl),
      json_field("container", &T::container), json_field("remote_session", &T::remote_session),
      json_field("hostname", &T::hostname),
      json_field("long_paths_enabled", &T::long_paths_enabled),
      json_field("memory_integrity", &T::memory_integrity),
      json_field("tdr_delay_s", &T::tdr_delay_s), json_field("shm_bytes", &T::shm_bytes));
};

template <>
struct JsonFields<EnvFacts> {
  using T = EnvFacts;
  static constexpr auto fields = std::make_tuple(
      json_field("variables", &T::variables), json_field("path", &T::path),
      json_field("ld_library_path", &T::ld_library_path), json_field("saved_path", &T::saved_path),
      json_field("saved_path_only", &T::saved_path_only));
};

template <>
struct JsonFields<ModuleBuildFact> {
  using T = ModuleBuildFact;
  static constexpr auto fields = std::make_tuple(
      json_field("tool", &T::tool), json_field("module", &T::module),
      json_field("version", &T::version), json_field("kernels", &T::kernels),
      json_field("failed_log", &T::failed_log), json_field("failed_kernel", &T::failed_kernel));
};

template <>
struct JsonFields<XidEventFact> {
  using T = XidEventFact;
  static constexpr auto fields =
      std::make_tuple(json_field("time", &T::time), json_field("pci", &T::pci),
                      json_field("xid", &T::xid), json_field("text", &T::text));
};

template <>
struct JsonFields<LibcudaLinkFact> {
  using T = LibcudaLinkFact;
  static constexpr auto fields =
      std::make_tuple(json_field("dirs", &T::dirs), json_field("dirs_from", &T::dirs_from),
                      json_field("unversioned", &T::unversioned));
};

template <>
struct JsonFields<DriverFacts> {
  using T = DriverFacts;
  static constexpr auto fields = std::make_tuple(
      json_field("installed", &T::installed), json_field("version", &T::version),
      json_field("cuda_driver_version", &T::cuda_driver_version), json_field("error", &T::error),
      json_field("nvidia_module_loaded", &T::nvidia_module_loaded),
      json_field("nouveau_loaded", &T::nouveau_loaded),
      json_field("kernel_module_version", &T::kernel_module_version),
      json_field("secure_boot", &T::secure_boot), json_field("libcuda", &T::libcuda),
      json_field("libcuda_file", &T::libcuda_file), json_field("cuinit_code", &T::cuinit_code),
      json_field("stub_libraries", &T::stub_libraries),
      json_field("stub_cuinit_code", &T::stub_cuinit_code),
      json_field("wsl_libcuda", &T::wsl_libcuda),
      json_field("ld_cache_libcuda", &T::ld_cache_libcuda),
      json_field("libcuda_link", &T::libcuda_link),
      json_field("image_libraries", &T::image_libraries),
      json_field("persistenced_running", &T::persistenced_running),
      json_field("module_builds", &T::module_builds), json_field("xid_events", &T::xid_events));
};

template <>
struct JsonFields<PciGpuFact> {
  using T = PciGpuFact;
  static constexpr auto fields = std::make_tuple(
      json_field("address", &T::address), json_field("pci_id", &T::pci_id),
      json_field("class", &T::class_code), json_field("kernel_driver", &T::kernel_driver),
      json_field("name", &T::name), json_field("compute_capability", &T::compute_capability));
};

template <>
struct JsonFields<DisplayAdapterFact> {
  using T = DisplayAdapterFact;
  static constexpr auto fields =
      std::make_tuple(json_field("name", &T::name), json_field("provider", &T::provider),
                      json_field("driver_version", &T::driver_version),
                      json_field("nvidia_driver", &T::nvidia_driver),
                      json_field("pci_id", &T::pci_id), json_field("basic", &T::basic));
};

template <>
struct JsonFields<HardwareFacts> {
  using T = HardwareFacts;
  static constexpr auto fields = std::make_tuple(
      json_field("pci_scanned", &T::pci_scanned), json_field("pci_gpus", &T::pci_gpus),
      json_field("display_adapters", &T::display_adapters),
      json_field("device_nodes", &T::device_nodes), json_field("denied_nodes", &T::denied_nodes),
      json_field("nvidia_visible_devices", &T::nvidia_visible_devices));
};

// Also the GPU answer of a snapshot and of the native child (sys::GpuAnswer): an index is
// required there, and within what one machine can hold.
template <>
struct JsonFields<GpuFact> {
  using T = GpuFact;
  static constexpr auto fields = std::make_tuple(
      json_field("index", &T::index).required().within(0, 4096), json_field("name", &T::name),
      json_field("uuid", &T::uuid), json_field("pci_id", &T::pci_id),
      json_field("compute_capability", &T::compute_capability),
      json_field("memory_mib", &T::memory_mib), json_field("driver_model", &T::driver_model),
      json_field("compute_mode", &T::compute_mode),
      json_field("persistence_mode", &T::persistence_mode), json_field("ecc", &T::ecc),
      json_field("mig_mode", &T::mig_mode),
      json_field("ecc_uncorrected", &T::ecc_uncorrected).within(0, 1LL << 50),
      json_field("row_remap_pending", &T::row_remap_pending),
      json_field("row_remap_failure", &T::row_remap_failure),
      json_field("memory_pools", &T::memory_pools));
};

template <>
struct JsonFields<CudaToolkitFact> {
  using T = CudaToolkitFact;
  static constexpr auto fields = std::make_tuple(
      json_field("version", &T::version), json_field("version_source", &T::version_source),
      json_field("root", &T::root), json_field("on_path", &T::on_path),
      json_field("source", &T::source), json_field("libraries", &T::libraries),
      json_field("libdevice", &T::libdevice), json_field("ptxas", &T::ptxas),
      json_field("ptxas_version", &T::ptxas_version), json_field("compiles", &T::compiles),
      json_field("loads", &T::loads), json_field("host_gcc_max", &T::host_gcc_max),
      json_field("host_msc_min", &T::host_msc_min),
      json_field("host_msc_below", &T::host_msc_below),
      json_field("host_msvc_names", &T::host_msvc_names));
};

template <>
struct JsonFields<HostCompilerFact> {
  using T = HostCompilerFact;
  static constexpr auto fields =
      std::make_tuple(json_field("path", &T::path), json_field("real_path", &T::real_path),
                      json_field("source", &T::source), json_field("family", &T::family),
                      json_field("version", &T::version), json_field("msc_ver", &T::msc_ver),
                      json_field("other_gcc", &T::other_gcc));
};

template <>
struct JsonFields<CudnnFact> {
  using T = CudnnFact;
  static constexpr auto fields = std::make_tuple(
      json_field("version", &T::version), json_field("location", &T::location),
      json_field("source", &T::source), json_field("header_version", &T::header_version),
      json_field("library_version", &T::library_version),
      json_field("loaded_version", &T::loaded_version),
      json_field("header_library_agree", &T::header_library_agree),
      json_field("libraries", &T::libraries));
};

template <>
struct JsonFields<LibraryCopy> {
  using T = LibraryCopy;
  static constexpr auto fields =
      std::make_tuple(json_field("path", &T::path), json_field("version", &T::version));
};

template <>
struct JsonFields<LibraryFact> {
  using T = LibraryFact;
  static constexpr auto fields =
      std::make_tuple(json_field("name", &T::name), json_field("resolved", &T::resolved),
                      json_field("version", &T::version), json_field("shadowed", &T::shadowed),
                      json_field("new_terminal", &T::new_terminal));
};

template <>
struct JsonFields<GpuCodeFact> {
  using T = GpuCodeFact;
  static constexpr auto fields =
      std::make_tuple(json_field("file", &T::file), json_field("sass", &T::sass).always(),
                      json_field("ptx", &T::ptx).always(), json_field("lto", &T::lto),
                      json_field("error", &T::error));
};

template <>
struct JsonFields<FrameworkFact> {
  using T = FrameworkFact;
  static constexpr auto fields = std::make_tuple(
      json_field("name", &T::name), json_field("package", &T::package),
      json_field("version", &T::version), json_field("gpu_build", &T::gpu_build),
      json_field("cuda", &T::cuda), json_field("cudnn", &T::cudnn), json_field("rocm", &T::rocm),
      json_field("compute_capabilities", &T::compute_capabilities),
      json_field("dll_names", &T::dll_names), json_field("installer", &T::installer),
      json_field("location", &T::location), json_field("declared_by", &T::declared_by),
      json_field("module", &T::module), json_field("libraries", &T::libraries),
      json_field("libdevice_roots", &T::libdevice_roots), json_field("libdevice", &T::libdevice),
      json_field("gpu_code", &T::gpu_code));
};

template <>
struct JsonFields<NvidiaWheelFact> {
  using T = NvidiaWheelFact;
  static constexpr auto fields =
      std::make_tuple(json_field("package", &T::package), json_field("version", &T::version),
                      json_field("component", &T::component),
                      json_field("cuda_major", &T::cuda_major), json_field("lib_dir", &T::lib_dir));
};

template <>
struct JsonFields<CondaPackageFact> {
  using T = CondaPackageFact;
  static constexpr auto fields =
      std::make_tuple(json_field("name", &T::name), json_field("version", &T::version),
                      json_field("build", &T::build), json_field("channel", &T::channel));
};

template <>
struct JsonFields<TritonFact> {
  using T = TritonFact;
  static constexpr auto fields =
      std::make_tuple(json_field("package", &T::package), json_field("version", &T::version),
                      json_field("c_compiler", &T::c_compiler), json_field("cc", &T::cc),
                      json_field("links_lcuda", &T::links_lcuda));
};

template <>
struct JsonFields<PythonEnvFact> {
  using T = PythonEnvFact;
  static constexpr auto fields = std::make_tuple(
      json_field("path", &T::path), json_field("kind", &T::kind), json_field("python", &T::python),
      json_field("python_source", &T::python_source), json_field("active", &T::active),
      json_field("found_by", &T::found_by), json_field("site_packages", &T::site_packages),
      json_field("distributions", &T::distributions),
      json_field("nvidia_wheels", &T::nvidia_wheels),
      json_field("conda_packages", &T::conda_packages), json_field("frameworks", &T::frameworks),
      json_field("triton", &T::triton));
};

template <>
struct JsonFields<SlurmFacts> {
  using T = SlurmFacts;
  static constexpr auto fields = std::make_tuple(
      json_field("conf", &T::conf), json_field("node", &T::node),
      json_field("configured_gpus", &T::configured_gpus), json_field("gres_conf", &T::gres_conf),
      json_field("autodetect", &T::autodetect), json_field("gpu_files", &T::gpu_files),
      json_field("missing_gpu_files", &T::missing_gpu_files), json_field("in_job", &T::in_job));
};

template <>
struct JsonFields<ContainerToolkitFact> {
  using T = ContainerToolkitFact;
  static constexpr auto fields =
      std::make_tuple(json_field("program", &T::program), json_field("version", &T::version));
};

template <>
struct JsonFields<Facts> {
  using T = Facts;
  static constexpr auto fields = std::make_tuple(
      json_field("os", &T::os), json_field("env", &T::env), json_field("hardware", &T::hardware),
      json_field("driver", &T::driver), json_field("gpus", &T::gpus),
      json_field("cuda_toolkits", &T::cuda_toolkits), json_field("nvcc", &T::nvcc),
      json_field("host_compilers", &T::host_compilers), json_field("libraries", &T::libraries),
      json_field("cudnn", &T::cudnn), json_field("python_envs", &T::python_envs),
      json_field("slurm", &T::slurm), json_field("container_toolkit", &T::container_toolkit));
};

}  // namespace gpuvet
