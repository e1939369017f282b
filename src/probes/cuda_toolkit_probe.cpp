// The CUDA toolkit probe: every toolkit install on the machine, each once at its real directory,
// with its version and where the version came from, how the toolkit was found, and what it holds.
// Nothing is run (no `nvcc --version`): everything comes from files read through the System.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "probes/probes.hpp"
#include "system/real_path.hpp"

namespace gpuvet::probes {

namespace {

// How a row of the candidate table finds toolkit roots.
enum class Find {
  env,           // the variable names a root
  nvcc_on_path,  // each `where` program in a PATH directory: <root>/bin/<program>
  directory,     // the directory itself (a link to one counts)
  children,      // the entries of the directory whose names start with `prefix`
  env_family,    // every variable whose name starts with `where` (CUDA_PATH_V10_1 ...)
  registry,      // the subkeys of a registry key, each with the root in value `prefix`
};

struct CandidateRow {
  std::string_view os;  // "linux" | "windows"
  Find find;
  std::string_view where;  // a variable, a program or a directory
  std::string_view prefix;
  std::string_view source;  // CudaToolkitFact::source when this row finds the toolkit first
};

// In priority order: when several rows find one toolkit, the first row's source is kept
// (a variable the user set > nvcc on PATH > a well-known folder).
constexpr CandidateRow kCandidates[] = {
    // Set by users, Dockerfiles (NVIDIA's cuda images set CUDA_HOME), build scripts.
    {"linux", Find::env, "CUDA_HOME", "", "CUDA_HOME"},
    {"linux", Find::env, "CUDA_PATH", "", "CUDA_PATH"},
    {"linux", Find::env, "CUDA_ROOT", "", "CUDA_ROOT"},
    // What compiles: every nvcc on PATH, in PATH order.
    {"linux", Find::nvcc_on_path, "nvcc", "", "path"},
    // NVIDIA's runfile, .deb and .rpm installs: the link the last install (or
    // update-alternatives) points at, then each /usr/local/cuda-X.Y.
    {"linux", Find::directory, "/usr/local/cuda", "", "default-location"},
    {"linux", Find::children, "/usr/local", "cuda-", "default-location"},
    // Arch Linux's cuda package.
    {"linux", Find::directory, "/opt/cuda", "", "default-location"},
    // Debian/Ubuntu's nvidia-cuda-toolkit: version.txt and links into /usr; nvcc in /usr/bin.
    {"linux", Find::directory, "/usr/lib/cuda", "", "default-location"},
    // Windows: the installer sets CUDA_PATH (the last installed) and CUDA_PATH_V<major>_<minor>
    // per toolkit, writes HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\v<X.Y>
    // (InstallDir) and installs into the default folder; nvcc.exe on Path is what compiles.
    {"windows", Find::env, "CUDA_PATH", "", "CUDA_PATH"},
    {"windows", Find::env_family, "CUDA_PATH_V", "", "CUDA_PATH"},
    {"windows", Find::nvcc_on_path, "nvcc.exe", "", "path"},
    {"windows", Find::registry, "HKLM/SOFTWARE/NVIDIA Corporation/GPU Computing Toolkit/CUDA",
     "InstallDir", "registry"},
    {"windows", Find::children, "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA", "v",
     "default-location"},
};

// A distribution package that spreads a toolkit over /usr: nvcc in <from>/bin, the toolkit's
// own directory at <to>. A root found as <from> is the toolkit at <to>.
struct RootAlias {
  std::string_view os;
  std::string_view from;
  std::string_view to;
};

constexpr RootAlias kAliases[] = {
    // Debian/Ubuntu nvidia-cuda-toolkit: /usr/bin/nvcc, /usr/lib/cuda/version.txt.
    {"linux", "/usr", "/usr/lib/cuda"},
};

// The libraries reported per toolkit, in this order.
constexpr std::string_view kLibraries[] = {"cudart",   "cublas",   "cublasLt", "cufft",    "curand",
                                           "cusolver", "cusparse", "nvrtc",    "nvJitLink"};

// Wheels whose dist-info says which toolkit pip assembled, most telling first: the CUDA 13
// metapackage carries the toolkit's own version, the others their component's.
constexpr std::string_view kToolkitWheels[] = {"cuda_toolkit", "nvidia_cuda_runtime",
                                               "nvidia_cuda_nvcc"};

struct Candidate {
  std::string root;  // resolved
  std::string source;
  bool from_path = false;
};

struct Inspector {
  const sys::System& system;
  bool windows = false;
  std::string os;

