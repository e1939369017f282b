#include "resolve/windows_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <variant>

#include "core/text.hpp"

namespace gpuvet::resolve {

namespace {

constexpr const char* kSessionManager = "HKLM/SYSTEM/CurrentControlSet/Control/Session Manager";

// Windows paths as the System gives and takes them: '/' separators, no trailing one.
std::string normal(std::string path) {
  std::replace(path.begin(), path.end(), '\\', '/');
  while (path.size() > 3 && path.back() == '/')
    path.pop_back();
  return path;
}

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string lower(std::string_view s) {
  return text::to_lower(s);
}

bool is_absolute(const std::string& path) {
  return (path.size() > 2 && path[1] == ':') || path.starts_with("//");
}

// %SystemRoot%\System32 in a PATH entry, expanded from the environment.
std::string expand(const sys::System& system, const std::string& entry) {
  std::string out;
  for (size_t i = 0; i < entry.size(); ++i) {
    const size_t close = entry[i] == '%' ? entry.find('%', i + 1) : std::string::npos;
    if (close == std::string::npos) {
      out.push_back(entry[i]);
      continue;
    }
    const auto value = system.env(entry.substr(i + 1, close - i - 1));
    out += value ? *value : entry.substr(i, close - i + 1);
    i = close;
  }
  return out;
}

std::string windows_dir(const sys::System& system) {
  for (const char* name : {"SystemRoot", "windir", "SYSTEMROOT", "WINDIR"}) {
    if (auto value = system.env(name); value && !value->empty()) return normal(*value);
  }
  return "C:/Windows";
}

bool is_known_dll(const sys::System& system, const std::string& name) {
  const auto values = system.registry_values(std::string(kSessionManager) + "/KnownDLLs");
  if (!values) return false;
  for (const auto& [key, value] : *values) {
    if (const auto* text = std::get_if<std::string>(&value); text && lower(*text) == lower(name)) {
      return true;
    }
  }
  return false;
}

bool safe_search_mode(const sys::System& system) {
  const auto values = system.registry_values(kSessionManager);
  if (!values) return true;
  const auto it = values->find("SafeDllSearchMode");
  if (it == values->end()) return true;
  const auto* number = std::get_if<std::int64_t>(&it->second);
  return !number || *number != 0;
}

// The folder of the process's .exe: --from itself when it is one, otherwise the Python
// environment an extension module belongs to (the folder above it that holds python.exe).
std::optional<std::string> application_dir(const sys::System& system, const std::string& from) {
  if (lower(from).ends_with(".exe")) return parent_of(from);
  for (std::string dir = parent_of(from); dir.size() > 3; dir = parent_of(dir)) {
    if (auto info = system.file_info(dir + "/python.exe");
        info && info->kind == sys::FileKind::regular) {
      return dir;
    }
  }
  return std::nullopt;
}

// python38.dll, python310.dll ... beside python.exe: the version of that Python.
std::optional<std::pair<int, int>> python_version_in(const sys::System& system,
                                                     const std::string& dir) {
  const auto entries = system.list_dir(dir);
  if (!entries) return std::nullopt;
  for (const auto& e : *entries) {
    const std::string name = lower(e.name);
    if (!name.starts_with("python3") || !name.ends_with(".dll") || name.size() < 12) continue;
    const std::string digits = name.substr(7, name.size() - 11);  // "python3" .. ".dll"
    if (!text::is_digits(digits) || digits.empty()) continue;
    return std::make_pair(3, std::stoi(digits));
  }
  return std::nullopt;
}

struct Place {
  Source source;
  std::optional<std::string> dir;  // nullopt: unknown (an application folder gpuvet cannot see)
  std::optional<std::string> entry;
};

class Search {
 public:
  Search(const sys::System& system, const std::string& name) : system_(system), name_(name) {}

  // Until the library is found each place is a step; after that, a place only adds the copy it
  // holds to those the found one shadows.
  void look(const Place& place, Resolution& r) {
    if (r.resolved) {
      if (place.dir) shadowed_copy(place, *place.dir + "/" + name_, r);
      return;
    }
    Step step;
    step.source = place.source;
    step.entry = place.entry;
    if (!place.dir) {
      step.where = "?";
      step.skipped = Skip::app_unknown;
      r.steps.push_back(std::move(step));
      return;
    }
    step.where = *place.dir;
    const std::string path = *place.dir + "/" + name_;
    step.path = path;
    if (!is_file(path)) {
      const auto dir = system_.file_info(*place.dir);
      step.skipped =
          dir && dir->kind == sys::FileKind::directory ? Skip::no_file : Skip::no_directory;
      r.steps.push_back(std::move(step));
      return;
    }
    step.found = true;
    r.steps.push_back(std::move(step));
    r.resolved = path;
    r.version = version_of(path);
    seen_.insert(lower(path));
  }

