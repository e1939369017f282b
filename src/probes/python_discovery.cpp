// Where Python environments are: one table of locations, tried in order (docs/python.md lists
// each row's source). Only directories are listed and small files read; nothing is run.
#include "probes/python_discovery.hpp"

#include "core/paths.hpp"
#include "core/text.hpp"
#include "python/metadata.hpp"
#include "system/real_path.hpp"

namespace gpuvet::probes {

namespace {

// How a row of the location table finds environment prefixes.
enum class Find {
  prefix,             // the path is a prefix (an environment or a conda install's base)
  upward,             // <dir>/<name> for the directory and each of its parents
  conda_install,      // a conda/mamba install: its base, envs/*, and its .condarc envs_dirs
  children,           // every directory inside is a prefix
  children_list,      // a variable listing directories (path separator or ','): their children
  nested_venvs,       // directories holding pyvenv.cfg, up to kNestedDepth levels below
  list_file,          // a text file listing prefixes, one per line
  condarc,            // a .condarc whose envs_dirs hold prefixes
  pyenv_root,         // versions/* and versions/*/envs/* (pyenv-virtualenv)
  path_interpreters,  // the python interpreters in the PATH directories
  user_site,          // <where>/pythonX.Y/site-packages (PEP 370)
  registry_pep514,    // <where>/<company>/<tag>/InstallPath (PEP 514)
};

// Hatch keeps an environment at <data>/env/virtual/<project>/<hash>/<env> (older releases:
// <project>-<hash>/<env>); nested_venvs looks no deeper than that.
constexpr int kNestedDepth = 3;
// upward stops after this many directories even on an absurdly deep working directory.
constexpr int kUpwardLimit = 64;

struct LocationRow {
  std::string_view os;
  Find find;
  // "~/" is HOME, "~xdg-data/" $XDG_DATA_HOME (else ~/.local/share), "~xdg-cache/"
  // $XDG_CACHE_HOME (else ~/.cache), "$NAME" a variable (the row is skipped when it is unset),
  // "@cwd" the working directory, "@exe2" the directory two levels above the variable's file
  // (CONDA_EXE).
  std::string_view where;
  std::string_view kind;  // the environment kind when the prefix itself does not say
};

// In priority order: an environment found by several rows keeps the first row's name.
// Sources: docs/python.md lists each row's source.
constexpr LocationRow kLocations[] = {
    {"linux", Find::prefix, "$VIRTUAL_ENV", "venv"},
    {"linux", Find::prefix, "$CONDA_PREFIX", "conda"},
    {"linux", Find::path_interpreters, "", "python.org"},
    {"linux", Find::upward, "@cwd/.venv", "venv"},
    {"linux", Find::conda_install, "@exe2:CONDA_EXE", "conda"},
    {"linux", Find::conda_install, "$MAMBA_ROOT_PREFIX", "conda"},
    {"linux", Find::list_file, "~/.conda/environments.txt", "conda"},
    {"linux", Find::children_list, "$CONDA_ENVS_DIRS", "conda"},
    {"linux", Find::children_list, "$CONDA_ENVS_PATH", "conda"},
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
    {"linux", Find::conda_install, "~xdg-data/mamba", "conda"},
    {"linux", Find::conda_install, "~/miniconda", "conda"},
    {"linux", Find::conda_install, "~/anaconda", "conda"},
    {"linux", Find::conda_install, "/opt/conda", "conda"},
    {"linux", Find::conda_install, "/opt/miniconda3", "conda"},
    {"linux", Find::conda_install, "/opt/anaconda3", "conda"},
    {"linux", Find::conda_install, "/opt/miniforge3", "conda"},
    {"linux", Find::pyenv_root, "$PYENV_ROOT", "pyenv"},
    {"linux", Find::pyenv_root, "~/.pyenv", "pyenv"},
    {"linux", Find::children, "$PIPX_HOME/venvs", "venv"},
    {"linux", Find::children, "~xdg-data/pipx/venvs", "venv"},
    {"linux", Find::children, "~/.local/pipx/venvs", "venv"},
    {"linux", Find::children, "$PIPX_GLOBAL_HOME/venvs", "venv"},
    {"linux", Find::children, "/opt/pipx/venvs", "venv"},
    {"linux", Find::children, "$WORKON_HOME", "venv"},
    {"linux", Find::children, "~/.virtualenvs", "venv"},
    {"linux", Find::children, "~xdg-data/virtualenvs", "venv"},
    {"linux", Find::children, "$POETRY_VIRTUALENVS_PATH", "venv"},
    {"linux", Find::children, "$POETRY_CACHE_DIR/virtualenvs", "venv"},
    {"linux", Find::children, "~xdg-cache/pypoetry/virtualenvs", "venv"},
    {"linux", Find::nested_venvs, "$HATCH_DATA_DIR/env/virtual", "venv"},
    {"linux", Find::nested_venvs, "~xdg-data/hatch/env/virtual", "venv"},
    {"linux", Find::children, "~xdg-data/pdm/venvs", "venv"},
    {"linux", Find::children, "$UV_TOOL_DIR", "venv"},
    {"linux", Find::children, "~xdg-data/uv/tools", "venv"},
    {"linux", Find::children, "$UV_PYTHON_INSTALL_DIR", "uv"},
    {"linux", Find::children, "~xdg-data/uv/python", "uv"},
    {"linux", Find::prefix, "/usr", "system"},
    {"linux", Find::prefix, "/usr/local", "python.org"},
    {"linux", Find::user_site, "$PYTHONUSERBASE/lib", "user"},
    {"linux", Find::user_site, "~/.local/lib", "user"},
    // Windows. "~" is USERPROFILE. Installers' default folders: Anaconda/Miniconda/Miniforge
    // in the user profile (just me) or C:/ProgramData (all users); python.org's per-user
    // %LOCALAPPDATA%/Programs/Python/Python3X; PEP 514 registry keys for every registered
    // Python (https://peps.python.org/pep-0514/); the environment managers' folders in the
    // profile, %LOCALAPPDATA% and %APPDATA%. The Microsoft Store's Python has no row: its
    // WindowsApps alias is no prefix (docs/python.md).
    {"windows", Find::prefix, "$VIRTUAL_ENV", "venv"},
    {"windows", Find::prefix, "$CONDA_PREFIX", "conda"},
    {"windows", Find::path_interpreters, "", "python.org"},
    {"windows", Find::upward, "@cwd/.venv", "venv"},
    {"windows", Find::conda_install, "@exe2:CONDA_EXE", "conda"},
    {"windows", Find::conda_install, "$MAMBA_ROOT_PREFIX", "conda"},
    {"windows", Find::list_file, "~/.conda/environments.txt", "conda"},
    {"windows", Find::children_list, "$CONDA_ENVS_DIRS", "conda"},
    {"windows", Find::children_list, "$CONDA_ENVS_PATH", "conda"},
    {"windows", Find::condarc, "$CONDARC", "conda"},
    {"windows", Find::condarc, "~/.condarc", "conda"},
    {"windows", Find::children, "~/.conda/envs", "conda"},
    {"windows", Find::conda_install, "~/anaconda3", "conda"},
    {"windows", Find::conda_install, "~/miniconda3", "conda"},
    {"windows", Find::conda_install, "~/miniforge3", "conda"},
    {"windows", Find::conda_install, "~/mambaforge", "conda"},
    {"windows", Find::conda_install, "~/micromamba", "conda"},
    {"windows", Find::conda_install, "$APPDATA/mamba", "conda"},
    {"windows", Find::conda_install, "C:/ProgramData/anaconda3", "conda"},
    {"windows", Find::conda_install, "C:/ProgramData/miniconda3", "conda"},
    {"windows", Find::conda_install, "C:/ProgramData/miniforge3", "conda"},
    {"windows", Find::registry_pep514, "HKCU/Software/Python", "python.org"},
    {"windows", Find::registry_pep514, "HKLM/SOFTWARE/Python", "python.org"},
    {"windows", Find::children, "$LOCALAPPDATA/Programs/Python", "python.org"},
    {"windows", Find::children, "$PIPX_HOME/venvs", "venv"},
    {"windows", Find::children, "~/pipx/venvs", "venv"},
    {"windows", Find::children, "~/.local/pipx/venvs", "venv"},
    {"windows", Find::children, "$LOCALAPPDATA/pipx/pipx/venvs", "venv"},
    {"windows", Find::children, "$WORKON_HOME", "venv"},
    {"windows", Find::children, "~/Envs", "venv"},
    {"windows", Find::children, "~/.virtualenvs", "venv"},
    {"windows", Find::children, "$POETRY_VIRTUALENVS_PATH", "venv"},
    {"windows", Find::children, "$POETRY_CACHE_DIR/virtualenvs", "venv"},
    {"windows", Find::children, "$LOCALAPPDATA/pypoetry/Cache/virtualenvs", "venv"},
    {"windows", Find::nested_venvs, "$HATCH_DATA_DIR/env/virtual", "venv"},
    {"windows", Find::nested_venvs, "$LOCALAPPDATA/hatch/env/virtual", "venv"},
    {"windows", Find::children, "$LOCALAPPDATA/pdm/pdm/venvs", "venv"},
    {"windows", Find::children, "$UV_TOOL_DIR", "venv"},
    {"windows", Find::children, "$APPDATA/uv/tools", "venv"},
    {"windows", Find::children, "$APPDATA/uv/data/tools", "venv"},
    {"windows", Find::children, "$UV_PYTHON_INSTALL_DIR", "uv"},
    {"windows", Find::children, "$APPDATA/uv/python", "uv"},
    {"windows", Find::children, "$APPDATA/uv/data/python", "uv"},
};

class EnvironmentFinder {
 public:
  EnvironmentFinder(const sys::System& system, const Facts& facts)
      : system_(system), facts_(facts) {
    windows_ = facts_.os.family == "windows";
    home_ = system_.env(windows_ ? "USERPROFILE" : "HOME");
    cwd_ = system_.host().cwd;
  }