  std::string key(const std::string& path) const { return paths::comparison_key(path, windows); }
  bool is_file(const std::string& path) const {
    const auto info = system.file_info(path);
    return info && info->kind == sys::FileKind::regular;
  }

  // The real root of a candidate path, aliases applied.
  std::string real_root(const std::string& path) const {
    std::string root = sys::real_path(system, path);
    for (const auto& alias : kAliases) {
      if (alias.os == os && key(root) == key(std::string(alias.from)) &&
          system.is_directory(std::string(alias.to))) {
        root = sys::real_path(system, alias.to);
      }
    }
    return root;
  }

  // The alias whose toolkit directory this root is, if any.
  const RootAlias* alias_of(const std::string& root) const {
    for (const auto& alias : kAliases) {
      if (alias.os == os && key(root) == key(sys::real_path(system, alias.to))) return &alias;
    }
    return nullptr;
  }

  std::vector<std::string> bin_dirs(const std::string& root) const {
    std::vector<std::string> dirs = {paths::join(root, "bin")};
    if (const RootAlias* alias = alias_of(root)) dirs.push_back(paths::join(alias->from, "bin"));
    for (auto& dir : dirs)
      dir = sys::real_path(system, dir);
    return dirs;
  }

  // lib64, lib and targets/<triple>/lib, each real directory once; on Windows the DLLs are in
  // bin (bin/x64 from CUDA 13).
  std::vector<std::string> lib_dirs(const std::string& root) const {
    std::vector<std::string> candidates = {paths::join(root, "lib64"), paths::join(root, "lib")};
    if (windows) candidates = {paths::join(root, "bin"), paths::join(root, "bin/x64")};
    if (const auto targets = system.list_dir(paths::join(root, "targets"))) {
      for (const auto& entry : *targets) {
        if (entry.kind == sys::FileKind::directory) {
          candidates.push_back(
              paths::join(paths::join(paths::join(root, "targets"), entry.name), "lib"));
        }
      }
    }
    std::vector<std::string> dirs;
    std::set<std::string> seen;
    for (const auto& candidate : candidates) {
      if (!system.is_directory(candidate)) continue;
      std::string real = sys::real_path(system, candidate);
      if (seen.insert(key(real)).second) dirs.push_back(std::move(real));
    }
    return dirs;
  }

  std::vector<std::string> libraries(const std::vector<std::string>& dirs) const {
    std::set<std::string_view> present;
    for (const auto& dir : dirs) {
      const auto entries = system.list_dir(dir);
      if (!entries) continue;
      for (const auto& entry : *entries) {
        if (entry.kind != sys::FileKind::regular) continue;
        if (windows) {
          // cudart64_101.dll, cublas64_10.dll, cublasLt64_11.dll, nvJitLink_120_0.dll.
          const std::string lower = text::to_lower(entry.name);
          for (const auto name : kLibraries) {
            const std::string stem = text::to_lower(name);
            if (lower.ends_with(".dll") &&
                (lower.starts_with(stem + "64_") || lower.starts_with(stem + "_"))) {
              present.insert(name);
            }
          }
          continue;
        }
        for (const auto name : kLibraries) {
          // lib<name>.so, lib<name>.so.13 ...; libcublasLt.so is not libcublas.so.
          const std::string stem = "lib" + std::string(name) + ".so";
          if (entry.name == stem || entry.name.starts_with(stem + ".")) present.insert(name);
        }
      }
    }
    std::vector<std::string> out;
    for (const auto name : kLibraries) {
      if (present.contains(name)) out.emplace_back(name);
    }
    return out;
  }

  // The pip wheels' dist-info directories that assembled this toolkit, if any: the most telling
  // of kToolkitWheels, or the one wheel named.
  std::optional<std::string> wheel_version(const std::string& root,
                                           std::string_view only = {}) const {
    const auto entries = system.list_dir(paths::join(root, "dist-info"));
    if (!entries) return std::nullopt;
    for (const auto wheel : kToolkitWheels) {
      if (!only.empty() && wheel != only) continue;
      for (const auto& entry : *entries) {
        if (auto version = dist_info_version(entry.name, wheel)) return version;
      }
    }
    return std::nullopt;
  }

