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

#include "core/text.hpp"
#include "core/version.hpp"
#include "probes/probes.hpp"
#include "python/framework_files.hpp"
#include "python/metadata.hpp"
#include "resolve/which.hpp"
#include "resolve/windows_search.hpp"
#include "system/paths.hpp"
#include "system/real_path.hpp"

namespace gpuvet::probes {

namespace {

// How a row of the location table finds environment prefixes.
enum class Find {
  prefix,             // the path is a prefix (an environment or a conda install's base)
  conda_install,      // a conda/mamba install: its base, envs/*, and its .condarc envs_dirs
  children,           // every directory inside is a prefix
  list_file,          // a text file listing prefixes, one per line
  condarc,            // a .condarc whose envs_dirs hold prefixes
  pyenv_root,         // versions/* and versions/*/envs/* (pyenv-virtualenv)
  path_interpreters,  // the python interpreters in the PATH directories
  user_site,          // <where>/pythonX.Y/site-packages (PEP 370)
  registry_pep514,    // <where>/<company>/<tag>/InstallPath (PEP 514)
};

struct LocationRow {
  std::string_view os;
  Find find;
  // "~/" is HOME, "$NAME" a variable (the row is skipped when it is unset), "@cwd" the working
  // directory, "@exe2" the directory two levels above the variable's file (CONDA_EXE).
  std::string_view where;
  std::string_view kind;  // the environment kind when the prefix itself does not say
};

// In priority order: an environment found by several rows keeps the first row's name.
// Sources: docs/python.md lists each row's source.
constexpr LocationRow kLocations[] = {
    {"linux", Find::prefix, "$VIRTUAL_ENV", "venv"},
    {"linux", Find::prefix, "$CONDA_PREFIX", "conda"},
    {"linux", Find::path_interpreters, "", "python.org"},
    {"linux", Find::prefix, "@cwd/.venv", "venv"},
    {"linux", Find::conda_install, "@exe2:CONDA_EXE", "conda"},
    {"linux", Find::conda_install, "$MAMBA_ROOT_PREFIX", "conda"},
    {"linux", Find::list_file, "~/.conda/environments.txt", "conda"},
    {"linux", Find::condarc, "$CONDARC", "conda"},
    {"linux", Find::condarc, "~/.condarc", "conda"},
    {"linux", Find::condarc, "~/.config/conda/.condarc", "conda"},
    {"linux", Find::condarc, "~/.config/conda/condarc", "conda"},
    {"linux", Find::condarc, "~/.conda/.condarc", "conda"},
    {"linux", Find::condarc, "~/.conda/condarc", "conda"},
    {"linux", Find::condarc, "/etc/conda/.condarc", "conda"},
    {"linux", Find::condarc, "/etc/conda/condarc", "conda"},
    {"linux", Find::children, "~/.conda/envs", "conda"},
    {"linux", Find::conda_install, "~/miniconda3", "conda"},
    {"linux", Find::conda_install, "~/anaconda3", "conda"},
    {"linux", Find::conda_install, "~/miniforge3", "conda"},
    {"linux", Find::conda_install, "~/mambaforge", "conda"},
    {"linux", Find::conda_install, "~/micromamba", "conda"},
    {"linux", Find::conda_install, "~/miniconda", "conda"},
    {"linux", Find::conda_install, "~/anaconda", "conda"},
    {"linux", Find::conda_install, "/opt/conda", "conda"},
    {"linux", Find::conda_install, "/opt/miniconda3", "conda"},
    {"linux", Find::conda_install, "/opt/anaconda3", "conda"},
    {"linux", Find::conda_install, "/opt/miniforge3", "conda"},
    {"linux", Find::pyenv_root, "$PYENV_ROOT", "pyenv"},
    {"linux", Find::pyenv_root, "~/.pyenv", "pyenv"},
    {"linux", Find::children, "$PIPX_HOME/venvs", "venv"},
    {"linux", Find::children, "~/.local/share/pipx/venvs", "venv"},
    {"linux", Find::children, "~/.local/pipx/venvs", "venv"},
    {"linux", Find::prefix, "/usr", "system"},
    {"linux", Find::prefix, "/usr/local", "python.org"},
    {"linux", Find::user_site, "$PYTHONUSERBASE/lib", "user"},
    {"linux", Find::user_site, "~/.local/lib", "user"},
    // Windows. "~" is USERPROFILE. Installers' default folders: Anaconda/Miniconda/Miniforge
    // in the user profile (just me) or C:/ProgramData (all users); python.org's per-user
    // %LOCALAPPDATA%/Programs/Python/Python3X; PEP 514 registry keys for every registered
    // Python (https://peps.python.org/pep-0514/).
    {"windows", Find::prefix, "$VIRTUAL_ENV", "venv"},
    {"windows", Find::prefix, "$CONDA_PREFIX", "conda"},
    {"windows", Find::path_interpreters, "", "python.org"},
    {"windows", Find::prefix, "@cwd/.venv", "venv"},
    {"windows", Find::conda_install, "@exe2:CONDA_EXE", "conda"},
    {"windows", Find::list_file, "~/.conda/environments.txt", "conda"},
    {"windows", Find::condarc, "$CONDARC", "conda"},
    {"windows", Find::condarc, "~/.condarc", "conda"},
    {"windows", Find::children, "~/.conda/envs", "conda"},
    {"windows", Find::conda_install, "~/anaconda3", "conda"},
    {"windows", Find::conda_install, "~/miniconda3", "conda"},
    {"windows", Find::conda_install, "~/miniforge3", "conda"},
    {"windows", Find::conda_install, "C:/ProgramData/anaconda3", "conda"},
    {"windows", Find::conda_install, "C:/ProgramData/miniconda3", "conda"},
    {"windows", Find::registry_pep514, "HKCU/Software/Python", "python.org"},
    {"windows", Find::registry_pep514, "HKLM/SOFTWARE/Python", "python.org"},
    {"windows", Find::children, "$LOCALAPPDATA/Programs/Python", "python.org"},
    {"windows", Find::children, "$PIPX_HOME/venvs", "venv"},
};

// The shared object of a framework build that links the CUDA libraries, relative to
// site-packages: its DT_NEEDED entries and RPATH/RUNPATH say what the build loads and from where.
struct ModuleRow {
  std::string_view family;
  std::string_view path;
};
constexpr ModuleRow kModules[] = {
    // PyTorch's CUDA code and, for wheels that take CUDA from PyPI, the RPATHs into nvidia/*/lib
    // (pytorch/pytorch .ci/manywheel/build_cuda.sh; shared/reference/nvidia_pip_wheels.md §4).
    {"torch", "torch/lib/libtorch_cuda.so"},
    {"torch", "torch/lib/libtorch_global_deps.so"},
    {"tensorflow", "tensorflow/libtensorflow_framework.so.2"},
    {"tensorflow", "tensorflow_core/libtensorflow_framework.so.2"},
    // jax-cuda12-pjrt 0.4.30's RECORD (tests/fixtures/python/jax).
    {"jax", "jax_plugins/xla_cuda12/xla_cuda_plugin.so"},
};

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
  std::vector<std::pair<std::string, std::string>> cudart_sonames;  // CUDA major.minor -> soname
  std::map<std::string, std::string> cudnn_sonames;                 // cuDNN major -> soname
  std::vector<std::pair<std::string, std::string>> cudart_dlls;     // CUDA major.minor -> DLL
  std::map<std::string, std::string> cudnn_dlls;                    // cuDNN major -> DLL

