#include "frameworks/installed_files.hpp"

namespace gpuvet::frameworks {

std::optional<python::BuildDeclaration> read_declaration(const sys::System& system,
                                                         const std::string& file, Parser parse) {
  const auto text = system.read_text(file);
  if (!text) return std::nullopt;
  return parse(*text);
}

void apply(const std::optional<python::BuildDeclaration>& d, FrameworkFact& f,
           std::string_view file) {
  if (!d) return;
  f.declared_by = std::string(file);
  if (!f.version && d->version) f.version = d->version;
  if (d->rocm_build == true) {
    f.gpu_build = false;
    f.rocm = d->rocm;
  } else if (d->cuda_build) {
    f.gpu_build = d->cuda_build;
  }
  f.cuda = d->cuda;
  f.cudnn = d->cudnn;
  f.compute_capabilities = d->compute_capabilities;
  f.dll_names = d->dll_names;
}

const NvidiaWheelFact* wheel(const PythonEnvFact& env, std::string_view component) {
  for (const auto& w : env.nvidia_wheels) {
    if (w.component == component) return &w;
  }
  return nullptr;
}

}  // namespace gpuvet::frameworks