  struct Version {
    std::string value;
    std::string source;
  };

  // What a toolkit's own files say of its versions, read once: the toolkit's, and its compiler's
  // (nvcc and ptxas ship in one component, cuda_nvcc, and print its version).
  struct FileVersions {
    std::optional<Version> toolkit;
    std::optional<std::string> compiler;
  };

  FileVersions file_versions(const std::string& root,
                             const std::optional<std::string>& wheel) const {
    FileVersions out;
    // version.json (CUDA 11.1 and later): {"cuda": {"name": ..., "version": "12.2.2"},
    // "cuda_nvcc": {"name": "CUDA NVCC", "version": "12.2.140"}, ...}
    if (const auto text = system.read_text(paths::join(root, "version.json"))) {
      const auto doc = nlohmann::json::parse(*text, nullptr, false);
      if (!doc.is_discarded() && doc.is_object()) {
        const auto component = [&doc](const char* name) -> std::optional<std::string> {
          const auto it = doc.find(name);
          if (it == doc.end() || !it->is_object()) return std::nullopt;
          const auto v = it->find("version");
          if (v == it->end() || !v->is_string()) return std::nullopt;
          return v->get<std::string>();
        };
        if (auto v = component("cuda")) out.toolkit = Version{*v, "version.json"};
        out.compiler = component("cuda_nvcc");
      }
    }
    if (!out.toolkit) out.toolkit = version_txt(root);
    if (!out.toolkit && wheel) out.toolkit = Version{*wheel, "dist-info"};
    if (!out.compiler) out.compiler = wheel_version(root, "nvidia_cuda_nvcc");
    return out;
  }

  // version.txt (up to 11.0, and Debian's /usr/lib/cuda): "CUDA Version 10.1.243".
  std::optional<Version> version_txt(const std::string& root) const {
    const auto text = system.read_text(paths::join(root, "version.txt"));
    if (!text) return std::nullopt;
    for (const auto& raw : text::split(*text, '\n')) {
      const std::string_view line = text::trim(raw);
      constexpr std::string_view kPrefix = "CUDA Version ";
      if (!line.starts_with(kPrefix)) continue;
      const std::string_view rest = text::trim(line.substr(kPrefix.size()));
      const std::string value(rest.substr(0, rest.find_first_of(" \t")));
      if (!value.empty()) return Version{value, "version.txt"};
    }
    return std::nullopt;
  }

  // Without a version file: the compiler's word, then cuda.h's major.minor.
  std::optional<Version> version_without_files(const std::string& root) const {
    if (auto compiler = tool_version(paths::join(root, windows ? "bin/nvcc.exe" : "bin/nvcc"))) {
      return Version{*compiler, "nvcc"};
    }
    // cuda.h knows only major.minor: #define CUDA_VERSION 12020 is 12.2.
    if (const auto text = system.read_text(paths::join(root, "include/cuda.h"))) {
      if (const auto v = header_define(*text, "CUDA_VERSION"); v && *v > 0) {
        return Version{std::to_string(*v / 1000) + "." + std::to_string((*v % 1000) / 10),
                       "cuda.h"};
      }
    }
    return std::nullopt;
  }

  // "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0.88" from `TOOL --version`.
  std::optional<std::string> tool_version(const std::string& tool) const {
    if (!is_file(tool)) return std::nullopt;
    const auto run = system.run_program(tool, {"--version"});
    if (!run || run->exit_code != 0) return std::nullopt;
    for (const auto& raw : text::split(run->output, '\n')) {
      const size_t v = raw.rfind(", V");
      if (raw.find("release") == std::string::npos || v == std::string::npos) continue;
      const std::string version(text::trim(std::string_view(raw).substr(v + 3)));
      if (!version.empty() && text::is_digits(version.substr(0, 1))) return version;
    }
    return std::nullopt;
  }

