#include "resolve/which.hpp"
#include "resolve/windows_search.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kb/messages.hpp"
#include "resolve/search_list.hpp"
#include "system/real_path.hpp"

namespace gpuvet::resolve {

namespace {

// ld.so builds candidate names by plain concatenation: "" + name is the name in the current
// directory, "/" + name stays "/name".
std::string join_dir(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// The directory of an object as glibc's l_origin has it (elf/dl-object.c): the name it was
// opened by, up to its last '/', links not resolved; "/" for a file in the root.
std::string origin_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string shown_dir(const std::string& dir) {
  return dir.empty() ? "." : dir;
}

// What ld.so's open_verify makes of one candidate file.
struct Verdict {
  bool loads = false;
  Skip skip = Skip::none;
  std::optional<std::string> detail;
  std::optional<int> bits;
  std::optional<int> machine;
};

class Walk {
 public:
  Walk(const sys::System& system, const std::string& name, const std::optional<Loader>& loader,
       const Platform& platform, ElfHeaders headers)
      : system_(system), loader_(loader), platform_(platform), headers_(headers) {
    result_.name = name;
  }

  Resolution run();

 private:
  bool done() const { return stopped_ || result_.resolved.has_value(); }
  std::string on_disk(const std::string& path) const;
  bool is_directory(const std::string& path) const;
  TokenValues tokens(std::optional<std::string> origin) const;
  void search_path_name();
  void search_list(Source source, const std::vector<SearchEntry>& entries);
  void search_dir(Step place, const std::string& dir);
  void search_hwcaps(const Step& place, const std::string& dir);
  void search_cache();
  std::optional<std::string> pick_cache_path(const std::vector<std::string>& paths) const;
  Verdict verify(const std::string& path) const;
  Verdict check_elf(const std::string& path) const;
  void try_file(Step step);
  void add_copy(const Step& step);
  void finish();

  const sys::System& system_;
  const std::optional<Loader>& loader_;
  const Platform& platform_;
  ElfHeaders headers_;
  Resolution result_;
  bool stopped_ = false;
  bool other_class_ = false;
};

// The kernel resolves "dir/../x" after following dir's links; real_path does the same through the
// System, so that a snapshot (which records no "..") answers as the machine would.
std::string Walk::on_disk(const std::string& path) const {
  return sys::real_path(system_, path);
}

bool Walk::is_directory(const std::string& path) const {
  return system_.is_directory(on_disk(path));
}

TokenValues Walk::tokens(std::optional<std::string> origin) const {
  return TokenValues{std::move(origin), platform_.lib, platform_.platform};
}

Resolution Walk::run() {
  if (result_.name.find('/') != std::string::npos) {
    search_path_name();
    finish();
    return result_;
  }
  const bool has_runpath = loader_ && !loader_->elf.runpath.empty();
  if (loader_ && !has_runpath && !loader_->elf.rpath.empty()) {
    search_list(Source::rpath,
                search_entries(loader_->elf.rpath, tokens(origin_of(loader_->path))));
  }
  if (const auto llp = system_.env("LD_LIBRARY_PATH"); llp && !llp->empty()) {
    // $ORIGIN in LD_LIBRARY_PATH is the executable's directory, which gpuvet does not know.
    search_list(Source::ld_library_path, search_entries(split_list(*llp, ":;"), tokens({})));
  }
  if (has_runpath) {
    search_list(Source::runpath,
                search_entries(loader_->elf.runpath, tokens(origin_of(loader_->path))));
  }
  search_cache();
  std::vector<SearchEntry> defaults;
  for (const auto& dir : platform_.default_dirs)
    defaults.push_back({dir, dir});
  search_list(Source::default_dir, defaults);
  finish();
  return result_;
}

void Walk::search_path_name() {
  // dlopen() expands tokens with its caller's values; without --from the caller is the
  // executable, whose $ORIGIN gpuvet does not know.
  std::optional<std::string> origin;
  if (loader_) origin = origin_of(loader_->path);
  const auto path = expand_tokens(result_.name, tokens(origin));
  Step step;
  step.source = Source::path;
  if (!path) {
    step.where = result_.name;
    step.skipped = Skip::origin_unknown;
    result_.steps.push_back(step);
    return;
  }
  step.where = origin_of(*path);
  step.path = *path;
  try_file(step);
}

void Walk::search_list(Source source, const std::vector<SearchEntry>& entries) {
  for (const auto& entry : entries) {
    Step place;
    place.source = source;
    if (source == Source::rpath || source == Source::runpath) place.object = loader_->path;
    if (has_tokens(entry.entry)) place.entry = entry.entry;
    if (!entry.dir) {
      if (done()) continue;
      place.where = entry.entry;
      place.skipped = Skip::origin_unknown;
      result_.steps.push_back(place);
      continue;
    }
    search_dir(place, *entry.dir);
  }
}

void Walk::search_dir(Step place, const std::string& dir) {
  place.where = shown_dir(dir);
  if (!dir.empty() && !is_directory(dir)) {
    // ENOENT/ENOTDIR: ld.so marks the directory as missing and moves on.
    if (done()) return;
    place.skipped = Skip::no_directory;
    result_.steps.push_back(place);
    return;
  }
  search_hwcaps(place, dir);
  place.path = join_dir(dir, result_.name);
  try_file(place);
}

// glibc 2.33+ tries <dir>/glibc-hwcaps/<level>/<name> for every level the CPU supports, best
// first, before <dir>/<name>. Only levels holding a file become steps.
void Walk::search_hwcaps(const Step& place, const std::string& dir) {
  if (platform_.hwcaps.empty()) return;
  const std::string base = join_dir(dir, "glibc-hwcaps");
  if (!is_directory(base)) return;
  for (const auto& level : platform_.hwcaps) {
    const std::string path = join_dir(join_dir(base, level), result_.name);
    if (!system_.file_info(on_disk(path))) continue;
    Step step = place;
    step.hwcaps = level;
    step.path = path;
    try_file(step);
  }
}

// The cache gives ld.so one path (dl-cache.c, search_cache): an entry in a glibc-hwcaps
// subdirectory the CPU supports wins, the best level first; otherwise the first plain entry.
std::optional<std::string> Walk::pick_cache_path(const std::vector<std::string>& paths) const {
  for (const auto& level : platform_.hwcaps) {
    const std::string marker = "/glibc-hwcaps/" + level + "/";
    for (const auto& path : paths) {
      if (path.find(marker) != std::string::npos) return path;
    }
  }
  for (const auto& path : paths) {
    if (path.find("/glibc-hwcaps/") == std::string::npos) return path;
  }
  return std::nullopt;  // only entries for levels this CPU lacks
}

void Walk::search_cache() {
  Step step;
  step.source = Source::ld_cache;
  step.where = std::string(kLdCacheFile);
  const auto paths = system_.ld_cache_lookup(result_.name);
  const auto chosen = paths ? pick_cache_path(*paths) : std::nullopt;
  if (!chosen) {
    if (done()) return;
    step.skipped = paths ? Skip::not_in_cache : Skip::no_cache;
    result_.steps.push_back(step);
    return;
  }
  const bool before = done();
  step.path = chosen;
  try_file(step);
  // Other entries for the name are copies too, but ld.so only ever tries the one it picked.
  if (!before && !done()) return;
  for (const auto& path : *paths) {
    if (path == *chosen) continue;
    step.path = path;
    try_file(step);
  }
}

Verdict Walk::check_elf(const std::string& path) const {
  Verdict verdict;
  const auto elf = system_.elf_info(on_disk(path));
  if (!elf) {
    verdict.detail = elf.error().message;
    if (headers_ == ElfHeaders::from_snapshot) {
      verdict.loads = true;  // not recorded: assume it is what its name says
    } else if (elf.error().message.find("Permission denied") != std::string::npos) {
      verdict.skip = Skip::unreadable;  // EACCES: open_path moves on
    } else {
      verdict.skip = Skip::not_elf;
    }
    return verdict;
  }
  verdict.bits = elf->bits;
  verdict.machine = elf->machine;
  if (elf->bits && platform_.bits && *elf->bits != *platform_.bits) {
    verdict.skip = Skip::wrong_class;
  } else if (elf->machine && platform_.machine && *elf->machine != *platform_.machine) {
    verdict.skip = Skip::wrong_machine;
  } else {
    verdict.loads = true;
  }
  return verdict;
}

Verdict Walk::verify(const std::string& path) const {
  const auto info = system_.file_info(on_disk(path));
  if (!info) return Verdict{false, Skip::no_file, std::nullopt, std::nullopt, std::nullopt};
  if (info->kind != sys::FileKind::regular) {
    // ld.so opens it and fails to read an ELF header ("cannot read file data").
    const std::string what = info->kind == sys::FileKind::directory ? "a directory" : "special";
    return Verdict{false, Skip::not_regular, what, std::nullopt, std::nullopt};
  }
  return check_elf(path);
}

void Walk::try_file(Step step) {
  const Verdict verdict = verify(*step.path);
  if (done()) {
    if (verdict.loads) add_copy(step);
    return;
  }
  step.found = verdict.loads;
  step.skipped = verdict.skip;
  step.detail = verdict.detail;
  if (verdict.skip == Skip::wrong_class) step.bits = verdict.bits;
  if (verdict.skip == Skip::wrong_machine) step.machine = verdict.machine;
  if (verdict.skip == Skip::no_file) step.detail.reset();
  other_class_ = other_class_ || verdict.skip == Skip::wrong_class;
  result_.steps.push_back(step);
  if (verdict.loads) {
    result_.resolved = step.path;
    result_.real_path = on_disk(*step.path);
  } else if (stops_search(verdict.skip)) {
    stopped_ = true;
    result_.error = fmt::format("{}: {}", *step.path, verdict.detail.value_or("cannot read"));
  }
}

void Walk::add_copy(const Step& step) {
  const std::string real = on_disk(*step.path);
  if (result_.real_path && real == *result_.real_path) return;
  for (const auto& copy : result_.shadowed) {
    if (on_disk(copy.path) == real) return;
  }
  Copy copy;
  copy.path = *step.path;
  copy.version = version_from_file_name(real.substr(real.rfind('/') + 1));
  copy.source = step.source;
  copy.object = step.object;
  result_.shadowed.push_back(copy);
}

void Walk::finish() {
  if (result_.resolved) {
    const std::string& real = *result_.real_path;
    result_.version = version_from_file_name(real.substr(real.rfind('/') + 1));
    return;
  }
  if (result_.error) return;
  const bool other_is_32 = platform_.bits.value_or(64) == 64;
  result_.error =
      other_class_ ? (other_is_32 ? "wrong ELF class: ELFCLASS32" : "wrong ELF class: ELFCLASS64")
                   : "cannot open shared object file: No such file or directory";
}

Result<std::optional<Loader>> read_loader(const sys::System& system,
                                          const std::optional<std::string>& from) {
  if (!from) return std::optional<Loader>();
  if (!system.file_info(*from)) return in_file(kb::catalog_error("error.os.no_such_file"), *from);
  auto elf = system.elf_info(*from);
  if (!elf) return elf.error();
  return std::optional<Loader>(Loader{*from, std::move(*elf)});
}

}  // namespace

bool stops_search(Skip skip) {
  return skip == Skip::not_regular || skip == Skip::not_elf;
}

bool WhichReport::all_resolved() const {
  return std::all_of(results.begin(), results.end(),
                     [](const Resolution& r) { return r.resolved.has_value(); });
}

Resolution resolve_name(const sys::System& system, const std::string& name,
                        const std::optional<Loader>& loader, const Platform& platform,
                        ElfHeaders elf_headers) {
  return Walk(system, name, loader, platform, elf_headers).run();
}

Result<WhichReport> which(const sys::System& system, const WhichRequest& request,
                          const WhichOptions& options) {
  if (system.host().os == "windows") return which_windows(system, request);
  auto loader = read_loader(system, request.from);
  if (!loader) return loader.error();
  WhichReport report;
  report.from = request.from;
  if (options.platform) {
    report.platform = *options.platform;
  } else {
    // The loading process has the loader's class and machine; without one, the host's.
    std::optional<int> machine;
    if (*loader) machine = (*loader)->elf.machine;
    std::optional<std::string> arch;
    if (machine) arch = arch_of_machine(*machine);
    report.platform = detect_platform(system, arch.value_or(""));
  }
  for (const auto& name : request.names) {
    report.results.push_back(
        resolve_name(system, name, *loader, report.platform, options.elf_headers));
  }
  return report;
}

std::optional<std::string> version_from_file_name(std::string_view file_name) {
  const size_t so = file_name.rfind(".so.");
  if (so == std::string_view::npos) return std::nullopt;
  const std::string_view version = file_name.substr(so + 4);
  if (version.empty() || version.front() == '.' || version.back() == '.') return std::nullopt;
  const bool dotted_digits = std::all_of(version.begin(), version.end(),
                                         [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
  if (!dotted_digits || version.find("..") != std::string_view::npos) return std::nullopt;
  return std::string(version);
}

std::string_view to_string(Source source) {
  switch (source) {
    case Source::path:
      return "path";
    case Source::rpath:
      return "rpath";
    case Source::ld_library_path:
      return "ld_library_path";
    case Source::runpath:
      return "runpath";
    case Source::ld_cache:
      return "ld_cache";
    case Source::default_dir:
      return "default_dir";
    case Source::known_dlls:
      return "known_dlls";
    case Source::dll_load_dir:
      return "dll_load_dir";
    case Source::app_dir:
      return "app_dir";
    case Source::system32:
      return "system32";
    case Source::system16:
      return "system16";
    case Source::windows_dir:
      return "windows_dir";
    case Source::current_dir:
      return "current_dir";
    case Source::path_env:
      return "path_env";
    case Source::dll_directory:
      return "dll_directory";
  }
  return "path";
}

std::string_view to_string(Skip skip) {
  switch (skip) {
    case Skip::none:
      return "none";
    case Skip::no_directory:
      return "no_directory";
    case Skip::no_file:
      return "no_file";
    case Skip::wrong_class:
      return "wrong_class";
    case Skip::wrong_machine:
      return "wrong_machine";
    case Skip::unreadable:
      return "unreadable";
    case Skip::not_regular:
      return "not_regular";
    case Skip::not_elf:
      return "not_elf";
    case Skip::origin_unknown:
      return "origin_unknown";
    case Skip::no_cache:
      return "no_cache";
    case Skip::not_in_cache:
      return "not_in_cache";
    case Skip::app_unknown:
      return "app_unknown";
  }
  return "none";
}

std::string why_text(Source source, const std::optional<std::string>& object) {
  switch (source) {
    case Source::path:
      return "path";
    case Source::rpath:
      return "RPATH of " + object.value_or("?");
    case Source::ld_library_path:
      return "LD_LIBRARY_PATH";
    case Source::runpath:
      return "RUNPATH of " + object.value_or("?");
    case Source::ld_cache:
      return "ld.so.cache";
    case Source::default_dir:
      return "default directory";
    case Source::known_dlls:
      return "KnownDLLs";
    case Source::dll_load_dir:
      return "the loading DLL's folder";
    case Source::app_dir:
      return "application folder";
    case Source::system32:
      return "System32";
    case Source::system16:
      return "16-bit system folder";
    case Source::windows_dir:
      return "Windows folder";
    case Source::current_dir:
      return "current folder";
    case Source::path_env:
      return "PATH";
    case Source::dll_directory:
      return "AddDllDirectory";
  }
  return "path";
}

}  // namespace gpuvet::resolve
