// The Python probe: every Python environment a user of this machine could run, its Python
// version, its installed distributions and the framework builds among them, all from files.
// Nothing is imported and no interpreter is run: the framework is usually what is broken.
//
// Cost: one directory listing per site-packages and per conda-meta; a distribution's METADATA is
// read (its headers only) when the knowledge base knows the distribution, since the directory
// name already carries the normalised name and version (PyPA "Recording installed projects").
#include <algorithm>
#include <map>
#include <set>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "frameworks/installed_files.hpp"
#include "probes/framework_libraries.hpp"
#include "probes/probes.hpp"
#include "probes/programs.hpp"
#include "probes/python_discovery.hpp"
#include "python/framework_files.hpp"
#include "python/metadata.hpp"
#include "system/real_path.hpp"

namespace gpuvet::probes {

namespace {

// What the knowledge base says about a package name.
struct PackageInfo {
  std::string family;
  std::string role;   // build | plugin | meta | cuda_runtime | cudnn
  std::string build;  // gpu | cpu | ""
  std::string cuda;
};

struct WheelInfo {
  std::string component;
  std::string cuda_major;
  std::string lib_dir;
};

struct Catalog {
  std::map<std::string, PackageInfo> pip;
  std::map<std::string, PackageInfo> conda;
  std::map<std::string, WheelInfo> wheels;

  explicit Catalog(const kb::Kb& kb) {
    if (auto table = kb.table("python_packages")) {
      const kb::Table& t = **table;
      for (size_t row = 0; row < t.size(); ++row) {
        PackageInfo info{t.cell(row, "family"), t.cell(row, "role"), t.cell(row, "build"),
                         t.cell(row, "cuda")};
        (t.cell(row, "ecosystem") == "conda" ? conda : pip)[t.cell(row, "package")] = info;
      }
    }
    if (auto table = kb.table("nvidia_wheels")) {
      const kb::Table& t = **table;
      for (size_t row = 0; row < t.size(); ++row) {
        wheels[t.cell(row, "package")] = {t.cell(row, "component"), t.cell(row, "cuda_major"),
                                          t.cell(row, "linux_lib_dir")};
      }
    }
  }

  // Known by name, or a distribution a framework recognises by its name (cupy-cuda102).
  std::optional<PackageInfo> pip_package(const std::string& name) const {
    if (const auto it = pip.find(name); it != pip.end()) return it->second;
    for (const frameworks::Framework* framework : frameworks::all()) {
      if (!framework->unlisted_gpu_package) continue;
      if (auto cuda = framework->unlisted_gpu_package(name)) {
        return PackageInfo{std::string(framework->family), "build", "gpu", *cuda};
      }
    }
    return std::nullopt;
  }
  bool interesting(const std::string& name) const {
    return pip_package(name).has_value() || wheels.count(name) > 0;
  }
};

struct Distribution {
  std::string name;  // normalised
  std::string version;
  std::string site;
};

class PythonProbe {
 public:
  PythonProbe(const sys::System& system, const kb::Kb& kb, Facts& facts)
      : system_(system), catalog_(kb), facts_(facts), libraries_(system, kb, facts) {
    windows_ = facts_.os.family == "windows";
  }

  void run() {
    EnvironmentSearch search = find_python_environments(system_, facts_);
    active_ = std::move(search.active_key);
    for (const auto& candidate : search.candidates)
      inspect(candidate);
    mark_active();
  }

 private:
  // ---- one environment ------------------------------------------------------------------------

  struct PythonVersion {
    std::optional<std::string> value;
    std::optional<std::string> source;
  };

