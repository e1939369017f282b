#include "fix/owners.hpp"

#include <nlohmann/json.hpp>

#include "core/paths.hpp"
#include "core/text.hpp"

namespace gpuvet::fix {

namespace {

std::string file_name_of(const std::string& path) {
  return path.substr(path.find_last_of("/\\") + 1);
}

// '*' matches any run of characters; nothing else is special.
bool glob_matches(std::string_view pattern, std::string_view name) {
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

Result<std::optional<Owner>> protected_owner(const kb::Kb& kb, const std::string& path) {
  auto table = kb.table("fix_protected_files");
  if (!table) return table.error();
  const std::string name = text::to_lower(file_name_of(path));
  for (size_t row = 0; row < (*table)->size(); ++row) {
    if (glob_matches((*table)->cell(row, "name"), name)) {
      return std::optional<Owner>(
          Owner{(*table)->cell(row, "owner"), (*table)->cell(row, "instead"), ""});
    }
  }
  return std::optional<Owner>();
}

// merged /usr: dpkg may list /lib/x86_64-linux-gnu/x while the loader names /usr/lib/..., or
// the other way round.
std::vector<std::string> dpkg_spellings(const std::string& path) {
  std::vector<std::string> out = {path};
  for (const char* dir : {"/lib/", "/lib64/", "/bin/", "/sbin/"}) {
    if (path.starts_with(dir)) out.push_back("/usr" + path);
    if (path.starts_with(std::string("/usr") + dir)) out.push_back(path.substr(4));
  }
  return out;
}

std::optional<Owner> dpkg_owner(const sys::System& system, const std::string& path) {
  const std::string info = "/var/lib/dpkg/info";
  auto entries = system.list_dir(info);
  if (!entries) return std::nullopt;
  const auto spellings = dpkg_spellings(path);
  for (const auto& entry : *entries) {
    if (!entry.name.ends_with(".list")) continue;
    auto list = system.read_text(paths::join(info, entry.name));
    if (!list) continue;
    for (const auto& spelling : spellings) {
      const size_t at = list->find(spelling + "\n");
      if (at != std::string::npos && (at == 0 || (*list)[at - 1] == '\n')) {
        std::string package = entry.name.substr(0, entry.name.size() - 5);
        package = package.substr(0, package.find(':'));  // libfoo:amd64
        return Owner{"dpkg package " + package, "fix.instead.package_manager", package};
      }
    }
  }
  return std::nullopt;
}

std::optional<Owner> rpm_owner(const sys::System& system, const std::string& path) {
  if (!system.exists("/var/lib/rpm") && !system.exists("/usr/lib/sysimage/rpm"))
    return std::nullopt;
  const auto answer = system.run_program("rpm", {"-qf", "--queryformat", "%{NAME}", path});
  if (!answer || answer->exit_code != 0 || text::trim(answer->output).empty()) return std::nullopt;
  const std::string package(text::trim(answer->output));
  return Owner{"rpm package " + package, "fix.instead.package_manager", package};
}

// A prefix's conda-meta/*.json list the files each conda package installed, relative to it.
std::optional<Owner> conda_owner(const sys::System& system, const PythonEnvFact& env,
                                 const std::string& path, bool windows) {
  const std::string prefix_key = paths::comparison_key(env.path, windows) + "/";
  const std::string key = paths::comparison_key(path, windows);
  if (!key.starts_with(prefix_key)) return std::nullopt;
  const std::string relative = key.substr(prefix_key.size());
  const std::string meta = paths::join(env.path, "conda-meta");
  auto entries = system.list_dir(meta);
  if (!entries) return std::nullopt;
  for (const auto& entry : *entries) {
    if (!entry.name.ends_with(".json")) continue;
    auto bytes = system.read_text(paths::join(meta, entry.name));
    if (!bytes) continue;
    const auto record = nlohmann::json::parse(*bytes, nullptr, false);
    if (!record.is_object() || !record.contains("files") || !record["files"].is_array()) continue;
    for (const auto& file : record["files"]) {
      if (file.is_string() && paths::comparison_key(file.get<std::string>(), windows) == relative) {
        const std::string package = record.value("name", entry.name);
        return Owner{"conda package " + package, "fix.instead.conda", package};
      }
    }
  }
  return std::nullopt;
}

// A file inside site-packages belongs to the distribution whose RECORD lists it.
std::optional<Owner> pip_owner(const sys::System& system, const PythonEnvFact& env,
                               const std::string& path, bool windows) {
  const std::string key = paths::comparison_key(path, windows);
  for (const auto& site : env.site_packages) {
    const std::string site_key = paths::comparison_key(site, windows) + "/";
    if (!key.starts_with(site_key)) continue;
    const std::string relative = path.substr(site_key.size());
    auto entries = system.list_dir(site);
    if (!entries) continue;
    for (const auto& entry : *entries) {
      if (!entry.name.ends_with(".dist-info")) continue;
      auto record = system.read_text(paths::join(site, entry.name + "/RECORD"));
      if (!record) continue;
      for (const auto& line : text::split(*record, '\n')) {
        const std::string listed(line.substr(0, line.find(',')));
        if (paths::comparison_key(listed, windows) == paths::comparison_key(relative, windows)) {
          const std::string dist = entry.name.substr(0, entry.name.size() - 10);
          const std::string package = dist.substr(0, dist.find('-'));
          return Owner{"pip package " + package, "fix.instead.pip", package};
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

bool movable_from_windows_folder(const std::string& file_name) {
  const std::string name = text::to_lower(file_name);
  for (const char* pattern :
       {"cudart64_*.dll", "cudnn*64_*.dll", "cublas*64_*.dll", "cufft*64_*.dll", "curand64_*.dll",
        "cusolver*64_*.dll", "cusparse64_*.dll", "nvrtc64_*.dll", "zlibwapi.dll"}) {
    if (glob_matches(pattern, name)) return true;
  }
  return false;
}

Result<std::optional<Owner>> owner_of(const sys::System& system, const Facts& facts,
                                      const kb::Kb& kb, const std::string& path) {
  auto listed = protected_owner(kb, path);
  if (!listed || *listed) return listed;
  const bool windows = facts.os.family == "windows";
  for (const auto& env : facts.python_envs) {
    if (auto owner = conda_owner(system, env, path, windows)) return std::optional<Owner>(*owner);
    if (auto owner = pip_owner(system, env, path, windows)) return std::optional<Owner>(*owner);
  }
  if (windows) return std::optional<Owner>();
  if (auto owner = dpkg_owner(system, path)) return std::optional<Owner>(*owner);
  if (auto owner = rpm_owner(system, path)) return std::optional<Owner>(*owner);
  return std::optional<Owner>();
}

}  // namespace gpuvet::fix
