// CUDA-layer checks over the toolkit facts: which toolkit wins on the search paths.
#include <fmt/format.h>

#include <algorithm>

#include "checks/checks.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"

namespace gpuvet::checks {

namespace {

struct Placed {
  const CudaToolkitFact* toolkit;
  size_t position;  // in the search path
  std::string entry;
};

std::string key(const std::string& path, bool windows) {
  return paths::comparison_key(path, windows);
}

// The toolkits whose directories (root + one of `subdirs`) stand in a search path, in its order.
std::vector<Placed> placed(const Facts& f, const std::vector<std::string>& search,
                           std::initializer_list<const char*> subdirs) {
  const bool windows = f.os.family == "windows";
  std::vector<Placed> out;
  for (size_t i = 0; i < search.size(); ++i) {
    for (const auto& toolkit : f.cuda_toolkits) {
      if (!toolkit.version) continue;
      const bool matches = std::any_of(subdirs.begin(), subdirs.end(), [&](const char* sub) {
        return key(search[i], windows) == key(paths::join(toolkit.root, sub), windows);
      });
      const bool seen = std::any_of(out.begin(), out.end(),
                                    [&](const Placed& p) { return p.toolkit == &toolkit; });
      if (matches && !seen) out.push_back({&toolkit, i, search[i]});
    }
  }
  return out;
}

Result<bool> check_order(const CheckContext& context, std::vector<Finding>& findings,
                         const std::vector<Placed>& order, const std::string& variable,
                         std::string_view title_key) {
  if (order.size() < 2) return true;
  const Placed& first = order.front();
  const Placed* newer = nullptr;
  for (size_t i = 1; i < order.size(); ++i) {
    if (version::compare(*order[i].toolkit->version, *first.toolkit->version) > 0 &&
        (!newer || version::compare(*order[i].toolkit->version, *newer->toolkit->version) > 0)) {
      newer = &order[i];
    }
  }
  if (!newer) return true;
  const kb::MessageArgs args = {{"old", *first.toolkit->version},
                                {"new", *newer->toolkit->version},
                                {"variable", variable},
                                {"old_entry", first.entry},
                                {"new_entry", newer->entry}};
  auto finding = context.finding("cuda.path_order", Severity::warning, title_key, args);
  if (!finding) return finding.error();
  for (const auto& p : order) {
    finding->evidence.push_back(
        context.text("cuda.path_order.entry", {{"variable", variable},
                                               {"position", std::to_string(p.position + 1)},
                                               {"entry", p.entry},
                                               {"version", *p.toolkit->version}}));
  }
  finding->fix.push_back(context.text("cuda.path_order.fix", args));
  finding->details = {{"variable", variable},
                      {"old_entry", first.entry},
                      {"old_root", first.toolkit->root},
                      {"new_root", newer->toolkit->root},
                      {"new_version", *newer->toolkit->version},
                      {"new_entry", newer->entry}};
  findings.push_back(std::move(*finding));
  return true;
}

}  // namespace

// An older copy of a CUDA or cuDNN library is what the loader opens, while a newer copy of the
// same soname sits later on the search path. Versions come from file names and are compared
// only when both have at least major.minor ("9" says too little).
Result<bool> check_shadowed_copies(const CheckContext& context, std::vector<Finding>& findings) {
  for (const auto& library : context.facts().libraries) {
    if (!library.resolved || !library.version || library.version->find('.') == std::string::npos) {
      continue;
    }
    const LibraryCopy* newest = nullptr;
    for (const auto& copy : library.shadowed) {
      if (!copy.version || copy.version->find('.') == std::string::npos) continue;
      if (version::compare(*copy.version, *library.version) > 0 &&
          (!newest || version::compare(*copy.version, *newest->version) > 0)) {
        newest = &copy;
      }
    }
    if (!newest) continue;
    const kb::MessageArgs args = {{"name", library.name},
                                  {"path", *library.resolved},
                                  {"version", *library.version},
                                  {"newer_path", newest->path},
                                  {"newer_version", *newest->version}};
    auto finding =
        context.finding("lib.shadowed_copy", Severity::warning, "lib.shadowed_copy.title", args);
    if (!finding) return finding.error();
    // A cuDNN copy belongs on the cuDNN row.
    if (library.name.starts_with("libcudnn")) finding->layer = Layer::cudnn;
    finding->evidence.push_back(context.text("lib.shadowed_copy.loads", args));
    for (const auto& copy : library.shadowed) {
      finding->evidence.push_back(
          context.text("lib.shadowed_copy.shadowed",
                       {{"path", copy.path},
                        {"version", copy.version.value_or(context.text("report.unknown_value"))}}));
    }
    finding->fix.push_back(context.text("lib.shadowed_copy.fix", args));
    finding->details = {
        {"stray", *library.resolved}, {"name", library.name}, {"good", newest->path}};
    findings.push_back(std::move(*finding));
  }
  return true;
}

// Several toolkits on PATH (or LD_LIBRARY_PATH) with an older one first: its nvcc, and on
// Windows its DLLs, win over the newer one's.
Result<bool> check_cuda_path_order(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  const bool windows = f.os.family == "windows";
  auto on_path =
      check_order(context, findings, placed(f, f.env.path, {"bin"}), windows ? "Path" : "PATH",
                  windows ? "cuda.path_order.title.windows" : "cuda.path_order.title.path");
  if (!on_path) return on_path;
  if (windows) return true;
  return check_order(context, findings,
                     placed(f, f.env.ld_library_path,
                            {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"}),
                     "LD_LIBRARY_PATH", "cuda.path_order.title.ld_library_path");
}

}  // namespace gpuvet::checks