 private:
  bool is_file(const std::string& path) const {
    const auto info = system_.file_info(path);
    return info && info->kind == sys::FileKind::regular;
  }
  std::optional<std::string> version_of(const std::string& path) const {
    auto pe = system_.pe_version(path);
    if (!pe) return std::nullopt;
    return pe->file_version ? pe->file_version : pe->product_version;
  }
  void shadowed_copy(const Place& place, const std::string& path, Resolution& r) {
    if (!is_file(path) || !seen_.insert(lower(path)).second) return;
    r.shadowed.push_back({path, version_of(path), place.source, std::nullopt});
  }

  const sys::System& system_;
  std::string name_;
  std::set<std::string> seen_;
};

Resolution resolve_one(const sys::System& system, const std::string& raw_name,
                       const std::vector<Place>& places) {
  Resolution r;
  r.name = raw_name;
  const std::string name = normal(raw_name);
  if (name.find('/') != std::string::npos) {
    Step step;
    step.source = Source::path;
    step.where = parent_of(name);
    step.path = name;
    const auto info = system.file_info(name);
    step.found = info && info->kind == sys::FileKind::regular;
    if (!step.found) step.skipped = Skip::no_file;
    r.steps.push_back(step);
    if (step.found) r.resolved = name;
  } else {
    Search search(system, name);
    if (is_known_dll(system, name)) {
      search.look({Source::known_dlls, windows_dir(system) + "/System32", std::nullopt}, r);
    }
    for (const auto& place : places)
      search.look(place, r);
  }
  if (!r.resolved) {
    r.error = "LoadLibrary: the specified module could not be found (error 126)";
  }
  return r;
}

}  // namespace

WhichReport which_windows(const sys::System& system, const WhichRequest& request) {
  WhichReport report;
  report.windows = true;
  report.from = request.from;
  const std::string windows = windows_dir(system);
  const std::optional<std::string> from =
      request.from ? std::optional<std::string>(normal(*request.from)) : std::nullopt;
  std::optional<std::string> app = from ? application_dir(system, *from) : std::nullopt;
  bool python38 = false;
  if (from && !lower(*from).ends_with(".exe") && app) {
    const auto python = python_version_in(system, *app);
    python38 = python && python->second >= 8;
  }
  report.windows_mode = python38 ? "python38" : "standard";

  std::vector<Place> places;
  if (python38) {
    places.push_back({Source::dll_load_dir, parent_of(*from), std::nullopt});
    places.push_back({Source::app_dir, app, std::nullopt});
    places.push_back({Source::system32, windows + "/System32", std::nullopt});
    for (const auto& dir : request.dll_directories) {
      places.push_back({Source::dll_directory, normal(dir), std::nullopt});
    }
  } else {
    const auto cwd = system.host().cwd;
    const Place current{Source::current_dir,
                        cwd ? std::optional<std::string>(normal(*cwd)) : std::nullopt,
                        std::nullopt};
    const bool safe = safe_search_mode(system);
    places.push_back({Source::app_dir, from ? app : std::nullopt, std::nullopt});
    if (!safe) places.push_back(current);
    places.push_back({Source::system32, windows + "/System32", std::nullopt});
    places.push_back({Source::system16, windows + "/System", std::nullopt});
    places.push_back({Source::windows_dir, windows, std::nullopt});
    if (safe) places.push_back(current);
    for (const auto& raw : text::split(system.env("PATH").value_or(""), ';')) {
      const std::string entry(text::trim(raw));
      if (entry.empty()) continue;
      std::string dir = windows_path_entry(system, entry);
      if (!is_absolute(dir) && cwd) dir = normal(*cwd) + "/" + dir;
      places.push_back(
          {Source::path_env, dir, entry != dir ? std::optional<std::string>(entry) : std::nullopt});
    }
  }
  // Without --from, the application folder is the one of a program gpuvet does not know.
  if (!from && !python38) places.erase(places.begin());
  for (const auto& name : request.names)
    report.results.push_back(resolve_one(system, name, places));
  return report;
}

std::string windows_path_entry(const sys::System& system, const std::string& entry) {
  return normal(expand(system, std::string(text::trim(entry))));
}

}  // namespace gpuvet::resolve
