// Which copy of each CUDA library a framework build would load, from the build's own modules and
// the framework's loading rules (src/frameworks/), through `which`'s search order.
#include "probes/framework_libraries.hpp"

#include <algorithm>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "frameworks/framework.hpp"
#include "probes/copy_version.hpp"
#include "probes/probes.hpp"
#include "resolve/platform.hpp"
#include "resolve/windows_search.hpp"
#include "system/real_path.hpp"

namespace gpuvet::probes {

FrameworkLibraries::FrameworkLibraries(const sys::System& system, const kb::Kb& kb,
                                       const Facts& facts)
    : system_(system), facts_(facts), windows_(facts.os.family == "windows") {
  if (auto table = kb.table("library_names")) {
    const kb::Table& t = **table;
    for (size_t row = 0; row < t.size(); ++row) {
      if (t.cell(row, "library") != "cudart") continue;
      if (!t.cell(row, "linux_soname").empty()) {
        cudart_sonames_.emplace_back(t.cell(row, "cuda"), t.cell(row, "linux_soname"));
      }
      if (!t.cell(row, "windows_dll").empty()) {
        cudart_dlls_.emplace_back(t.cell(row, "cuda"), t.cell(row, "windows_dll"));
      }
    }
  }
  if (auto table = kb.table("cudnn_releases")) {
    const kb::Table& t = **table;
    for (size_t row = 0; row < t.size(); ++row) {
      const std::string& soname = t.cell(row, "linux_soname");
      const std::string major = text::split(t.cell(row, "cudnn_from"), '.').front();
      if (!soname.empty()) cudnn_sonames_[major] = soname;
      if (!t.cell(row, "windows_dll").empty()) cudnn_dlls_[major] = t.cell(row, "windows_dll");
    }
  }
}

// What the loader gives the build's module for each CUDA library it needs (DT_NEEDED), through
// the module's own RPATH/RUNPATH, then LD_LIBRARY_PATH, the cache and the default directories.
void FrameworkLibraries::resolve(FrameworkFact& f, const PythonEnvFact& env) {
  if (windows_) {
    resolve_windows_libraries(f, env);
    return;
  }
  const frameworks::Framework* framework = frameworks::of(f);
  if (!framework || f.gpu_build != true || f.installer != "pip" || facts_.os.family != "linux") {
    return;
  }
  std::optional<resolve::Loader> loader;
  for (const auto module : framework->linux_modules) {
    const std::string path = paths::join(f.location, module);
    auto elf = system_.elf_info(path);
    if (!elf) continue;
    f.module = path;
    loader = resolve::Loader{path, std::move(*elf)};
    break;
  }
  if (loader) {
    for (const auto& needed : loader->elf.needed) {
      if (is_cuda_library_soname(needed)) f.libraries.push_back(resolve_library(needed, loader));
    }
  }
  // TensorFlow opens its CUDA runtime and cuDNN by name at run time (dso_loader), so they are
  // not in DT_NEEDED: the names come from the CUDA and cuDNN its build declares.
  if (!framework->opens_cuda_by_name) return;
  for (const auto& soname : sonames_by_name(f)) {
    const bool known = std::any_of(f.libraries.begin(), f.libraries.end(),
                                   [&](const LibraryFact& l) { return l.name == soname; });
    if (known) continue;
    LibraryFact library = resolve_library(soname, loader);
    // Where the loader finds nothing, the environment's NVIDIA wheels hold the copy that
    // TensorFlow's [and-cuda] install puts there.
    if (!library.resolved) {
      for (const auto& w : env.nvidia_wheels) {
        if (!w.lib_dir) continue;
        const std::string candidate = paths::join(*w.lib_dir, soname);
        if (system_.exists(candidate)) {
          library.resolved = sys::real_path(system_, candidate);
          library.version = copy_version(facts_, soname, *library.resolved,
                                         resolve::version_from_file_name(paths::from_fs(
                                             paths::to_fs(*library.resolved).filename())));
          break;
        }
      }
    }
    f.libraries.push_back(std::move(library));
  }
}

// Windows: what LoadLibrary loads for a DLL name when python.exe of this environment asks
// (TensorFlow loads its CUDA DLLs by name: the standard search, PATH included), from `which`.
LibraryFact FrameworkLibraries::resolve_windows_dll(const std::string& name,
                                                    const std::string& app_dir) const {
  const auto report =
      resolve::which_windows(system_, {{name}, paths::join(app_dir, "python.exe"), {}});
  const resolve::Resolution& r = report.results.front();
  LibraryFact library;
  library.name = name;
  library.resolved = r.resolved;
  if (r.resolved) library.version = copy_version(facts_, name, *r.resolved, r.version);
  for (const auto& copy : r.shadowed)
    library.shadowed.push_back({copy.path, copy_version(facts_, name, copy.path, copy.version)});
  if (!library.resolved) library.new_terminal = in_saved_path_only(name);
  return library;
}

// The file a new terminal would load: in a folder of the saved Path this PATH lacks.
std::optional<std::string> FrameworkLibraries::in_saved_path_only(const std::string& name) const {
  for (const auto& dir : facts_.env.saved_path_only) {
    const std::string candidate = paths::join(dir, name);
    const auto info = system_.file_info(candidate);
    if (info && info->kind == sys::FileKind::regular) return candidate;
  }
  return std::nullopt;
}

// TensorFlow on Windows names its DLLs in build_info (cudnn64_7.dll, msvcp140_1.dll ...);
// cudart's is taken from data/library_names (build_info's cudart64_112.dll is not a real name:
// every CUDA 11.x ships cudart64_110.dll, shared/reference/tensorflow_facts.md §5).
void FrameworkLibraries::resolve_windows_libraries(FrameworkFact& f,
                                                   const PythonEnvFact& env) const {
  const frameworks::Framework* framework = frameworks::of(f);
  if (f.gpu_build != true || !framework || !framework->windows_loads_dlls_by_name) return;
  std::vector<std::string> names;
  if (f.cuda) {
    for (const auto& [cuda, dll] : cudart_dlls_) {
      if (cuda == *f.cuda) names.push_back(dll);
    }
  }
  if (f.cudnn) {
    const auto it = cudnn_dlls_.find(text::split(*f.cudnn, '.').front());
    if (it != cudnn_dlls_.end()) names.push_back(it->second);
  }
  for (const auto& dll : f.dll_names) {
    const std::string lower = text::to_lower(dll);
    if (lower.starts_with("msvcp") || lower.starts_with("vcruntime")) names.push_back(dll);
  }
  // cuDNN 8.3 to 8.9 on Windows need zlibwapi.dll (data/cudnn_releases.csv notes).
  if (f.cudnn && text::split(*f.cudnn, '.').front() == "8") names.push_back("zlibwapi.dll");
  for (const auto& name : names)
    f.libraries.push_back(resolve_windows_dll(name, env.path));
}

// Every kernel library of the build that exists (Framework::linux_gpu_code, windows_gpu_code):
// what its fat binaries hold, or why they could not be read.
void FrameworkLibraries::read_gpu_code(FrameworkFact& f) const {
  const frameworks::Framework* framework = frameworks::of(f);
  if (!framework || f.gpu_build != true) return;
  const auto& files = windows_ ? framework->windows_gpu_code : framework->linux_gpu_code;
  for (const auto file : files) {
    const std::string path = paths::join(f.location, file);
    if (!system_.exists(path)) continue;
    auto code = system_.gpu_code(path);
    GpuCodeFact fact;
    fact.file = path;
    if (code) {
      // A library of the build without GPU code says nothing about what the GPU runs.
      if (code->sass.empty() && code->ptx.empty()) continue;
      fact.sass = std::move(code->sass);
      fact.ptx = std::move(code->ptx);
      fact.lto = std::move(code->lto);
    } else {
      fact.error = code.error().message;
    }
    f.gpu_code.push_back(std::move(fact));
  }
}

// XLA's CUDA roots (tsl/platform/default/cuda_libdevice_path.cc, CandidateCudaRoots, and
// XLA's GetLibdeviceDir): --xla_gpu_cuda_data_dir from XLA_FLAGS, the build's toolkit path
// (/usr/local/cuda-X.Y for the official builds), /usr/local/cuda, then the pip wheel's
// nvidia/cuda_nvcc beside the package; libdevice is <root>/nvvm/libdevice.
void FrameworkLibraries::find_libdevice(FrameworkFact& f) const {
  const frameworks::Framework* framework = frameworks::of(f);
  if (windows_ || f.gpu_build != true || !framework ||
      framework->libdevice == frameworks::Libdevice::unused) {
    return;
  }
  if (const auto flags = system_.env("XLA_FLAGS")) {
    for (const auto& word : text::split(*flags, ' ')) {
      constexpr std::string_view kFlag = "--xla_gpu_cuda_data_dir=";
      if (word.starts_with(kFlag)) f.libdevice_roots.push_back(word.substr(kFlag.size()));
    }
  }
  if (f.cuda && f.cuda->find('.') != std::string::npos) {
    f.libdevice_roots.push_back("/usr/local/cuda-" + *f.cuda);
  }
  f.libdevice_roots.push_back("/usr/local/cuda");
  if (f.installer == "pip")
    f.libdevice_roots.push_back(paths::join(f.location, "nvidia/cuda_nvcc"));
  for (const auto& root : f.libdevice_roots) {
    const std::string dir = paths::join(root, "nvvm/libdevice");
    if (paths::is_absolute(root) && system_.is_directory(dir)) {
      f.libdevice = dir;
      return;
    }
  }
}

LibraryFact FrameworkLibraries::resolve_library(const std::string& soname,
                                                const std::optional<resolve::Loader>& loader) {
  if (!platform_) platform_ = resolve::detect_platform(system_);
  const resolve::Resolution r = resolve::resolve_name(system_, soname, loader, *platform_,
                                                      resolve::ElfHeaders::from_snapshot);
  LibraryFact library;
  library.name = soname;
  library.resolved = r.real_path ? r.real_path : r.resolved;
  if (library.resolved)
    library.version = copy_version(facts_, soname, *library.resolved, r.version);
  for (const auto& copy : r.shadowed) {
    const std::string path = sys::real_path(system_, copy.path);
    library.shadowed.push_back({path, copy_version(facts_, soname, path, copy.version)});
  }
  return library;
}

// libcudart's soname for the build's CUDA (data/library_names.csv) and libcudnn's for its
// cuDNN major (data/cudnn_releases.csv).
std::vector<std::string> FrameworkLibraries::sonames_by_name(const FrameworkFact& f) const {
  std::vector<std::string> names;
  if (f.cuda) {
    for (const auto& [cuda, soname] : cudart_sonames_) {
      if (cuda == *f.cuda) names.push_back(soname);
    }
  }
  if (f.cudnn) {
    const std::string major = text::split(*f.cudnn, '.').front();
    const auto it = cudnn_sonames_.find(major);
    if (it != cudnn_sonames_.end()) names.push_back(it->second);
  }
  return names;
}

}  // namespace gpuvet::probes