  std::optional<CudaToolkitFact> inspect(const Candidate& candidate,
                                         const std::set<std::string>& path_dirs) const {
    const std::string& root = candidate.root;
    if (!system.is_directory(root)) return std::nullopt;
    CudaToolkitFact fact;
    fact.root = root;
    const auto bins = bin_dirs(root);
    const auto wheel = wheel_version(root);
    const FileVersions files = file_versions(root, wheel);
    fact.libraries = libraries(lib_dirs(root));
    bool nvcc = false;
    for (const auto& bin : bins) {
      nvcc = nvcc || is_file(paths::join(bin, windows ? "nvcc.exe" : "nvcc"));
      fact.ptxas = fact.ptxas || is_file(paths::join(bin, windows ? "ptxas.exe" : "ptxas"));
      fact.on_path = fact.on_path || path_dirs.contains(key(bin));
    }
    const bool has_cuda_h = is_file(paths::join(root, "include/cuda.h"));
    const bool has_cudart =
        std::find(fact.libraries.begin(), fact.libraries.end(), "cudart") != fact.libraries.end();
    // A directory is a toolkit only with a toolkit's marks: a bin/nvcc alone may be a wrapper
    // script (/usr/local/bin/nvcc running /usr/local/cuda-13.0/bin/nvcc) in a plain prefix.
    // A package's toolkit directory with its nvcc (Debian's /usr/lib/cuda + /usr/bin/nvcc) is one.
    // nvcc --version names a compiler's version, not a toolkit: it does not mark one, and is
    // asked only of a directory already marked.
    const bool marked = files.toolkit || wheel || has_cuda_h;
    if (!marked && !(nvcc && (has_cudart || alias_of(root)))) return std::nullopt;
    const auto found = files.toolkit ? files.toolkit : version_without_files(root);
    if (found) {
      fact.version = found->value;
      fact.version_source = found->source;
    }
    fact.on_path = fact.on_path || candidate.from_path;
    fact.libdevice = is_file(paths::join(root, "nvvm/libdevice/libdevice.10.bc"));
    // The toolkit's own ptxas prints its cuda_nvcc component's version; another bin (a
    // distribution's /usr/bin) is asked.
    const std::string own_bin = sys::real_path(system, paths::join(root, "bin"));
    for (const auto& bin : bins) {
      if (fact.ptxas_version) break;
      const std::string ptxas = paths::join(bin, windows ? "ptxas.exe" : "ptxas");
      if (bin == own_bin && files.compiler && is_file(ptxas)) {
        fact.ptxas_version = files.compiler;
      } else {
        fact.ptxas_version = tool_version(ptxas);
      }
    }
    fact.source = candidate.source;
    if (fact.source == "default-location" && wheel) fact.source = "pip";
    return fact;
  }
};

std::vector<std::string> search_path(const sys::System& system, bool windows) {
  const auto value = system.env(windows ? "Path" : "PATH");
  if (!value || value->empty()) return {};
  std::vector<std::string> dirs;
  for (auto& dir : text::split(*value, windows ? ';' : ':')) {
    // An empty entry means the current directory, which says nothing about the machine.
    if (!dir.empty() && paths::is_absolute(dir)) dirs.push_back(paths::normalize(dir));
  }
  return dirs;
}

}  // namespace

std::optional<long> header_define(std::string_view text, std::string_view name) {
  for (const auto& raw : text::split(text, '\n')) {
    std::string_view line = text::trim(raw);
    if (!line.starts_with('#')) continue;
    line = text::trim(line.substr(1));
    if (!line.starts_with("define")) continue;
    line = line.substr(6);
    if (line.empty() || (line.front() != ' ' && line.front() != '\t')) continue;
    line = text::trim(line);
    if (!line.starts_with(name)) continue;
    line = line.substr(name.size());
    if (line.empty() || (line.front() != ' ' && line.front() != '\t')) continue;
    line = text::trim(line);
    const std::string_view value = line.substr(0, line.find_first_of(" \t/"));
    // Digits only, and few enough of them to fit.
    if (text::is_digits(value) && value.size() <= 9) return std::stol(std::string(value));
  }
  return std::nullopt;
}

std::optional<std::string> dist_info_version(std::string_view directory_name,
                                             std::string_view package) {
  constexpr std::string_view kSuffix = ".dist-info";
  if (!directory_name.ends_with(kSuffix)) return std::nullopt;
  const std::string_view stem = directory_name.substr(0, directory_name.size() - kSuffix.size());
  const size_t dash = stem.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const std::string_view name = stem.substr(0, dash);
  if (!text::starts_with_icase(name, package)) return std::nullopt;
  const std::string_view rest = name.substr(package.size());
  // The CUDA 11 and 12 wheels carry the major as a suffix: nvidia_cuda_runtime_cu12.
  if (!rest.empty() && !(text::starts_with_icase(rest, "_cu") && text::is_digits(rest.substr(3)))) {
    return std::nullopt;
  }
  std::vector<std::string> kept;
  for (const auto& part : text::split(stem.substr(dash + 1), '.')) {
    if (!text::is_digits(part) || kept.size() == 3) break;
    kept.push_back(part);
  }
  if (kept.empty()) return std::nullopt;
  return text::join(kept, ".");
}

// The nvcc a shell would run is the first on PATH; its toolkit is the one that compiles.
void mark_compiler(const sys::System& system, const Inspector& inspector,
                   const std::vector<std::string>& path, Facts& facts) {
  for (const auto& dir : path) {
    const std::string program = paths::join(dir, inspector.windows ? "nvcc.exe" : "nvcc");
    if (!inspector.is_file(program)) continue;
    const std::string real = sys::real_path(system, program);
    facts.nvcc = real;
    const std::string root = inspector.key(paths::parent(paths::parent(real)));
    for (auto& toolkit : facts.cuda_toolkits) {
      toolkit.compiles = inspector.key(toolkit.root) == root;
    }
    return;
  }
}

void probe_cuda_toolkits(const sys::System& system, const kb::Kb& /*kb*/, Facts& facts) {
  const std::string os = facts.os.family.empty() ? system.host().os : facts.os.family;
  const bool windows = os == "windows";
  const Inspector inspector{system, windows, os};
  const auto path = search_path(system, windows);

  std::vector<Candidate> candidates;
  const auto add = [&](const std::string& given, const CandidateRow& row, bool from_path) {
    const std::string raw = paths::normalize(given);
    if (!paths::is_absolute(raw) || !system.is_directory(raw)) return;
    candidates.push_back(Candidate{inspector.real_root(raw), std::string(row.source), from_path});
  };
  for (const auto& row : kCandidates) {
    if (row.os != os) continue;
    switch (row.find) {
      case Find::env:
        if (const auto value = system.env(row.where); value && !value->empty())
          add(*value, row, false);
        break;
      case Find::nvcc_on_path:
        for (const auto& dir : path) {
          const std::string program = paths::join(dir, row.where);
          if (!inspector.is_file(program)) continue;
          // <root>/bin/nvcc, after following the links to the program itself.
          add(paths::parent(paths::parent(sys::real_path(system, program))), row, true);
        }
        break;
      case Find::directory:
        add(std::string(row.where), row, false);
        break;
      case Find::env_family:
        for (const auto& [name, value] : system.environment()) {
          if (text::starts_with_icase(name, row.where) && !value.empty()) add(value, row, false);
        }
        break;
      case Find::registry:
        for (const auto& subkey : system.registry_subkeys(std::string(row.where))) {
          const auto values = system.registry_values(std::string(row.where) + "/" + subkey);
          if (!values) continue;
          for (const auto& [name, value] : *values) {
            const auto* dir = std::get_if<std::string>(&value);
            if (dir && text::to_lower(name) == text::to_lower(row.prefix)) add(*dir, row, false);
          }
        }
        break;
      case Find::children:
        if (const auto entries = system.list_dir(std::string(row.where))) {
          for (const auto& entry : *entries) {
            if (entry.kind == sys::FileKind::directory && entry.name.starts_with(row.prefix)) {
              add(paths::join(row.where, entry.name), row, false);
            }
          }
        }
        break;
    }
  }

  std::set<std::string> path_dirs;
  for (const auto& dir : path)
    path_dirs.insert(inspector.key(sys::real_path(system, dir)));

  // One toolkit per real root; the first finder's source wins, any finder on PATH counts.
  std::vector<Candidate> unique;
  std::map<std::string, size_t> by_root;
  for (const auto& candidate : candidates) {
    const auto [it, inserted] = by_root.emplace(inspector.key(candidate.root), unique.size());
    if (inserted) {
      unique.push_back(candidate);
    } else {
      unique[it->second].from_path = unique[it->second].from_path || candidate.from_path;
    }
  }
  for (const auto& candidate : unique) {
    if (auto fact = inspector.inspect(candidate, path_dirs)) {
      facts.cuda_toolkits.push_back(std::move(*fact));
    }
  }
  mark_compiler(system, inspector, path, facts);
}

}  // namespace gpuvet::probes