  void inspect(const EnvironmentCandidate& candidate) {
    if (!paths::is_absolute(candidate.prefix)) return;
    const std::string prefix = sys::real_path(system_, candidate.prefix);
    if (!seen_.insert(environment_key(system_, prefix, windows_)).second) return;
    if (!system_.is_directory(prefix)) return;

    PythonEnvFact env;
    env.path = prefix;
    env.found_by = candidate.found_by;
    const bool conda = system_.is_directory(paths::join(prefix, "conda-meta"));
    const auto cfg_text = system_.read_text(paths::join(prefix, "pyvenv.cfg"));
    env.kind = conda                                       ? "conda"
               : cfg_text                                  ? "venv"
               : under_pyenv_root(system_, facts_, prefix) ? "pyenv"
                                                           : candidate.kind;

    std::vector<std::string> lib_versions;
    env.site_packages = site_dirs(prefix, env.kind, lib_versions);
    std::vector<CondaPackageFact> conda_records;
    std::optional<std::string> conda_python;
    if (conda) conda_records = read_conda_meta(prefix, conda_python);
    if (env.site_packages.empty() && !conda_python) return;  // not a Python environment

    PythonVersion pv;
    if (cfg_text) {
      if (auto v = python::pyvenv_python_version(python::parse_cfg(*cfg_text))) {
        pv = {v, "pyvenv.cfg"};
      }
    }
    if (!pv.value && conda_python) pv = {conda_python, "conda-meta"};
    for (const auto& lib : lib_versions) {
      if (pv.value) break;
      // Up to 3.7 the include directory carries the ABI flags: include/python3.7m.
      for (const char* abi : {"", "m"}) {
        const auto header =
            system_.read_text(paths::join(prefix, "include/python" + lib + abi + "/patchlevel.h"));
        if (!header) continue;
        if (auto v = python::patchlevel_version(*header)) pv = {v, "patchlevel.h"};
        break;
      }
    }
    if (!pv.value && windows_) {
      if (const auto header = system_.read_text(paths::join(prefix, "include/patchlevel.h"))) {
        if (auto v = python::patchlevel_version(*header)) pv = {v, "patchlevel.h"};
      }
    }
    if (!pv.value && !lib_versions.empty()) pv = {lib_versions.front(), "lib-dir"};
    env.python = pv.value;
    env.python_source = pv.source;

    std::vector<Distribution> dists;
    for (const auto& site : env.site_packages)
      scan_site(site, dists, env.distributions);
    for (const auto& record : conda_records) {
      if (catalog_.conda.count(record.name)) env.conda_packages.push_back(record);
    }
    collect_wheels(dists, env);
    collect_triton(dists, env);
    collect_frameworks(dists, env);
    for (auto& framework : env.frameworks) {
      libraries_.resolve(framework, env);
      libraries_.find_libdevice(framework);
      libraries_.read_gpu_code(framework);
    }
    add_conda_libraries(env);
    add_wheel_libraries(env);
    facts_.python_envs.push_back(std::move(env));
  }

  // The site directories in the order Python searches them, and the pythonX.Y versions of lib/
  // (the interpreter's own first).
  std::vector<std::string> site_dirs(const std::string& prefix, const std::string& kind,
                                     std::vector<std::string>& lib_versions) const {
    std::vector<std::string> dirs;
    auto add_dir = [&](const std::string& dir) {
      if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end() && system_.is_directory(dir)) {
        dirs.push_back(dir);
      }
    };
    if (windows_) {
      // <prefix>/Lib/site-packages; the version from python3X.dll or the folder's name.
      add_dir(paths::join(prefix, "Lib/site-packages"));
      if (const auto entries = system_.list_dir(prefix)) {
        for (const auto& entry : *entries) {
          const std::string lower = text::to_lower(entry.name);
          if (lower.starts_with("python3") && lower.ends_with(".dll") && lower.size() > 11) {
            const std::string digits = lower.substr(6, lower.size() - 10);
            if (text::is_digits(digits)) lib_versions.push_back("3." + digits.substr(1));
          }
        }
      }
      return dirs;
    }
    const std::string lib = paths::join(prefix, "lib");
    if (const auto entries = system_.list_dir(lib)) {
      for (const auto& entry : *entries) {
        auto v = python::lib_dir_version(entry.name);
        if (!v || entry.kind != sys::FileKind::directory) continue;
        // The version whose interpreter exists comes first.
        const bool has_interpreter = system_.exists(paths::join(prefix, "bin/python" + *v));
        lib_versions.insert(has_interpreter ? lib_versions.begin() : lib_versions.end(), *v);
      }
    }
    for (const auto& v : lib_versions) {
      if (kind == "system") {
        // Debian's interpreter: /usr/local/lib/pythonX.Y/dist-packages, then
        // /usr/lib/python3/dist-packages, then /usr/lib/pythonX.Y/dist-packages.
        add_dir("/usr/local/lib/python" + v + "/dist-packages");
        add_dir(paths::join(prefix, "lib/python3/dist-packages"));
        add_dir(paths::join(prefix, "lib/python" + v + "/dist-packages"));
      }
      add_dir(paths::join(prefix, "lib/python" + v + "/site-packages"));
      add_dir(paths::join(prefix, "lib64/python" + v + "/site-packages"));
    }
    return dirs;
  }

