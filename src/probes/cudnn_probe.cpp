// The cuDNN probe: every copy of cuDNN, each once at its real directory, with the version its
// header and its library file name say (both kept, so a disagreement stays visible).
// Runs after the CUDA toolkit probe: toolkits are places where cuDNN gets copied.
#include <algorithm>
#include <map>
#include <set>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "probes/probes.hpp"
#include "system/real_path.hpp"

namespace gpuvet::probes {

namespace {

// Headers and libraries that belong together: a header describes the libraries beside it.
struct Group {
  std::vector<std::string> include_dirs;
  std::vector<std::string> lib_dirs;
  std::optional<std::string> dist_info_dir;  // pip wheels copied into a toolkit
};

// The distribution's own directories, in the loader's default order: Debian/Ubuntu's libcudnn8
// and NVIDIA's cudnn9-cuda-* packages (lib/<triplet>, headers in include/<triplet> with
// alternatives links in /usr/include), RPM distributions (lib64), hand copies (/usr/lib).
constexpr std::string_view kSystemLibDirs[] = {
    "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
    "/lib/x86_64-linux-gnu",     "/lib/aarch64-linux-gnu",
};
constexpr std::string_view kSystemIncludeDirs[] = {
    "/usr/include",
    "/usr/include/x86_64-linux-gnu",
    "/usr/include/aarch64-linux-gnu",
};
// `make install` and hand copies.
constexpr std::string_view kLocalLibDirs[] = {"/usr/local/lib"};
constexpr std::string_view kLocalIncludeDirs[] = {"/usr/local/include"};

// Where the version is defined, first found wins: cudnn_version.h from 8.0 on, cudnn.h up to
// 7.x; the Debian packages' per-major files when the alternatives links are missing.
constexpr std::string_view kHeaders[] = {"cudnn_version.h", "cudnn.h", "cudnn_version_v9.h",
                                         "cudnn_version_v8.h"};

constexpr std::string_view kMainLibrary = "libcudnn.so.";

struct Header {
  std::string path;  // resolved
  std::string version;
};

// One libcudnn.so.<major> in a directory, and what sits beside it.
struct Copy {
  std::optional<std::string> full_version;  // from libcudnn.so.9.19.0
  std::set<std::string> libraries;          // split libraries of the same major
};

std::vector<std::string> numeric_parts(std::string_view dotted) {
  std::vector<std::string> parts = text::split(dotted, '.');
  for (const auto& part : parts) {
    if (!text::is_digits(part)) return {};
  }
  return parts;
}

// Windows: bin/cudnn64_<major>.dll, and the split cudnn_<part>64_<major>.dll beside it.
std::optional<int> windows_major(std::string_view lower_name, std::string_view prefix) {
  if (!lower_name.starts_with(prefix) || !lower_name.ends_with(".dll")) return std::nullopt;
  const std::string_view digits =
      lower_name.substr(prefix.size(), lower_name.size() - prefix.size() - 4);
  if (digits.empty() || digits.size() > 2 || !text::is_digits(digits)) return std::nullopt;
  return std::stoi(std::string(digits));
}

struct Prober {
  const sys::System& system;
  Facts& facts;
  bool windows = false;
  std::set<std::string> seen_lib_dirs;
  std::set<std::string> seen_headers;

  std::optional<Header> header(const Group& group) const {
    for (const auto name : kHeaders) {
      for (const auto& dir : group.include_dirs) {
        const std::string path = paths::join(dir, name);
        const auto text = system.read_text(path);
        if (!text) continue;
        const auto major = header_define(*text, "CUDNN_MAJOR");
        const auto minor = header_define(*text, "CUDNN_MINOR");
        const auto patch = header_define(*text, "CUDNN_PATCHLEVEL");
        // cudnn.h from 8.0 on only includes cudnn_version.h: no defines, keep looking.
        if (!major || !minor || !patch) continue;
        return Header{
            sys::real_path(system, path),
            std::to_string(*major) + "." + std::to_string(*minor) + "." + std::to_string(*patch)};
      }
    }
    return std::nullopt;
  }

  std::optional<std::string> wheel_version(const Group& group) const {
    if (!group.dist_info_dir) return std::nullopt;
    const auto entries = system.list_dir(*group.dist_info_dir);
    if (!entries) return std::nullopt;
    for (const auto& entry : *entries) {
      if (auto version = dist_info_version(entry.name, "nvidia_cudnn")) return version;
    }
    return std::nullopt;
  }

