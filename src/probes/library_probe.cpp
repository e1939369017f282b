// The library probe: for the CUDA and cuDNN libraries installed on this machine, which file the
// dynamic loader would really open by soname, and which copies that file shadows (resolve/).
#include <algorithm>
#include <set>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "probes/copy_version.hpp"
#include "probes/probes.hpp"
#include "resolve/which.hpp"
#include "system/real_path.hpp"

namespace gpuvet::probes {

namespace {

// The sonames frameworks ask the loader for: lib<name>.so.<major>.
constexpr std::string_view kWatched[] = {"cudart",   "cublas",   "cublasLt", "cufft",     "curand",
                                         "cusolver", "cusparse", "nvrtc",    "nvJitLink", "cudnn"};

}  // namespace

// The soname form: "libcudnn.so.9", "libcudart.so.11.0" (CUDA 10 and 11 runtimes carry
// major.minor); not the full file names "libcudnn.so.9.19.0" or "libcudart.so.11.8.89".
bool is_cuda_library_soname(std::string_view file) {
  for (const auto name : kWatched) {
    const std::string prefix = "lib" + std::string(name) + ".so.";
    if (!file.starts_with(prefix)) continue;
    const auto parts = text::split(file.substr(prefix.size()), '.');
    if (parts.size() <= 2 && std::all_of(parts.begin(), parts.end(), text::is_digits)) return true;
  }
  return false;
}

namespace {

void collect(const sys::System& system, const std::string& dir, std::set<std::string>& names) {
  const auto entries = system.list_dir(dir);
  if (!entries) return;
  for (const auto& entry : *entries) {
    if (is_cuda_library_soname(entry.name)) names.insert(entry.name);
  }
}

// The toolkit whose CUDA runtime the loader opens is the one programs run with.
void mark_loading_toolkit(const LibraryFact& library, std::vector<CudaToolkitFact>& toolkits) {
  if (!library.name.starts_with("libcudart.so.") || !library.resolved) return;
  for (auto& toolkit : toolkits) {
    if (library.resolved->starts_with(toolkit.root + "/")) toolkit.loads = true;
  }
}

}  // namespace

void probe_libraries(const sys::System& system, const kb::Kb& /*kb*/, Facts& facts) {
  if (facts.os.family != "linux") return;
  std::set<std::string> names;
  for (const auto& toolkit : facts.cuda_toolkits) {
    for (const char* sub : {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"}) {
      collect(system, paths::join(toolkit.root, sub), names);
    }
  }
  for (const auto& copy : facts.cudnn)
    collect(system, copy.location, names);
  if (names.empty()) return;

  const resolve::Platform platform = resolve::detect_platform(system);
  for (const auto& name : names) {
    // Files without recorded ELF facts (a hand-written snapshot) count as loadable.
    const resolve::Resolution r = resolve::resolve_name(system, name, std::nullopt, platform,
                                                        resolve::ElfHeaders::from_snapshot);
    LibraryFact fact;
    fact.name = name;
    fact.resolved = r.real_path ? r.real_path : r.resolved;
    if (fact.resolved) fact.version = copy_version(facts, name, *fact.resolved, r.version);
    for (const auto& copy : r.shadowed) {
      const std::string path = sys::real_path(system, copy.path);
      fact.shadowed.push_back({path, copy_version(facts, name, path, copy.version)});
    }
    mark_loading_toolkit(fact, facts.cuda_toolkits);
    facts.libraries.push_back(std::move(fact));
  }
}

}  // namespace gpuvet::probes
