#include "explain/build_needs.hpp"

#include <set>
#include <utility>
#include <vector>

#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "kb/driver_rule.hpp"

namespace gpuvet::explain {

namespace {

struct Named {
  std::string family;
  std::string version;
};

// The framework versions the log shows: printed (tensorflow 2.10.0, torch 2.1.0+cu121) or listed
// by pip, its distributions read as families through data/python_packages.csv.
std::vector<Named> named_builds(const kb::Kb& kb, const LogFacts& log) {
  std::vector<Named> out;
  const auto add = [&](const std::string& family, const std::string& version) {
    for (const auto& n : out)
      if (n.family == family) return;
    out.push_back({family, version});
  };
  for (const auto& [family, seen] : log.versions)
    if (frameworks::find(family)) add(family, seen.version);
  auto t = kb.table("python_packages");
  if (!t) return out;
  for (size_t row = 0; row < (*t)->size(); ++row) {
    if ((*t)->cell(row, "ecosystem") != "pip" || (*t)->cell(row, "role") != "build") continue;
    const auto seen = log.listed.find((*t)->cell(row, "package"));
    if (seen != log.listed.end()) add((*t)->cell(row, "family"), seen->second.version);
  }
  return out;
}

// The build table's platforms a log of this platform runs (WSL2 runs the Linux builds); every
// one when the log does not say.
bool runs_on(const std::string& build_platform, const std::string& log_platform) {
  if (log_platform.empty()) return true;
  if (log_platform == "windows") return build_platform == "windows";
  return (log_platform == "linux" || log_platform == "wsl") && build_platform == "linux";
}

// The builds of this release: the exact version, else its series (2.16.2 is built as 2.16.1). A
// framework with a build per CUDA variant (PyTorch's cu121) is read only where the printed
// version names the variant (2.1.0+cu121).
std::vector<frameworks::Build> builds_of(const std::vector<frameworks::Build>& all,
                                         const std::string& printed, const std::string& platform) {
  const auto parts = text::split(printed, '+');
  const std::string version = parts.front();
  const std::string tag = parts.size() > 1 ? parts[1] : "";
  std::vector<frameworks::Build> exact;
  std::vector<frameworks::Build> series;
  for (const auto& b : all) {
    if (!runs_on(b.platform, platform) || b.variant != tag) continue;
    if (b.version == version) {
      exact.push_back(b);
    } else if (version::major_minor(b.version) == version::major_minor(version)) {
      series.push_back(b);
    }
  }
  return exact.empty() ? series : exact;
}

}  // namespace

std::optional<BuildNeeds> build_needs(const kb::Kb& kb, const LogFacts& log,
                                      const std::string& platform) {
  if (platform == "macos") return std::nullopt;
  const auto named = named_builds(kb, log);
  if (named.size() != 1) return std::nullopt;
  const frameworks::Framework* framework = frameworks::find(named.front().family);
  if (!framework || !framework->builds) return std::nullopt;
  const auto all = framework->builds(kb);
  if (!all) return std::nullopt;
  const auto builds = builds_of(*all, named.front().version, platform);
  std::set<std::pair<std::string, std::string>> needs;
  std::set<std::string> platforms;
  for (const auto& b : builds) {
    needs.emplace(b.cuda.value_or(""), b.cudnn.value_or(""));
    platforms.insert(b.platform);
  }
  if (needs.size() != 1 || needs.begin()->first.empty()) return std::nullopt;
  // A log that does not say its platform is read only where Linux and Windows builds agree: a
  // Linux-only build (TensorFlow 2.11 and later) says nothing of a Windows log.
  if (platform.empty() && platforms.size() < 2) return std::nullopt;
  const frameworks::Build& b = builds.front();
  BuildNeeds out;
  out.framework = std::string(framework->display_name);
  out.version = named.front().version;
  out.cuda = needs.begin()->first;
  out.cudnn = needs.begin()->second;
  out.wheels_bring_cuda = b.wheels_bring_cuda;
  out.variant = b.variant;
  out.package = b.package;
  // "tensorflow_builds: <where the row was read>": the reader wants where.
  const std::string source = b.sources.empty() ? "" : b.sources.front();
  out.source = source.substr(source.find(": ") == std::string::npos ? 0 : source.find(": ") + 2);
  if (!platform.empty()) {
    // Inside WSL the Windows driver serves CUDA.
    const auto need = kb::driver_requirement(kb, out.cuda, platform != "linux");
    if (need && need->release_min) {
      out.min_driver = *need->release_min;
      out.driver_source = need->release_source;
      if (need->compat_floor && *need->compat_floor != *need->release_min) {
        out.driver_floor = *need->compat_floor;
        out.driver_source += "; " + need->compat_source;
      }
    }
  }
  return out;
}

}  // namespace gpuvet::explain