  // The copies in one directory, by major: libcudnn.so.8 and libcudnn.so.9 may sit together.
  std::map<int, Copy> copies(const std::string& dir) const {
    std::map<int, Copy> found;
    std::map<int, std::set<std::string>> split;
    const auto entries = system.list_dir(dir);
    if (!entries) return found;
    for (const auto& entry : *entries) {
      // A link's kind is its target's: a dangling link loads nothing.
      if (entry.kind != sys::FileKind::regular) continue;
      const std::string& name = entry.name;
      if (windows) {
        const std::string lower = text::to_lower(name);
        if (const auto major = windows_major(lower, "cudnn64_")) {
          found[*major];
        } else if (lower.starts_with("cudnn_")) {
          const size_t at = lower.rfind("64_");
          if (const auto split_major =
                  at == std::string::npos ? std::nullopt : windows_major(lower.substr(at), "64_")) {
            split[*split_major].insert(name.substr(0, at));
          }
        }
        continue;
      }
      if (name.starts_with(kMainLibrary)) {
        const auto parts = numeric_parts(std::string_view(name).substr(kMainLibrary.size()));
        if (parts.empty() || parts[0].size() > 4) continue;
        Copy& copy = found[std::stoi(parts[0])];
        if (parts.size() >= 2) {
          // libcudnn.so.9.19.0 (or .8.9.7.29): major.minor.patch.
          const std::vector<std::string> kept(parts.begin(),
                                              parts.begin() + std::min<size_t>(parts.size(), 3));
          const std::string version = text::join(kept, ".");
          if (!copy.full_version || version.size() > copy.full_version->size()) {
            copy.full_version = version;
          }
        }
      } else if (name.starts_with("libcudnn_")) {
        // The split libraries: libcudnn_ops.so.9, libcudnn_cnn_infer.so.8 ...
        const size_t so = name.find(".so.");
        if (so == std::string::npos) continue;
        const auto parts = numeric_parts(std::string_view(name).substr(so + 4));
        if (parts.empty() || parts[0].size() > 4) continue;
        split[std::stoi(parts[0])].insert(name.substr(3, so - 3));
      }
    }
    for (auto& [major, copy] : found) {
      if (const auto it = split.find(major); it != split.end()) copy.libraries = it->second;
    }
    return found;
  }

