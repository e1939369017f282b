// ONNX Runtime: onnxruntime (CPU), onnxruntime-gpu (the CUDA and TensorRT execution providers).
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "frameworks/installed_files.hpp"
#include "frameworks/kb_rows.hpp"
#include "frameworks/registry.hpp"
#include "kb/queries.hpp"

namespace gpuvet::frameworks {

namespace {

constexpr std::string_view kCudaProvider = "onnxruntime/capi/libonnxruntime_providers_cuda.so";

// From 1.16 the CUDA provider's DT_NEEDED names the CUDA runtime and cuDNN it was linked with
// (libcudart.so.12, libcudnn.so.9; data/onnxruntime_libraries.csv): the majors, where
// build_and_package_info.py (written for GPU wheels only from 1.21) says nothing.
void read_provider(const InstalledDistribution& d, FrameworkFact& f) {
  const auto elf = d.system.elf_info(paths::join(d.site, kCudaProvider));
  if (!elf) return;
  for (const auto& needed : elf->needed) {
    constexpr std::string_view kCudart = "libcudart.so.";
    constexpr std::string_view kCudnn = "libcudnn.so.";
    const std::string_view name = needed;
    if (!f.cuda && name.starts_with(kCudart)) f.cuda = version::major(name.substr(kCudart.size()));
    if (!f.cudnn && name.starts_with(kCudnn)) f.cudnn = version::major(name.substr(kCudnn.size()));
  }
  if (f.cuda) {
    f.gpu_build = true;
    f.declared_by = std::string(kCudaProvider);
  }
}

void read_installed(const InstalledDistribution& d, FrameworkFact& f) {
  const bool gpu_by_name = f.gpu_build == true;
  apply(
      read_declaration(d.system, paths::join(d.site, "onnxruntime/capi/build_and_package_info.py"),
                       python::parse_onnxruntime_build_info),
      f, "onnxruntime/capi/build_and_package_info.py");
  if (gpu_by_name && !f.cuda && !f.rocm) read_provider(d, f);
  // A GPU package whose files name no CUDA is still the GPU package: its CUDA is unknown.
  if (gpu_by_name && f.gpu_build == false && !f.rocm) f.gpu_build = true;
}

// The environment-name part: the CUDA major, with the extras that bring CUDA (cuda12-cuda-cudnn).
void finish_build(const kb::Row& row, Build& b) {
  b.variant = variant_with_extras(row.get("variant"), b.package);
}

// data/onnxruntime_builds.csv: one row per (release range, CUDA variant, install form).
Result<std::vector<Build>> builds(const kb::Kb& kb) {
  return builds_from_table(kb, "onnxruntime_builds", "onnxruntime", "platforms", finish_build);
}

std::string verify_command(const Build&) {
  return "python -c \"import onnxruntime as ort; print(ort.get_available_providers())\"";
}

}  // namespace

const Framework& onnxruntime() {
  static const Framework framework = [] {
    Framework f;
    f.family = "onnxruntime";
    f.display_name = "ONNX Runtime";
    f.aliases = {"ort"};
    f.short_name = "ort";
    f.read_installed = read_installed;
    // The CUDA execution provider is a library of its own that links the CUDA libraries.
    f.linux_modules = {kCudaProvider};
    f.linux_gpu_code = {kCudaProvider};
    f.windows_gpu_code = {"onnxruntime/capi/onnxruntime_providers_cuda.dll"};
    f.kb_table = "onnxruntime_builds";
    f.builds = builds;
    f.verify_command = verify_command;
    return f;
  }();
  return framework;
}

}  // namespace gpuvet::frameworks