  std::vector<CondaPackageFact> read_conda_meta(const std::string& prefix,
                                                std::optional<std::string>& python_version) const {
    std::vector<CondaPackageFact> records;
    const std::string dir = paths::join(prefix, "conda-meta");
    const auto entries = system_.list_dir(dir);
    if (!entries) return records;
    for (const auto& entry : *entries) {
      auto parsed = python::parse_conda_record_name(entry.name);
      if (!parsed) continue;
      if (parsed->name == "python") python_version = parsed->version;
      if (!catalog_.conda.count(parsed->name)) continue;
      CondaPackageFact record{parsed->name, parsed->version, parsed->build, std::nullopt};
      if (const auto head = system_.read_head(paths::join(dir, entry.name), 4096)) {
        record.channel = python::conda_channel(*head);
      }
      records.push_back(std::move(record));
    }
    return records;
  }

  void scan_site(const std::string& site, std::vector<Distribution>& dists, int& count) const {
    const auto entries = system_.list_dir(site);
    if (!entries) return;
    for (const auto& entry : *entries) {
      const auto parsed = python::parse_dist_dir_name(entry.name);
      if (!parsed) continue;
      ++count;
      Distribution d{python::normalize_name(parsed->id.name), parsed->id.version, site};
      if (catalog_.interesting(d.name)) {
        // The headers are the authority; the directory name is what older tools wrote.
        const std::string path = paths::join(site, entry.name);
        const std::string metadata =
            entry.kind == sys::FileKind::directory
                ? paths::join(path,
                              parsed->kind == python::DistKind::dist_info ? "METADATA" : "PKG-INFO")
                : path;
        if (const auto head = system_.read_head(metadata, 8192)) {
          if (auto nv = python::parse_core_metadata(*head)) {
            d.name = python::normalize_name(nv->name);
            d.version = nv->version;
          }
        }
      }
      dists.push_back(std::move(d));
    }
  }

  void collect_wheels(const std::vector<Distribution>& dists, PythonEnvFact& env) const {
    for (const auto& d : dists) {
      const auto it = catalog_.wheels.find(d.name);
      if (it == catalog_.wheels.end()) continue;
      NvidiaWheelFact w{d.name, d.version, it->second.component, it->second.cuda_major,
                        std::nullopt};
      if (!it->second.lib_dir.empty()) {
        const std::string dir = paths::join(d.site, it->second.lib_dir);
        if (system_.is_directory(dir)) w.lib_dir = dir;
      }
      env.nvidia_wheels.push_back(std::move(w));
    }
  }

  // ---- Triton's C compiler ---------------------------------------------------------------------

  // Where Triton's sources build its launcher: backends/nvidia/driver.py (3.x), common/build.py
  // (2.1, 2.2), compiler.py (2.0). The first found tells.
  std::optional<bool> links_lcuda(const std::string& site) const {
    for (const char* file :
         {"triton/backends/nvidia/driver.py", "triton/common/build.py", "triton/compiler.py"}) {
      const auto text = system_.read_text(paths::join(site, file));
      if (!text) continue;
      for (const char* spelling :
           {"libraries = ['cuda']", "libraries = [\"cuda\"]", "'-lcuda'", "\"-lcuda\""}) {
        if (text->find(spelling) != std::string::npos) return true;
      }
      return false;
    }
    return std::nullopt;
  }

