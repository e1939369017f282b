#include "fix/cudnn_install.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/c_file.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "core/zip_reader.hpp"
#include "fix/target_files.hpp"
#include "kb/messages.hpp"
#include "kb/queries.hpp"
#include "probes/probes.hpp"

namespace gpuvet::fix {

namespace {

constexpr std::uint64_t kMaxHeaderBytes = 1 << 20;

struct SourceFile {
  std::string relative;  // inside the archive's root: "bin/cudnn64_9.dll"
  std::string source;    // what apply copies from: a path, or "ARCHIVE.zip!entry"
  std::optional<std::string> link_to;
};

struct Source {
  std::string name;  // the folder's or the zip's name, and its root's
  std::vector<SourceFile> files;
  std::string version;  // cuDNN's, from its header
};

std::string digits_at(std::string_view s, size_t at) {
  size_t end = at;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.'))
    ++end;
  std::string out(s.substr(at, end - at));
  while (!out.empty() && out.back() == '.')
    out.pop_back();
  return out;
}

// The files under the folder, relative to it ('/'-separated); links kept as links.
Result<std::vector<std::pair<std::string, std::optional<std::string>>>> folder_files(
    const std::string& folder) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  std::error_code error;
  const auto root = paths::to_fs(folder);
  auto it = std::filesystem::recursive_directory_iterator(root, error);
  if (error) return in_file(filesystem_error(error), folder);
  for (; it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (error) return in_file(filesystem_error(error), folder);
    const auto status = it->symlink_status(error);
    // lexically: relative() would follow the links this wants to keep.
    const std::string relative = paths::from_fs(it->path().lexically_relative(root));
    if (std::filesystem::is_symlink(status)) {
      out.emplace_back(relative, link_of(paths::from_fs(it->path())));
    } else if (std::filesystem::is_regular_file(status)) {
      out.emplace_back(relative, std::nullopt);
    }
    if (out.size() > 100000) {
      return in_file(kb::catalog_error("fix.error.too_many_files", {{"limit", "100000"}}), folder);
    }
  }
  return out;
}

// The archive's root: the folder that holds include/cudnn*.h (a zip's top folder, 7.x's cuda/).
std::optional<std::string> root_of(const std::vector<std::string>& names) {
  std::optional<std::string> best;
  for (const auto& name : names) {
    for (const char* header : {"include/cudnn_version.h", "include/cudnn.h"}) {
      if (name == header || name.ends_with(std::string("/") + header)) {
        const std::string root = name.substr(0, name.size() - std::string(header).size());
        if (!best || root.size() < best->size()) best = root;
      }
    }
  }
  return best;
}

Result<Source> read_source(const std::string& from) {
  Source source;
  const std::string normalized = paths::normalize(from);
  source.name = normalized.substr(normalized.find_last_of('/') + 1);
  std::vector<std::string> names;
  std::vector<SourceFile> all;
  std::optional<zip::Archive> archive;
  const auto state = inspect_target(from);
  if (!state || !state->exists) return in_file(kb::catalog_error("error.os.no_such_file"), from);
  if (text::to_lower(source.name).ends_with(".zip")) {
    auto opened = zip::Archive::open(from);
    if (!opened) return opened.error();
    for (const auto& entry : opened->entries()) {
      if (entry.directory()) continue;
      names.push_back(entry.name);
      all.push_back({entry.name, normalized + "!" + entry.name, std::nullopt});
    }
    archive = std::move(*opened);
  } else {
    auto files = folder_files(from);
    if (!files) return files.error();
    for (const auto& [relative, link] : *files) {
      names.push_back(relative);
      all.push_back({relative, paths::join(normalized, relative), link});
    }
  }
  const auto root = root_of(names);
  if (!root) return in_file(kb::catalog_error("fix.error.not_cudnn_archive"), from);
  source.name += " " + *root;
  for (auto& file : all) {
    if (!file.relative.starts_with(*root)) continue;
    file.relative = file.relative.substr(root->size());
    source.files.push_back(std::move(file));
  }
  for (const char* header : {"include/cudnn_version.h", "include/cudnn.h"}) {
    const auto it = std::find_if(source.files.begin(), source.files.end(),
                                 [&](const SourceFile& f) { return f.relative == header; });
    if (it == source.files.end() || it->link_to) continue;
    Result<std::string> text = Error{""};
    if (archive) {
      for (const auto& entry : archive->entries()) {
        if (entry.name == *root + header) text = archive->read(entry, kMaxHeaderBytes);
      }
    } else {
      text = read_target(it->source, kMaxHeaderBytes);
    }
    if (!text) continue;
    const auto major = probes::header_define(*text, "CUDNN_MAJOR");
    const auto minor = probes::header_define(*text, "CUDNN_MINOR");
    const auto patch = probes::header_define(*text, "CUDNN_PATCHLEVEL");
    if (major && minor && patch) {
      source.version = fmt::format("{}.{}.{}", *major, *minor, *patch);
      return source;
    }
  }
  return Error{from +
               ": its cuDNN headers give no version (CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL)"};
}

// Where a file of the archive goes in the toolkit; nullopt for what stays out (licences, docs).
std::optional<std::string> destination(const std::string& relative, const std::string& toolkit,
                                       bool windows) {
  for (const char* folder : {"bin/", "include/", "lib/x64/", "lib64/"}) {
    if (relative.starts_with(folder)) return paths::join(toolkit, relative);
  }
  if (relative.starts_with("lib/")) {
    return paths::join(toolkit, (windows ? "lib/" : "lib64/") + relative.substr(4));
  }
  return std::nullopt;
}

// Whether cuDNN `cudnn` built for CUDA `archive_cuda` (nullopt: the name does not say) fits the
// toolkit's CUDA. nullopt: unknown.
Result<std::optional<bool>> fits(const kb::Kb& kb, const std::string& cudnn,
                                 const std::optional<std::string>& archive_cuda,
                                 const std::string& toolkit_cuda) {
  if (archive_cuda) {
    const size_t parts =
        static_cast<size_t>(std::count(archive_cuda->begin(), archive_cuda->end(), '.')) + 1;
    return std::optional<bool>(version::prefix(toolkit_cuda, parts) == *archive_cuda);
  }
  auto rows = kb::rows_if(kb, "cudnn_releases", [&](const kb::Row& row) {
    return kb::version_in_range(cudnn, row.get("cudnn_from"), row.get("cudnn_to"));
  });
  if (!rows) return rows.error();
  // cuDNN 8 on is built per CUDA major; before, per major.minor.
  const bool per_major = version::compare(cudnn, "8") >= 0;
  bool known = false;
  for (const auto& row : *rows) {
    for (const auto& cuda : text::split(row.get("cuda_versions"), ';')) {
      if (cuda.empty()) continue;
      known = true;
      if (per_major ? version::prefix(cuda, 1) == version::prefix(toolkit_cuda, 1)
                    : version::prefix(cuda, 2) == version::prefix(toolkit_cuda, 2)) {
        return std::optional<bool>(true);
      }
    }
  }
  return known ? std::optional<bool>(false) : std::optional<bool>();
}

}  // namespace

