#include "facts/facts.hpp"

#include "facts/json_fields.hpp"

#include <nlohmann/json.hpp>

namespace gpuvet {

using json = nlohmann::ordered_json;

namespace {

template <typename T>
json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json to_json(const OsFacts& os) {
  return {{"family", os.family},
          {"name", or_null(os.name)},
          {"version", or_null(os.version)},
          {"release", or_null(os.release)},
          {"kernel", or_null(os.kernel)},
          {"arch", or_null(os.arch)},
          {"wsl", os.wsl},
          {"container", or_null(os.container)},
          {"remote_session", os.remote_session},
          {"long_paths_enabled", or_null(os.long_paths_enabled)},
          {"memory_integrity", or_null(os.memory_integrity)},
          {"tdr_delay_s", or_null(os.tdr_delay_s)}};
}

json to_json(const EnvFacts& env) {
  return {{"variables", env.variables},
          {"path", env.path},
          {"ld_library_path", env.ld_library_path},
          {"saved_path", env.saved_path},
          {"saved_path_only", env.saved_path_only}};
}

json to_json(const GpuFact& g) {
  return fields_to_json<json>(g, Absent::as_null);
}

json to_json(const LibraryFact& l);
json to_json(const NvidiaWheelFact& w);
json to_json(const FrameworkFact& f);
json to_json(const CondaPackageFact& c);
json to_json(const CudaToolkitFact& t);
json to_json(const CudnnFact& c);
json to_json(const PythonEnvFact& p);

template <typename T>
json list(const std::vector<T>& items) {
  json out = json::array();
  for (const auto& item : items)
    out.push_back(to_json(item));
  return out;
}

json to_json(const FrameworkFact& f) {
  return {{"name", f.name},
          {"package", f.package},
          {"version", or_null(f.version)},
          {"gpu_build", or_null(f.gpu_build)},
          {"cuda", or_null(f.cuda)},
          {"cudnn", or_null(f.cudnn)},
          {"rocm", or_null(f.rocm)},
          {"compute_capabilities", f.compute_capabilities},
          {"dll_names", f.dll_names},
          {"installer", f.installer},
          {"location", f.location},
          {"declared_by", or_null(f.declared_by)},
          {"module", or_null(f.module)},
          {"libraries", list(f.libraries)},
          {"libdevice_roots", f.libdevice_roots},
          {"libdevice", or_null(f.libdevice)}};
}

json to_json(const NvidiaWheelFact& w) {
  return {{"package", w.package},
          {"version", w.version},
          {"component", w.component},
          {"cuda_major", w.cuda_major},
          {"lib_dir", or_null(w.lib_dir)}};
}

json to_json(const CondaPackageFact& c) {
  return {{"name", c.name},
          {"version", c.version},
          {"build", c.build},
          {"channel", or_null(c.channel)}};
}

json to_json(const CudaToolkitFact& t) {
  return {{"version", or_null(t.version)},
          {"version_source", or_null(t.version_source)},
          {"root", t.root},
          {"on_path", t.on_path},
          {"source", t.source},
          {"libraries", t.libraries},
          {"libdevice", t.libdevice},
          {"ptxas", t.ptxas},
          {"ptxas_version", or_null(t.ptxas_version)},
          {"compiles", t.compiles},
          {"loads", t.loads}};
}

json to_json(const CudnnFact& c) {
  return {{"version", or_null(c.version)},
          {"location", c.location},
          {"source", c.source},
          {"header_version", or_null(c.header_version)},
          {"library_version", or_null(c.library_version)},
          {"loaded_version", or_null(c.loaded_version)},
          {"header_library_agree", or_null(c.header_library_agree)},
          {"libraries", c.libraries}};
}

json to_json(const PythonEnvFact& p);

json to_json(const LibraryFact& l) {
  json shadowed = json::array();
  for (const auto& c : l.shadowed)
    shadowed.push_back({{"path", c.path}, {"version", or_null(c.version)}});
  return {{"name", l.name},
          {"resolved", or_null(l.resolved)},
          {"version", or_null(l.version)},
          {"shadowed", shadowed},
          {"new_terminal", or_null(l.new_terminal)}};
}

json to_json(const PythonEnvFact& p) {
  return {{"path", p.path},
          {"kind", p.kind},
          {"python", or_null(p.python)},
          {"python_source", or_null(p.python_source)},
          {"active", p.active},
          {"found_by", p.found_by},
          {"site_packages", p.site_packages},
          {"distributions", p.distributions},
          {"nvidia_wheels", list(p.nvidia_wheels)},
          {"conda_packages", list(p.conda_packages)},
          {"frameworks", list(p.frameworks)}};
}

}  // namespace

json facts_to_json(const Facts& facts) {
  json driver = nullptr;
  if (facts.driver) {
    const DriverFacts& d = *facts.driver;
    driver = {{"installed", or_null(d.installed)},
              {"version", or_null(d.version)},
              {"cuda_driver_version", or_null(d.cuda_driver_version)},
              {"error", or_null(d.error)},
              {"nvidia_module_loaded", d.nvidia_module_loaded},
              {"nouveau_loaded", d.nouveau_loaded},
              {"kernel_module_version", or_null(d.kernel_module_version)},
              {"libcuda", or_null(d.libcuda)},
              {"cuinit_code", or_null(d.cuinit_code)},
              {"stub_libraries", d.stub_libraries},
              {"stub_cuinit_code", or_null(d.stub_cuinit_code)},
              {"wsl_libcuda", d.wsl_libcuda},
              {"ld_cache_libcuda", or_null(d.ld_cache_libcuda)}};
  }
  json pci = json::array();
  for (const auto& g : facts.hardware.pci_gpus) {
    pci.push_back({{"address", g.address},
                   {"pci_id", g.pci_id},
                   {"class", g.class_code},
                   {"kernel_driver", or_null(g.kernel_driver)}});
  }
  json adapters = json::array();
  for (const auto& a : facts.hardware.display_adapters) {
    adapters.push_back({{"name", or_null(a.name)},
                        {"provider", or_null(a.provider)},
                        {"driver_version", or_null(a.driver_version)},
                        {"nvidia_driver", or_null(a.nvidia_driver)},
                        {"pci_id", or_null(a.pci_id)},
                        {"basic", a.basic}});
  }
  const json hardware = {
      {"pci_scanned", facts.hardware.pci_scanned},
      {"pci_gpus", pci},
      {"display_adapters", adapters},
      {"device_nodes", facts.hardware.device_nodes},
      {"denied_nodes", facts.hardware.denied_nodes},
      {"nvidia_visible_devices", or_null(facts.hardware.nvidia_visible_devices)}};
  return {{"os", to_json(facts.os)},     {"env", to_json(facts.env)},
          {"hardware", hardware},        {"driver", driver},
          {"gpus", list(facts.gpus)},    {"cuda_toolkits", list(facts.cuda_toolkits)},
          {"nvcc", or_null(facts.nvcc)}, {"libraries", list(facts.libraries)},
          {"cudnn", list(facts.cudnn)},  {"python_envs", list(facts.python_envs)}};
}

}  // namespace gpuvet