  void collect_triton(const std::vector<Distribution>& dists, PythonEnvFact& env) const {
    const auto it = std::find_if(dists.begin(), dists.end(), [](const Distribution& d) {
      return d.name == "triton" || d.name == "pytorch-triton" || d.name == "triton-windows";
    });
    if (it == dists.end()) return;
    TritonFact t{it->name, it->version, std::nullopt, std::nullopt, std::nullopt};
    t.links_lcuda = links_lcuda(it->site);
    if (const auto cc = system_.env("CC"); cc && !cc->empty()) {
      t.c_compiler = command_program(system_, facts_, *cc);
      if (!t.c_compiler) t.cc = *cc;
      env.triton = std::move(t);
      return;
    }
    std::vector<std::string> names = {"gcc", "clang"};
    if (windows_) {
      const std::string tcc = paths::join(it->site, "triton/runtime/tcc/tcc.exe");
      if (is_program(system_, tcc)) t.c_compiler = tcc;
      names.insert(names.begin(), "cl");
    }
    for (const auto& name : names) {
      if (t.c_compiler) break;
      t.c_compiler = command_program(system_, facts_, name);
    }
    env.triton = std::move(t);
  }

  // ---- framework builds -----------------------------------------------------------------------

  // What the distribution's name says, for builds whose files say nothing.
  static void apply_name(const PackageInfo& info, FrameworkFact& f) {
    if (info.build.empty()) return;
    f.gpu_build = info.build == "gpu";
    if (!info.cuda.empty()) f.cuda = info.cuda;
    f.declared_by = "package name";
  }

  FrameworkFact pip_framework(const Distribution& d, const PackageInfo& info,
                              const PythonEnvFact& env) const {
    FrameworkFact f;
    f.name = info.family;
    f.package = d.name;
    f.version = d.version;
    f.installer = "pip";
    f.location = d.site;
    apply_name(info, f);
    const frameworks::Framework* framework = frameworks::find(info.family);
    if (framework && framework->read_installed) {
      framework->read_installed({system_, env, d.site, d.name, d.version, info.role}, f);
    }
    return f;
  }

  void collect_frameworks(const std::vector<Distribution>& dists, PythonEnvFact& env) const {
    std::set<std::string> families;
    std::set<std::string> plugin_families;
    for (const auto& d : dists) {
      const auto info = catalog_.pip_package(d.name);
      if (!info || (info->role != "build" && info->role != "plugin")) continue;
      // jax-cudaNN-pjrt travels with its -plugin; the plugin stands for both.
      if (d.name.ends_with("-pjrt") &&
          std::any_of(dists.begin(), dists.end(), [&](const Distribution& other) {
            return other.name == d.name.substr(0, d.name.size() - 5) + "-plugin";
          })) {
        continue;
      }
      if (info->role == "plugin") plugin_families.insert(info->family);
      families.insert(info->family);
      env.frameworks.push_back(pip_framework(d, *info, env));
    }
    // With a GPU plugin installed, the family's own build (jaxlib) is not what runs on the GPU.
    std::erase_if(env.frameworks, [&](const FrameworkFact& f) {
      const frameworks::Framework* framework = frameworks::of(f);
      const auto info = catalog_.pip_package(f.package);
      return framework && framework->plugin_replaces_build && plugin_families.count(f.name) &&
             info && info->role == "build";
    });
    // Conda builds with no pip record of their family (older conda packages wrote none).
    for (const auto& record : env.conda_packages) {
      const auto& info = catalog_.conda.at(record.name);
      if (info.role != "build" || families.count(info.family)) continue;
      families.insert(info.family);
      FrameworkFact f = conda_framework(record, info);
      // The build's own files, where conda put them, say more than the build string.
      const frameworks::Framework* framework = frameworks::of(f);
      if (framework && framework->conda_reads_files && framework->read_installed) {
        for (const auto& site : env.site_packages) {
          if (f.declared_by != "conda build string") break;
          framework->read_installed({system_, env, site, record.name, record.version, "build"}, f);
        }
      }
      env.frameworks.push_back(std::move(f));
    }
  }