  EnvironmentSearch run() {
    for (const auto& row : kLocations) {
      if (row.os != facts_.os.family) continue;
      find(row);
    }
    return std::move(search_);
  }

 private:
  std::optional<std::string> expand(std::string_view where) const {
    if (where.starts_with("~/")) {
      if (!home_) return std::nullopt;
      return paths::join(*home_, where.substr(2));
    }
    if (where.starts_with("~xdg-data/")) {
      return xdg_dir("XDG_DATA_HOME", ".local/share", where.substr(10));
    }
    if (where.starts_with("~xdg-cache/")) {
      return xdg_dir("XDG_CACHE_HOME", ".cache", where.substr(11));
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

  // <$variable>/<rest>, or <HOME>/<fallback>/<rest> when the variable is unset, empty or not
  // absolute (the XDG Base Directory specification ignores relative values).
  std::optional<std::string> xdg_dir(std::string_view variable, std::string_view fallback,
                                     std::string_view rest) const {
    if (const auto value = system_.env(variable); value && paths::is_absolute(*value)) {
      return paths::join(*value, rest);
    }
    if (!home_) return std::nullopt;
    return paths::join(paths::join(*home_, fallback), rest);
  }

  void add(const std::string& prefix, std::string_view kind, std::string_view found_by) {
    search_.candidates.push_back(
        {paths::normalize(prefix), std::string(kind), std::string(found_by)});
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

  // The directories below dir that hold a pyvenv.cfg, looking at most `depth` levels down and
  // not inside an environment found.
  void add_nested_venvs(const std::string& dir, int depth, std::string_view kind,
                        std::string_view found_by) {
    const auto entries = system_.list_dir(dir);
    if (!entries) return;
    for (const auto& entry : *entries) {
      if (entry.kind != sys::FileKind::directory || entry.name.starts_with(".")) continue;
      const std::string child = paths::join(dir, entry.name);
      if (system_.exists(paths::join(child, "pyvenv.cfg"))) {
        add(child, kind, found_by);
      } else if (depth > 1) {
        add_nested_venvs(child, depth - 1, kind, found_by);
      }
    }
  }

  // A variable that lists directories, as conda reads CONDA_ENVS_DIRS (split on the path
  // separator) and mamba does (split on ','): the children of each.
  void add_children_list(const LocationRow& row, const std::string& name) {
    const auto value = system_.env(row.where.substr(1));
    if (!value) return;
    const char separator = windows_ ? ';' : ':';
    std::string item;
    auto flush = [&] {
      const std::string_view dir = text::trim(item);
      std::optional<std::string> expanded;
      if (dir.starts_with("~/")) {
        expanded = expand(dir);
      } else if (paths::is_absolute(dir)) {
        expanded = std::string(dir);
      }
      if (expanded) add_children(*expanded, row.kind, name);
      item.clear();
    };
    for (const char c : *value) {
      if (c == separator || c == ',') {
        flush();
      } else {
        item.push_back(c);
      }
    }
    flush();
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

  // <dir>/<name> for the directory and every parent: how uv (and Poetry, PDM) find a project's
  // .venv from a subdirectory of the project.
  void add_upward(const std::string& where, std::string_view kind, const std::string& name) {
    const std::string leaf = where.substr(where.rfind('/') + 1);
    std::string dir = paths::parent(where);
    for (int level = 0; level < kUpwardLimit && !dir.empty(); ++level) {
      add(paths::join(dir, leaf), kind, name);
      const std::string up = paths::parent(dir);
      if (up == dir) break;
      dir = up;
    }
  }

  void add_conda_install(const std::string& where, std::string_view kind, const std::string& name) {
    if (!system_.is_directory(where)) return;
    add(where, kind, name);
    add_children(paths::join(where, "envs"), kind, name);
    add_condarc(paths::join(where, ".condarc"), name);
  }

  void add_list_file(const std::string& where, std::string_view kind, const std::string& name) {
    const auto text = system_.read_text(where);
    if (!text) return;
    for (const auto& line : text::split(*text, '\n')) {
      const std::string_view prefix = text::trim(line);
      if (!prefix.empty() && paths::is_absolute(prefix)) add(std::string(prefix), kind, name);
    }
  }

  // versions/* and versions/*/envs/* (pyenv-virtualenv).
  void add_pyenv_root(const std::string& where, std::string_view kind, const std::string& name) {
    const auto versions = system_.list_dir(paths::join(where, "versions"));
    if (!versions) return;
    for (const auto& v : *versions) {
      if (v.kind != sys::FileKind::directory || v.is_link) continue;
      const std::string prefix = paths::join(paths::join(where, "versions"), v.name);
      add(prefix, kind, name);
      add_children(paths::join(prefix, "envs"), "venv", name);
    }
  }

  // <where>/pythonX.Y/site-packages (PEP 370): the user base is an environment of its own.
  void add_user_site(const std::string& where, std::string_view kind, const std::string& name) {
    const auto entries = system_.list_dir(where);
    if (!entries) return;
    for (const auto& entry : *entries) {
      if (python::lib_dir_version(entry.name) &&
          system_.is_directory(paths::join(paths::join(where, entry.name), "site-packages"))) {
        add(paths::parent(where), kind, name);
        return;
      }
    }
  }

  // <company>/<tag>/InstallPath, its default value the prefix (PEP 514).
  void add_registry_pep514(const std::string& where, std::string_view kind,
                           const std::string& name) {
    for (const auto& company : system_.registry_subkeys(where)) {
      const std::string company_key = where + "/" + company;
      for (const auto& tag : system_.registry_subkeys(company_key)) {
        const auto values = system_.registry_values(company_key + "/" + tag + "/InstallPath");
        if (!values) continue;
        for (const auto& [value_name, value] : *values) {
          const auto* dir = std::get_if<std::string>(&value);
          if (dir && (value_name.empty() || value_name == "(Default)")) add(*dir, kind, name);
        }
      }
    }
  }

  void find(const LocationRow& row) {
    const std::string name = row.where.empty() ? "PATH" : std::string(row.where);
    if (row.find == Find::path_interpreters) {
      find_on_path(row);
      return;
    }
    if (row.find == Find::children_list) {
      add_children_list(row, name);
      return;
    }
    const auto where = expand(row.where);
    if (!where) return;
    switch (row.find) {
      case Find::prefix:
        return add(*where, row.kind, name);
      case Find::conda_install:
        return add_conda_install(*where, row.kind, name);
      case Find::upward:
        return add_upward(*where, row.kind, name);
      case Find::children:
        return add_children(*where, row.kind, name);
      case Find::nested_venvs:
        return add_nested_venvs(*where, kNestedDepth, row.kind, name);
      case Find::list_file:
        return add_list_file(*where, row.kind, name);
      case Find::condarc:
        return add_condarc(*where, name);
      case Find::pyenv_root:
        return add_pyenv_root(*where, row.kind, name);
      case Find::user_site:
        return add_user_site(*where, row.kind, name);
      case Find::registry_pep514:
        return add_registry_pep514(*where, row.kind, name);
      case Find::path_interpreters:
      case Find::children_list:
        return;
    }
  }

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
        if (!search_.active_key) search_.active_key = environment_key(system_, prefix, windows_);
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
        if (!search_.active_key && (entry.name == "python3" || entry.name == "python")) {
          search_.active_key = environment_key(system_, *prefix, windows_);
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
      if (!search_.active_key) search_.active_key = environment_key(system_, prefix, windows_);
      add(prefix, row.kind, "PATH");
    }
  }

  const sys::System& system_;
  const Facts& facts_;
  bool windows_ = false;
  std::optional<std::string> home_;
  std::optional<std::string> cwd_;
  EnvironmentSearch search_;
};

}  // namespace

EnvironmentSearch find_python_environments(const sys::System& system, const Facts& facts) {
  return EnvironmentFinder(system, facts).run();
}

std::string environment_key(const sys::System& system, const std::string& path, bool windows) {
  return paths::comparison_key(sys::real_path(system, path), windows);
}

bool under_pyenv_root(const sys::System& system, const Facts& facts, const std::string& prefix) {
  const bool windows = facts.os.family == "windows";
  std::vector<std::string> roots;
  if (const auto root = system.env("PYENV_ROOT"); root && !root->empty()) {
    roots.push_back(paths::normalize(*root));
  }
  if (const auto home = system.env(windows ? "USERPROFILE" : "HOME")) {
    roots.push_back(paths::join(*home, ".pyenv"));
  }
  for (const auto& root : roots) {
    if (prefix.starts_with(sys::real_path(system, root) + "/versions/")) return true;
  }
  return false;
}

}  // namespace gpuvet::probes
