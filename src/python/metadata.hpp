#pragma once
// What installed Python packages and environments say about themselves in small text files:
// core metadata (METADATA, PKG-INFO), the names of *.dist-info / *.egg-info directories and of
// conda-meta records, pyvenv.cfg, patchlevel.h and .condarc. Pure functions over text: nothing
// here touches the machine, and no input makes them throw.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::python {

// PEP 503: lower case, every run of '-', '_' and '.' becomes one '-'. "Tensorflow_GPU" ->
// "tensorflow-gpu".
std::string normalize_name(std::string_view name);

struct NameVersion {
  std::string name;  // as written
  std::string version;
};

// The Name and Version fields of core metadata (RFC 822 headers up to the first blank line).
std::optional<NameVersion> parse_core_metadata(std::string_view text);

enum class DistKind { dist_info, egg_info };
struct DistDirName {
  NameVersion id;
  DistKind kind = DistKind::dist_info;
};
// "numpy-1.26.4.dist-info", "PyGObject-3.42.2.egg-info", "foo-1.0-py3.11.egg-info".
std::optional<DistDirName> parse_dist_dir_name(std::string_view entry);
// "<name>-<version>" as a dist-info stem or pip's "Successfully installed" words write it.
std::optional<NameVersion> split_name_version(std::string_view stem);

struct CondaRecordName {
  std::string name;
  std::string version;
  std::string build;
};
// conda-meta/<name>-<version>-<build>.json; the name may hold dashes, version and build not.
std::optional<CondaRecordName> parse_conda_record_name(std::string_view file_name);
// The channel of a conda-meta record, from the beginning of the file ("channel" is written
// before the long file lists): "https://conda.anaconda.org/conda-forge/linux-64" ->
// "conda-forge", "pkgs/main/linux-64" -> "pkgs/main".
std::optional<std::string> conda_channel(std::string_view record_head);

// key = value lines (pyvenv.cfg); keys lower-cased and trimmed.
std::map<std::string, std::string> parse_cfg(std::string_view text);
// The Python version a pyvenv.cfg names: venv's `version`, virtualenv's `version_info`
// ("3.11.2.final.0" -> "3.11.2"), uv's `version_info`.
std::optional<std::string> pyvenv_python_version(const std::map<std::string, std::string>& cfg);
// `#define PY_VERSION "3.12.1"` in include/pythonX.Y/patchlevel.h.
std::optional<std::string> patchlevel_version(std::string_view header);
// "python3.11" -> "3.11", "python3.13t" -> "3.13"; nullopt for anything else.
std::optional<std::string> lib_dir_version(std::string_view directory_name);

// The envs_dirs list of a .condarc (YAML): block ("envs_dirs:\n  - a") or flow ("[a, b]").
std::vector<std::string> condarc_envs_dirs(std::string_view text);

// Major.minor of a dotted version ("12.1.105" -> "12.1"); a bare major stays as it is.
std::string major_minor(std::string_view version);

}  // namespace gpuvet::python