  explicit Catalog(const kb::Kb& kb) {
    if (auto table = kb.table("library_names")) {
      const kb::Table& t = **table;
      for (size_t row = 0; row < t.size(); ++row) {
        if (t.cell(row, "library") == "cudart" && !t.cell(row, "linux_soname").empty()) {
          cudart_sonames.emplace_back(t.cell(row, "cuda"), t.cell(row, "linux_soname"));
        }
        if (t.cell(row, "library") == "cudart" && !t.cell(row, "windows_dll").empty()) {
          cudart_dlls.emplace_back(t.cell(row, "cuda"), t.cell(row, "windows_dll"));
        }
      }
    }
    if (auto table = kb.table("cudnn_releases")) {
      const kb::Table& t = **table;
      for (size_t row = 0; row < t.size(); ++row) {
        const std::string& soname = t.cell(row, "linux_soname");
        const std::string major = text::split(t.cell(row, "cudnn_from"), '.').front();
        if (!soname.empty()) cudnn_sonames[major] = soname;
        if (!t.cell(row, "windows_dll").empty()) cudnn_dlls[major] = t.cell(row, "windows_dll");
      }
    }
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

  // Known by name, or a CuPy wheel of a CUDA release the table does not list (cupy-cuda102).
  std::optional<PackageInfo> pip_package(const std::string& name) const {
    if (const auto it = pip.find(name); it != pip.end()) return it->second;
    if (name.starts_with("cupy-cuda")) {
      const std::string tag = name.substr(9);
      std::optional<std::string> cuda;
      if (tag.size() >= 3 && tag.back() == 'x' && text::is_digits(tag.substr(0, tag.size() - 1))) {
        cuda = tag.substr(0, tag.size() - 1);
      } else {
        cuda = python::cuda_from_cu_tag("cu" + tag);
      }
      if (cuda) return PackageInfo{"cupy", "build", "gpu", *cuda};
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

struct Candidate {
  std::string prefix;
  std::string kind;
  std::string found_by;
};

class PythonProbe {
 public:
  PythonProbe(const sys::System& system, const kb::Kb& kb, Facts& facts)
      : system_(system), catalog_(kb), facts_(facts) {
    windows_ = facts_.os.family == "windows";
    home_ = system_.env(windows_ ? "USERPROFILE" : "HOME");
    cwd_ = system_.host().cwd;
  }

  void run() {
    for (const auto& row : kLocations) {
      if (row.os != facts_.os.family) continue;
      find(row);
    }
    for (const auto& candidate : candidates_)
      inspect(candidate);
    mark_active();
  }

 private:
  // ---- discovery ------------------------------------------------------------------------------

  std::optional<std::string> expand(std::string_view where) const {
    if (where.starts_with("~/")) {
      if (!home_) return std::nullopt;
      return paths::join(*home_, where.substr(2));
    }
    if (where.starts_with("@cwd/")) {
      if (!cwd_) return std::nullopt;
      return paths::join(*cwd_, where.substr(5));
    }
    if (where.starts_with("@exe2:")) {
      const auto exe = system_.env(where.substr(6));
      if (!exe || exe->empty()) return std::nullopt;
      return paths::parent(paths::parent(paths::normalize(*exe)));
    }
    if (where.starts_with("$")) {
      const size_t slash = where.find('/');
      const auto value = system_.env(
          where.substr(1, slash == std::string_view::npos ? std::string_view::npos : slash - 1));
      if (!value || value->empty()) return std::nullopt;
      if (slash == std::string_view::npos) return paths::normalize(*value);
      return paths::join(*value, where.substr(slash + 1));
    }
    return std::string(where);
  }

  void add(const std::string& prefix, std::string_view kind, std::string_view found_by) {
    candidates_.push_back({paths::normalize(prefix), std::string(kind), std::string(found_by)});
  }

  void add_children(const std::string& dir, std::string_view kind, std::string_view found_by) {
    const auto entries = system_.list_dir(dir);
    if (!entries) return;
    for (const auto& entry : *entries) {
      if (entry.kind == sys::FileKind::directory && !entry.name.starts_with(".")) {
        add(paths::join(dir, entry.name), kind, found_by);
      }
    }
  }

  void add_condarc(const std::string& file, std::string_view found_by) {
    const auto text = system_.read_text(file);
    if (!text) return;
    for (const auto& dir : python::condarc_envs_dirs(*text)) {
      if (auto expanded = expand(dir); expanded && paths::is_absolute(*expanded)) {
        add_children(*expanded, "conda", found_by);
      }
    }
  }

  void find(const LocationRow& row) {
    const std::string name = row.where.empty() ? "PATH" : std::string(row.where);
    if (row.find == Find::path_interpreters) {
      find_on_path(row);
      return;
    }
    const auto where = expand(row.where);
    if (!where) return;
    switch (row.find) {
      case Find::prefix:
        add(*where, row.kind, name);
        break;
      case Find::conda_install:
        if (!system_.is_directory(*where)) break;
        add(*where, row.kind, name);
        add_children(paths::join(*where, "envs"), row.kind, name);
        add_condarc(paths::join(*where, ".condarc"), name);
        break;
      case Find::children:
        add_children(*where, row.kind, name);
        break;
      case Find::list_file:
        if (const auto text = system_.read_text(*where)) {
          for (const auto& line : text::split(*text, '\n')) {
            const std::string_view prefix = text::trim(line);
            if (!prefix.empty() && paths::is_absolute(prefix)) {
              add(std::string(prefix), row.kind, name);
            }
          }
        }
        break;
      case Find::condarc:
        add_condarc(*where, name);
        break;
      case Find::pyenv_root: {
        const auto versions = system_.list_dir(paths::join(*where, "versions"));
        if (!versions) break;
        for (const auto& v : *versions) {
          if (v.kind != sys::FileKind::directory || v.is_link) continue;
          const std::string prefix = paths::join(paths::join(*where, "versions"), v.name);
          add(prefix, row.kind, name);
          add_children(paths::join(prefix, "envs"), "venv", name);
        }
        break;
      }
      case Find::user_site:
        if (const auto entries = system_.list_dir(*where)) {
          for (const auto& entry : *entries) {
            if (python::lib_dir_version(entry.name) &&
                system_.is_directory(
                    paths::join(paths::join(*where, entry.name), "site-packages"))) {
              add(paths::parent(*where), row.kind, name);
              break;
            }
          }
        }
        break;
      case Find::registry_pep514:
        // <company>/<tag>/InstallPath, its default value the prefix.
        for (const auto& company : system_.registry_subkeys(*where)) {
          const std::string company_key = *where + "/" + company;
          for (const auto& tag : system_.registry_subkeys(company_key)) {
            const auto values = system_.registry_values(company_key + "/" + tag + "/InstallPath");
            if (!values) continue;
            for (const auto& [name, value] : *values) {
              const auto* dir = std::get_if<std::string>(&value);
              if (dir && (name.empty() || name == "(Default)")) add(*dir, row.kind, name_of(row));
            }
          }
        }
        break;
      case Find::path_interpreters:
        break;
    }
  }

  static std::string name_of(const LocationRow& row) { return std::string(row.where); }

  // pyenv's shims run the version pyenv selects: PYENV_VERSION, a .python-version file in the
  // working directory or above, $PYENV_ROOT/version; "system" defers to the rest of PATH.
  std::optional<std::string> pyenv_selected(const std::string& root) const {
    auto first_word = [](std::string_view text) -> std::optional<std::string> {
      for (const auto& line : text::split(text, '\n')) {
        const std::string_view t = text::trim(line);
        if (t.empty() || t.front() == '#') continue;
        const size_t end = t.find_first_of(" \t:");
        return std::string(t.substr(0, end));
      }
      return std::nullopt;
    };
    if (const auto v = system_.env("PYENV_VERSION"); v && !v->empty()) return first_word(*v);
    if (cwd_) {
      for (std::string dir = *cwd_; !dir.empty();) {
        if (const auto text = system_.read_text(paths::join(dir, ".python-version"))) {
          return first_word(*text);
        }
        const std::string up = paths::parent(dir);
        if (up == dir) break;
        dir = up;
      }
    }
    if (const auto text = system_.read_text(paths::join(root, "version"))) return first_word(*text);
    return std::string("system");
  }

  bool is_pyenv_shims(const std::string& dir) const {
    return dir.ends_with("/shims") &&
           system_.is_directory(paths::join(paths::parent(dir), "versions"));
  }

  bool under_pyenv(const std::string& prefix) const {
    for (const char* root : {"$PYENV_ROOT", "~/.pyenv"}) {
      const auto dir = expand(root);
      if (dir && prefix.starts_with(sys::real_path(system_, *dir) + "/versions/")) return true;
    }
    return false;
  }

  // The prefix of an interpreter file: <prefix>/bin/python3.
  std::optional<std::string> interpreter_prefix(const std::string& file) const {
    const auto info = system_.file_info(file);
    if (!info || info->kind != sys::FileKind::regular) return std::nullopt;
    // A venv's interpreter is a link to its base interpreter; Python finds the venv by the
    // pyvenv.cfg beside the directory the link is in (PEP 405), before following the link.
    const std::string venv = paths::parent(paths::parent(file));
    if (paths::parent(file).ends_with("/bin") && system_.exists(paths::join(venv, "pyvenv.cfg"))) {
      return venv;
    }
    const std::string real = sys::real_path(system_, file);
    const std::string bin = paths::parent(real);
    if (!bin.ends_with("/bin")) return std::nullopt;
    return paths::parent(bin);
  }

  void find_on_path(const LocationRow& row) {
    for (const auto& dir : facts_.env.path) {
      if (!paths::is_absolute(dir)) continue;
      if (is_pyenv_shims(dir)) {
        const std::string root = paths::parent(dir);
        const auto selected = pyenv_selected(root);
        if (!selected || *selected == "system") continue;
        const std::string prefix = paths::join(paths::join(root, "versions"), *selected);
        if (!system_.is_directory(prefix)) continue;
        if (!active_) active_ = key(prefix);
        add(prefix, "pyenv", "PATH");
        continue;
      }
      const auto entries = system_.list_dir(dir);
      if (!entries) continue;
      if (windows_) {
        find_windows_interpreter(dir, *entries, row);
        continue;
      }
      for (const auto& entry : *entries) {
        if (entry.name != "python" && entry.name != "python3" &&
            !python::lib_dir_version(entry.name)) {
          continue;
        }
        const auto prefix = interpreter_prefix(paths::join(dir, entry.name));
        if (!prefix) continue;
        // `python` on a Debian system is python3 only when python-is-python3 is installed;
        // whichever name comes first in PATH order is what a user's `python3` runs.
        if (!active_ && (entry.name == "python3" || entry.name == "python")) {
          active_ = key(*prefix);
        }
        add(*prefix, *prefix == "/usr" ? "system" : row.kind, "PATH");
      }
    }
  }

  // Windows: python.exe sits in the prefix itself, or in a venv's Scripts directory.
  void find_windows_interpreter(const std::string& dir, const std::vector<sys::DirEntry>& entries,
                                const LocationRow& row) {
    for (const auto& entry : entries) {
      if (text::to_lower(entry.name) != "python.exe") continue;
      std::string prefix = paths::normalize(dir);
      if (text::to_lower(prefix).ends_with("/scripts") &&
          system_.exists(paths::join(paths::parent(prefix), "pyvenv.cfg"))) {
        prefix = paths::parent(prefix);
      }
      if (!active_) active_ = key(prefix);
      add(prefix, row.kind, "PATH");
    }
  }

  std::string key(const std::string& path) const {
    return paths::comparison_key(sys::real_path(system_, path), windows_);
  }

  // ---- one environment ------------------------------------------------------------------------

  struct PythonVersion {
    std::optional<std::string> value;
    std::optional<std::string> source;
  };

  void inspect(const Candidate& candidate) {
    if (!paths::is_absolute(candidate.prefix)) return;
    const std::string prefix = sys::real_path(system_, candidate.prefix);
    if (!seen_.insert(key(prefix)).second) return;
    if (!system_.is_directory(prefix)) return;

    PythonEnvFact env;
    env.path = prefix;
    env.found_by = candidate.found_by;
    const bool conda = system_.is_directory(paths::join(prefix, "conda-meta"));
    const auto cfg_text = system_.read_text(paths::join(prefix, "pyvenv.cfg"));
    env.kind = conda ? "conda" : cfg_text ? "venv" : under_pyenv(prefix) ? "pyenv" : candidate.kind;

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
    collect_frameworks(dists, env);
    for (auto& framework : env.frameworks) {
      resolve_framework_libraries(framework, env);
      find_libdevice(framework);
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

  // ---- framework builds -----------------------------------------------------------------------

  const NvidiaWheelFact* wheel(const PythonEnvFact& env, std::string_view component) const {
    for (const auto& w : env.nvidia_wheels) {
      if (w.component == component) return &w;
    }
    return nullptr;
  }

  void apply(const std::optional<python::BuildDeclaration>& d, FrameworkFact& f,
             std::string_view file) const {
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

  std::optional<python::BuildDeclaration> read_declaration(
      const std::string& file,
      std::optional<python::BuildDeclaration> (*parse)(std::string_view)) const {
    const auto text = system_.read_text(file);
    if (!text) return std::nullopt;
    return parse(*text);
  }

  // What the distribution's name says, for builds whose files say nothing.
  static void apply_name(const PackageInfo& info, FrameworkFact& f) {
    if (info.build.empty()) return;
    f.gpu_build = info.build == "gpu";
    if (!info.cuda.empty()) f.cuda = info.cuda;
    f.declared_by = "package name";
  }

  void torch_cudnn(const PythonEnvFact& env, const std::string& site, FrameworkFact& f) const {
    if (f.gpu_build != true) return;
    // Bundled libraries (libcudnn.so.8.9.2 or only libcudnn.so.9), else the cuDNN wheel the
    // build links against through its RPATH.
    if (const auto entries = system_.list_dir(paths::join(site, "torch/lib"))) {
      std::optional<std::string> best;
      for (const auto& entry : *entries) {
        if (!entry.name.starts_with("libcudnn")) continue;
        const size_t so = entry.name.find(".so.");
        if (so == std::string::npos) continue;
        const std::string version = entry.name.substr(so + 4);
        if (!best || version.size() > best->size()) best = version;
      }
      if (best) {
        f.cudnn = python::major_minor(*best);
        return;
      }
    }
    if (const auto* w = wheel(env, "cudnn")) f.cudnn = python::major_minor(w->version);
  }

  // TensorFlow 2.0 and 2.1 kept their modules in tensorflow_core/.
  void tensorflow_files(const std::string& site, FrameworkFact& f) const {
    for (const char* file : {"tensorflow/python/platform/build_info.py",
                             "tensorflow_core/python/platform/build_info.py"}) {
      const auto declared =
          read_declaration(paths::join(site, file), python::parse_tensorflow_build_info);
      if (!declared) continue;
      apply(declared, f, file);
      f.location = site;
      return;
    }
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
    const std::string label = python::local_version_label(d.version);
    if (info.family == "tensorflow") {
      tensorflow_files(d.site, f);
    } else if (info.family == "torch") {
      const auto declared =
          read_declaration(paths::join(d.site, "torch/version.py"), python::parse_torch_version);
      apply(declared, f, "torch/version.py");
      if (!declared)
        apply(python::parse_torch_version("__version__ = '" + d.version + "'"), f,
              "package version");
      torch_cudnn(env, d.site, f);
    } else if (info.family == "paddle") {
      apply(read_declaration(paths::join(d.site, "paddle/version/__init__.py"),
                             python::parse_paddle_version),
            f, "paddle/version/__init__.py");
      // paddlepaddle-gpu 2.5.2.post112: the CUDA 11.2 build.
      if (!f.cuda && d.version.find(".post") != std::string::npos) {
        f.cuda = python::cuda_from_cu_tag("cu" + d.version.substr(d.version.find(".post") + 5));
      }
    } else if (info.family == "cupy") {
      apply(read_declaration(paths::join(d.site, "cupy/.data/_wheel.json"),
                             python::parse_cupy_wheel_json),
            f, "cupy/.data/_wheel.json");
      if (!f.cuda && !info.cuda.empty()) f.cuda = info.cuda;
    } else if (info.family == "jax" && info.role == "build") {
      if (auto declared = python::parse_jaxlib_label(label)) {
        apply(declared, f, "package version");
      } else if (f.declared_by != "package name") {
        // A jaxlib without a CUDA label is the CPU build; CUDA comes from a plugin.
        f.gpu_build = false;
        f.declared_by = "package version";
      }
    }
    return f;
  }

  void collect_frameworks(const std::vector<Distribution>& dists, PythonEnvFact& env) const {
    std::set<std::string> families;
    bool jax_plugin = false;
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
      if (info->role == "plugin") jax_plugin = true;
      families.insert(info->family);
      env.frameworks.push_back(pip_framework(d, *info, env));
    }
    // With a CUDA plugin installed, jaxlib itself is not the build that runs on the GPU.
    if (jax_plugin) {
      std::erase_if(env.frameworks, [](const FrameworkFact& f) { return f.package == "jaxlib"; });
    }
    // Conda builds with no pip record of their family (older conda packages wrote none).
    for (const auto& record : env.conda_packages) {
      const auto& info = catalog_.conda.at(record.name);
      if (info.role != "build" || families.count(info.family)) continue;
      families.insert(info.family);
      FrameworkFact f = conda_framework(record, info);
      // The build's own files, where conda put them, say more than the build string.
      if (info.family == "tensorflow") {
        for (const auto& site : env.site_packages) {
          if (f.declared_by != "conda build string") break;
          tensorflow_files(site, f);
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

  // What the loader gives the build's module for each CUDA library it needs (DT_NEEDED), through
  // the module's own RPATH/RUNPATH, then LD_LIBRARY_PATH, the cache and the default directories.
  void resolve_framework_libraries(FrameworkFact& f, const PythonEnvFact& env) {
    if (windows_) {
      resolve_windows_libraries(f, env);
      return;
    }
    if (f.gpu_build != true || f.installer != "pip" || facts_.os.family != "linux") return;
    std::optional<resolve::Loader> loader;
    for (const auto& row : kModules) {
      if (row.family != f.name) continue;
      const std::string path = paths::join(f.location, row.path);
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
    if (f.name != "tensorflow") return;
    for (const auto& soname : tensorflow_sonames(f)) {
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
            library.version = resolve::version_from_file_name(
                paths::from_fs(paths::to_fs(*library.resolved).filename()));
            break;
          }
        }
      }
      f.libraries.push_back(std::move(library));
    }
  }

  // Windows: what LoadLibrary loads for a DLL name when python.exe of this environment asks
  // (TensorFlow loads its CUDA DLLs by name: the standard search, PATH included), from `which`.
  LibraryFact resolve_windows_dll(const std::string& name, const std::string& app_dir) {
    const auto report =
        resolve::which_windows(system_, {{name}, paths::join(app_dir, "python.exe"), {}});
    const resolve::Resolution& r = report.results.front();
    LibraryFact library;
    library.name = name;
    library.resolved = r.resolved;
    library.version = r.version;
    for (const auto& copy : r.shadowed)
      library.shadowed.push_back({copy.path, copy.version});
    if (!library.resolved) library.new_terminal = in_saved_path_only(name);
    return library;
  }

  // The file a new terminal would load: in a folder of the saved Path this PATH lacks.
  std::optional<std::string> in_saved_path_only(const std::string& name) const {
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
  void resolve_windows_libraries(FrameworkFact& f, const PythonEnvFact& env) {
    if (f.gpu_build != true || f.name != "tensorflow") return;
    std::vector<std::string> names;
    if (f.cuda) {
      for (const auto& [cuda, dll] : catalog_.cudart_dlls) {
        if (cuda == *f.cuda) names.push_back(dll);
      }
    }
    if (f.cudnn) {
      const auto it = catalog_.cudnn_dlls.find(text::split(*f.cudnn, '.').front());
      if (it != catalog_.cudnn_dlls.end()) names.push_back(it->second);
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

  // XLA's CUDA roots (tsl/platform/default/cuda_libdevice_path.cc, CandidateCudaRoots, and
  // XLA's GetLibdeviceDir): --xla_gpu_cuda_data_dir from XLA_FLAGS, the build's toolkit path
  // (/usr/local/cuda-X.Y for the official builds), /usr/local/cuda, then the pip wheel's
  // nvidia/cuda_nvcc beside the package; libdevice is <root>/nvvm/libdevice.
  void find_libdevice(FrameworkFact& f) {
    if (windows_ || f.gpu_build != true || (f.name != "tensorflow" && f.name != "jax")) return;
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

  LibraryFact resolve_library(const std::string& soname,
                              const std::optional<resolve::Loader>& loader) {
    if (!platform_) platform_ = resolve::detect_platform(system_);
    const resolve::Resolution r = resolve::resolve_name(system_, soname, loader, *platform_,
                                                        resolve::ElfHeaders::from_snapshot);
    LibraryFact library;
    library.name = soname;
    library.resolved = r.real_path ? r.real_path : r.resolved;
    library.version = r.version;
    for (const auto& copy : r.shadowed)
      library.shadowed.push_back({sys::real_path(system_, copy.path), copy.version});
    return library;
  }

  // libcudart's soname for the build's CUDA (data/library_names.csv) and libcudnn's for its
  // cuDNN major (data/cudnn_releases.csv).
  std::vector<std::string> tensorflow_sonames(const FrameworkFact& f) const {
    std::vector<std::string> names;
    if (f.cuda) {
      for (const auto& [cuda, soname] : catalog_.cudart_sonames) {
        if (cuda == *f.cuda) names.push_back(soname);
      }
    }
    if (f.cudnn) {
      const std::string major = text::split(*f.cudnn, '.').front();
      const auto it = catalog_.cudnn_sonames.find(major);
      if (it != catalog_.cudnn_sonames.end()) names.push_back(it->second);
    }
    return names;
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
    if (const auto* runtime = wheel(env, "cudart"); runtime && runtime->lib_dir) {
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
    if (const auto* cudnn = wheel(env, "cudnn"); cudnn && cudnn->lib_dir) {
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
        active = key(paths::normalize(*v));
      }
    }
    if (!active) return;
    for (auto& env : facts_.python_envs) {
      if (key(env.path) == *active) env.active = true;
    }
  }

  const sys::System& system_;
  Catalog catalog_;
  Facts& facts_;
  bool windows_ = false;
  std::optional<std::string> home_;
  std::optional<std::string> cwd_;
  std::optional<std::string> active_;
  std::optional<resolve::Platform> platform_;
  std::vector<Candidate> candidates_;
  std::set<std::string> seen_;
};

}  // namespace

void probe_python_envs(const sys::System& system, const kb::Kb& kb, Facts& facts) {
  PythonProbe(system, kb, facts).run();
}

}  // namespace gpuvet::probes