  void probe(const Group& group) {
    const auto found_header = header(group);
    const auto wheel = wheel_version(group);
    bool used_header = false;
    for (const auto& dir : group.lib_dirs) {
      if (!system.is_directory(dir)) continue;
      const std::string real = sys::real_path(system, dir);
      if (!seen_lib_dirs.insert(real).second) continue;
      for (const auto& [major, copy] : copies(real)) {
        CudnnFact fact;
        fact.location = real;
        fact.library_version = copy.full_version ? *copy.full_version : std::to_string(major);
        fact.libraries.assign(copy.libraries.begin(), copy.libraries.end());
        const std::string major_prefix = std::to_string(major) + ".";
        if (found_header) {
          fact.header_version = found_header->version;
          fact.version = found_header->version;
          fact.source = "header";
          used_header = true;
        } else if (copy.full_version) {
          fact.version = copy.full_version;
          fact.source = "library";
        } else if (wheel && wheel->starts_with(major_prefix)) {
          fact.version = wheel;
          fact.source = "dist-info";
        } else {
          fact.version = fact.library_version;
          fact.source = "library";
        }
        // The library's own word, from cudnnGetVersion() in the child process, when it loads.
        const std::string library =
            paths::join(real, windows ? "cudnn64_" + std::to_string(major) + ".dll"
                                      : "libcudnn.so." + std::to_string(major));
        if (const auto loaded = system.load(library); loaded && loaded->ok && loaded->version) {
          fact.loaded_version = loaded->version;
          if (!found_header) {
            fact.version = loaded->version;
            fact.source = "library";
          }
        }
        const auto& library_says = fact.loaded_version ? fact.loaded_version : fact.library_version;
        if (fact.header_version && library_says) {
          fact.header_library_agree = version::agree(*fact.header_version, *library_says);
        }
        facts.cudnn.push_back(std::move(fact));
      }
    }
    if (!found_header) return;
    // Headers without a library beside them are a copy too (enough to compile, not to run).
    if (!used_header && !seen_headers.contains(found_header->path)) {
      CudnnFact fact;
      fact.location = paths::parent(found_header->path);
      fact.version = found_header->version;
      fact.header_version = found_header->version;
      fact.source = "header";
      facts.cudnn.push_back(std::move(fact));
    }
    seen_headers.insert(found_header->path);
  }
};

std::vector<std::string> toolkit_subdirs(const sys::System& system, const std::string& root,
                                         std::string_view leaf) {
  // <root>/include | lib64 | lib, and targets/<triplet>/include | lib.
  std::vector<std::string> dirs;
  const std::string targets = paths::join(root, "targets");
  if (const auto entries = system.list_dir(targets)) {
    for (const auto& entry : *entries) {
      if (entry.kind == sys::FileKind::directory) {
        dirs.push_back(paths::join(paths::join(targets, entry.name), leaf));
      }
    }
  }
  return dirs;
}

}  // namespace

// Windows: cuDNN copied into a toolkit (bin, include), NVIDIA's standalone installer
// (C:/Program Files/NVIDIA/CUDNN/v<X.Y>/bin), and every directory on Path with the include
// directory beside it.
std::vector<Group> windows_groups(const sys::System& system, const Facts& facts) {
  std::vector<Group> groups;
  for (const auto& toolkit : facts.cuda_toolkits) {
    groups.push_back(Group{{paths::join(toolkit.root, "include")},
                           {paths::join(toolkit.root, "bin"), paths::join(toolkit.root, "bin/x64")},
                           std::nullopt});
  }
  const std::string standalone = "C:/Program Files/NVIDIA/CUDNN";
  if (const auto entries = system.list_dir(standalone)) {
    for (const auto& entry : *entries) {
      if (entry.kind != sys::FileKind::directory) continue;
      const std::string root = paths::join(standalone, entry.name);
      groups.push_back(
          Group{{paths::join(root, "include")}, {paths::join(root, "bin")}, std::nullopt});
    }
  }
  for (const auto& dir : facts.env.path) {
    if (!paths::is_absolute(dir)) continue;
    const std::string normalized = paths::normalize(dir);
    groups.push_back(
        Group{{paths::join(paths::parent(normalized), "include")}, {normalized}, std::nullopt});
  }
  return groups;
}

void probe_cudnn(const sys::System& system, const kb::Kb& /*kb*/, Facts& facts) {
  if (facts.os.family == "windows") {
    Prober prober{system, facts, true, {}, {}};
    for (const auto& group : windows_groups(system, facts))
      prober.probe(group);
    return;
  }
  std::vector<Group> groups;
  for (const auto& toolkit : facts.cuda_toolkits) {
    Group group;
    group.include_dirs = {paths::join(toolkit.root, "include")};
    for (auto& dir : toolkit_subdirs(system, toolkit.root, "include"))
      group.include_dirs.push_back(std::move(dir));
    group.lib_dirs = {paths::join(toolkit.root, "lib64"), paths::join(toolkit.root, "lib")};
    for (auto& dir : toolkit_subdirs(system, toolkit.root, "lib"))
      group.lib_dirs.push_back(std::move(dir));
    group.dist_info_dir = paths::join(toolkit.root, "dist-info");
    groups.push_back(std::move(group));
  }
  // LD_LIBRARY_PATH copies, with the headers of their prefix (<prefix>/lib -> <prefix>/include).
  if (const auto value = system.env("LD_LIBRARY_PATH")) {
    for (const auto& dir : text::split(*value, ':')) {
      if (dir.empty() || !paths::is_absolute(dir)) continue;
      groups.push_back(Group{{paths::join(paths::parent(paths::normalize(dir)), "include")},
                             {paths::normalize(dir)},
                             std::nullopt});
    }
  }
  groups.push_back(Group{{std::begin(kSystemIncludeDirs), std::end(kSystemIncludeDirs)},
                         {std::begin(kSystemLibDirs), std::end(kSystemLibDirs)},
                         std::nullopt});
  groups.push_back(Group{{std::begin(kLocalIncludeDirs), std::end(kLocalIncludeDirs)},
                         {std::begin(kLocalLibDirs), std::end(kLocalLibDirs)},
                         std::nullopt});
  // Copies only the loader cache knows about (ldconfig scanned a directory from ld.so.conf.d).
  for (const int major : {7, 8, 9, 10}) {
    const auto cached = system.ld_cache_lookup("libcudnn.so." + std::to_string(major));
    if (!cached) break;
    for (const auto& path : *cached) {
      const std::string dir = paths::parent(path);
      groups.push_back(Group{{paths::join(paths::parent(dir), "include")}, {dir}, std::nullopt});
    }
  }
  Prober prober{system, facts, false, {}, {}};
  for (const auto& group : groups)
    prober.probe(group);
}

}  // namespace gpuvet::probes