std::optional<std::string> cuda_of_archive_name(std::string_view name) {
  const std::string lower = text::to_lower(name);
  for (size_t at = lower.find("cuda"); at != std::string::npos; at = lower.find("cuda", at + 1)) {
    std::string digits = digits_at(lower, at + 4);
    if (digits.empty() && at + 4 < lower.size() && (lower[at + 4] == '-' || lower[at + 4] == '_')) {
      digits = digits_at(lower, at + 5);
    }
    if (!digits.empty()) return digits;
  }
  // 7.x: "cudnn-10.1-windows10-x64-v7.6.5.32"
  if (lower.starts_with("cudnn-")) {
    std::string digits = digits_at(lower, 6);
    if (digits.find('.') != std::string::npos) return digits;
  }
  return std::nullopt;
}

Result<FixPlan> plan_cudnn_install(const Facts& facts, const kb::Kb& kb,
                                   const kb::Messages& messages,
                                   const CudnnInstallRequest& request) {
  auto source = read_source(request.from);
  if (!source) return source.error();
  FixPlan plan;
  plan.stamp = request.stamp;
  const bool windows = facts.os.family == "windows";
  const auto archive_cuda = cuda_of_archive_name(source->name);
  const kb::MessageArgs base = {
      {"cudnn", source->version},
      {"cuda", archive_cuda.value_or(messages.text("report.unknown_value"))},
      {"from", request.from}};
  const auto refuse = [&](const std::string& key, kb::MessageArgs args) {
    args.insert(args.end(), base.begin(), base.end());
    plan.refused.push_back({"cudnn.missing", request.from, messages.text(key, args)});
    return plan;
  };
  const CudaToolkitFact* chosen = nullptr;
  std::vector<std::string> seen;
  bool unknown = false;
  for (const auto& toolkit : facts.cuda_toolkits) {
    if (!toolkit.version || toolkit.source == "pip" || toolkit.source == "conda") continue;
    if (request.toolkit && paths::comparison_key(*request.toolkit, windows) !=
                               paths::comparison_key(toolkit.root, windows)) {
      continue;
    }
    seen.push_back(fmt::format("{} ({})", toolkit.root, *toolkit.version));
    auto fit = fits(kb, source->version, archive_cuda, *toolkit.version);
    if (!fit) return fit.error();
    if (!*fit) unknown = true;
    if (*fit && **fit && (!chosen || version::compare(*toolkit.version, *chosen->version) > 0)) {
      chosen = &toolkit;
    }
  }
  if (!chosen) {
    if (seen.empty()) return refuse("fix.cudnn.no_toolkit", {});
    return refuse(unknown ? "fix.cudnn.cuda_unknown" : "fix.cudnn.no_match",
                  {{"toolkits", text::join(seen, ", ")}});
  }
  Fix fix{kCudnnInstallFix,
          "cudnn.missing",
          messages.text("fix.cudnn.summary", {{"cudnn", source->version},
                                              {"toolkit", chosen->root},
                                              {"toolkit_cuda", *chosen->version}}),
          false,
          {},
          {}};
  for (const auto& file : source->files) {
    const auto target = destination(file.relative, chosen->root, windows);
    if (!target || !std::filesystem::is_directory(paths::to_fs(paths::parent(*target)))) continue;
    auto state = inspect_target(*target);
    if (!state) return state.error();
    if (state->is_link || (state->exists && !state->is_regular)) {
      return refuse("fix.cudnn.link_in_the_way", {{"target", *target}});
    }
    Action a;
    a.kind = ActionKind::write_file;
    a.target = *target;
    a.link_to = file.link_to;
    if (!file.link_to) a.copy_from = file.source;
    if (state->exists) {
      auto bytes = read_target(*target, std::uint64_t{4} << 30);
      if (!bytes) return bytes.error();
      a.replaces = checksum_of(*bytes);
      a.before = messages.text("fix.cudnn.replaces", {{"size", std::to_string(bytes->size())}});
    }
    a.after = file.link_to ? "-> " + *file.link_to
                           : messages.text("fix.cudnn.copy_of", {{"source", file.source}});
    fix.needs_admin = fix.needs_admin || (!running_as_admin() && !may_write_beside(*target));
    fix.actions.push_back(std::move(a));
  }
  if (fix.actions.empty()) return refuse("fix.cudnn.nothing_to_copy", {{"toolkit", chosen->root}});
  plan.fixes.push_back(std::move(fix));
  return plan;
}

}  // namespace gpuvet::fix