  FrameworkFact conda_framework(const CondaPackageFact& record, const PackageInfo& info) const {
    FrameworkFact f;
    f.name = info.family;
    f.package = record.name;
    f.version = record.version;
    f.installer = "conda";
    f.location = "conda-meta";
    apply_name(info, f);
    // Build strings: pytorch "py3.10_cuda11.8_cudnn8.7.0_0" / "py3.10_cpu_0", conda-forge
    // "cuda118_py310h..." / "cpu_py310h...", tensorflow-base "gpu_py37h..." / "mkl_py37h...".
    for (const auto& part : text::split(record.build, '_')) {
      if (part == "cpu" || part == "mkl" || part == "eigen") f.gpu_build = false;
      if (part == "gpu") f.gpu_build = true;
      if (part.starts_with("cudnn")) f.cudnn = python::major_minor(part.substr(5));
      if (part.starts_with("cuda")) {
        const std::string digits = part.substr(4);
        if (digits.find('.') != std::string::npos) {
          f.cuda = python::major_minor(digits);
        } else if (auto cuda = python::cuda_from_cu_tag("cu" + digits.substr(0, 3))) {
          f.cuda = cuda;
        }
        f.gpu_build = true;
      }
    }
    f.declared_by = "conda build string";
    return f;
  }

  // ---- the CUDA libraries an environment brings -----------------------------------------------

  bool has_cudnn_at(const std::string& location) const {
    return std::any_of(facts_.cudnn.begin(), facts_.cudnn.end(),
                       [&](const CudnnFact& c) { return c.location == location; });
  }

  void add_conda_libraries(const PythonEnvFact& env) {
    for (const auto& record : env.conda_packages) {
      const auto& info = catalog_.conda.at(record.name);
      if (info.role == "cuda_runtime") {
        CudaToolkitFact t;
        t.version = record.version;
        t.version_source = "conda-meta";
        t.root = env.path;
        t.source = "conda";
        facts_.cuda_toolkits.push_back(std::move(t));
      } else if (info.role == "cudnn") {
        const std::string lib = paths::join(env.path, "lib");
        if (has_cudnn_at(lib)) continue;
        CudnnFact c;
        c.version = record.version;
        c.location = lib;
        c.source = "conda";
        facts_.cudnn.push_back(std::move(c));
      }
    }
  }

  void add_wheel_libraries(const PythonEnvFact& env) {
    if (const auto* runtime = frameworks::wheel(env, "cudart"); runtime && runtime->lib_dir) {
      CudaToolkitFact t;
      t.version = runtime->version;
      t.version_source = "dist-info";
      t.root = paths::parent(*runtime->lib_dir);
      t.source = "pip";
      for (const auto& w : env.nvidia_wheels) {
        if (w.cuda_major == runtime->cuda_major && w.lib_dir && w.component != "cudnn" &&
            w.component != "nccl" && w.component != "cusparselt") {
          t.libraries.push_back(w.component);
        }
      }
      facts_.cuda_toolkits.push_back(std::move(t));
    }
    if (const auto* cudnn = frameworks::wheel(env, "cudnn"); cudnn && cudnn->lib_dir) {
      if (has_cudnn_at(*cudnn->lib_dir)) return;
      CudnnFact c;
      c.version = version::prefix(cudnn->version, 3);  // 8.9.2.26 -> 8.9.2
      c.location = *cudnn->lib_dir;
      c.source = "pip";
      facts_.cudnn.push_back(std::move(c));
    }
  }

  void mark_active() {
    // What `python` runs: the first interpreter on PATH; without one, the activated environment.
    std::optional<std::string> active = active_;
    for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
      if (active) break;
      if (const auto v = system_.env(variable); v && !v->empty() && paths::is_absolute(*v)) {
        active = environment_key(system_, paths::normalize(*v), windows_);
      }
    }
    if (!active) return;
    for (auto& env : facts_.python_envs) {
      if (environment_key(system_, env.path, windows_) == *active) env.active = true;
    }
  }

  const sys::System& system_;
  Catalog catalog_;
  Facts& facts_;
  bool windows_ = false;
  std::optional<std::string> active_;
  FrameworkLibraries libraries_;
  std::set<std::string> seen_;
};

}  // namespace

void probe_python_envs(const sys::System& system, const kb::Kb& kb, Facts& facts) {
  PythonProbe(system, kb, facts).run();
}

}  // namespace gpuvet::probes
