#include "explain/build_needs.hpp"

#include <algorithm>
#include <map>
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
  std::string distribution;  // pip's name where the log lists it: cupy-cuda12x
};

// PyTorch's environment report says the CUDA of a build whose version does not ("PyTorch version:
// 2.1.0" with "CUDA used to build PyTorch: 12.1", PyPI's wheel): its local tag, cu121.
std::string with_cuda_variant(const frameworks::Framework& framework, const std::string& version,
                              const LogFacts& log) {
  const auto cuda = log.versions.find(std::string(framework.family) + "_cuda");
  if (!framework.variant_in_local_version || cuda == log.versions.end() ||
      version.find('+') != std::string::npos)
    return version;
  const auto parts = text::split(cuda->second.version, '.');
  if (parts.size() != 2) return version;
  return version + "+cu" + parts[0] + parts[1];
}

// The framework versions the log shows: printed (tensorflow 2.10.0, torch 2.1.0+cu121) or listed
// by pip, its distributions read as families through data/python_packages.csv. A listing
// spells what a printed version may leave out (PaddlePaddle's .post112), so it replaces a printed
// version it extends.
std::vector<Named> named_builds(const kb::Kb& kb, const LogFacts& log) {
  std::vector<Named> out;
  const auto add = [&](const std::string& family, const std::string& version,
                       const std::string& distribution) {
    for (auto& n : out) {
      if (n.family != family) continue;
      if (version.starts_with(n.version) && n.distribution.empty()) {
        n.version = version;
        n.distribution = distribution;
      }
      return;
    }
    out.push_back({family, version, distribution});
  };
  for (const auto& [family, seen] : log.versions) {
    const frameworks::Framework* framework = frameworks::find(family);
    if (!framework) continue;
    add(family, with_cuda_variant(*framework, seen.version, log), "");
  }
  for (const auto& listed : listed_builds(kb, log))
    add(listed.family, listed.seen.version, listed.package);
  return out;
}

// The build table's platforms a log of this platform runs (WSL2 runs the Linux builds); every
// one when the log does not say.
bool runs_on(const std::string& build_platform, const std::string& log_platform) {
  if (log_platform.empty()) return true;
  if (log_platform == "windows") return build_platform == "windows";
  return (log_platform == "linux" || log_platform == "wsl") && build_platform == "linux";
}

// A printed version's release and the variant it spells after it: 2.4.0.post112 is 2.4.0 and
// ".post112", 2.1.0+cu121 is 2.1.0 and "+cu121"; 2.16.0rc0 is itself.
std::pair<std::string, std::string> release_and_suffix(const std::string& printed) {
  size_t at = printed.find('+');
  if (at == std::string::npos) at = printed.find(".post");
  if (at == std::string::npos) return {printed, ""};
  return {printed.substr(0, at), printed.substr(at)};
}

// Whether a build is spelled so: PyTorch's variant as a local tag (+cu121), PaddlePaddle's as
// the suffix its requirement template puts after the version ({version}.post112; none for the
// build pip installs without an index); a build whose variant the version does not spell
// (ONNX Runtime's) is any.
bool spelled(const frameworks::Framework& f, const frameworks::Build& b,
             const std::string& suffix) {
  if (suffix.starts_with("+")) return b.variant == suffix.substr(1);
  if (f.variant_in_local_version) return b.variant.empty() && suffix.empty();
  const size_t at = b.package_spec.find("{version}");
  if (at != std::string::npos) return b.package_spec.substr(at + 9) == suffix;
  return suffix.empty();
}

// The builds of this release: the exact version, else its series (2.16.2 is built as 2.16.1).
std::vector<frameworks::Build> builds_of(const frameworks::Framework& f,
                                         const std::vector<frameworks::Build>& all,
                                         const std::string& printed, const std::string& platform) {
  const auto [version, suffix] = release_and_suffix(printed);
  std::vector<frameworks::Build> exact;
  std::vector<frameworks::Build> series;
  for (const auto& b : all) {
    if (!runs_on(b.platform, platform) || !spelled(f, b, suffix) || b.cuda_range) continue;
    if (b.version == version) {
      exact.push_back(b);
    } else if (version::major_minor(b.version) == version::major_minor(version)) {
      series.push_back(b);
    }
  }
  return exact.empty() ? series : exact;
}

// Where the distribution names the variant (CuPy's cupy-cuda102), only its builds.
void keep_distribution(std::vector<frameworks::Build>& builds, const std::string& distribution) {
  const auto other = [&](const frameworks::Build& b) {
    return b.package.substr(0, b.package.find('[')) != distribution;
  };
  if (distribution.empty() || std::all_of(builds.begin(), builds.end(), other)) return;
  builds.erase(std::remove_if(builds.begin(), builds.end(), other), builds.end());
}

// The first source of a build's row, without the table's name: the reader wants where, and one
// place is enough to check it.
std::string source_of(const frameworks::Build& b) {
  std::string source = b.sources.empty() ? "" : b.sources.front();
  const size_t colon = source.find(": ");
  if (colon != std::string::npos) source.erase(0, colon + 2);
  int depth = 0;
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '(') ++depth;
    if (source[i] == ')') --depth;
    if (source[i] == ';' && depth <= 0) return std::string(text::trim(source.substr(0, i)));
  }
  return source;
}

// The NVIDIA driver the build's CUDA asks for on the log's platform; inside WSL the Windows
// driver serves CUDA. A log that does not say its platform gets both, each named ("530.30.02
// (Linux) / 531.14 (Windows)"): the numbers differ, and either is a fact, not a guess.
void add_driver(const kb::Kb& kb, const std::string& platform, BuildNeeds& out) {
  std::vector<std::pair<bool, std::string>> platforms = {{platform != "linux", ""}};
  if (platform.empty()) platforms = {{false, "Linux"}, {true, "Windows"}};
  std::vector<std::string> mins;
  std::vector<std::string> floors;
  std::set<std::string> sources;
  std::string loads_from;
  for (const auto& [windows, name] : platforms) {
    const auto need = kb::driver_requirement(kb, out.cuda, windows);
    if (!need || !need->oldest()) return;
    if (loads_from.empty() || version::compare(*need->oldest(), loads_from) < 0)
      loads_from = *need->oldest();
    if (!need->release_min) continue;
    const auto named = [&](const std::string& v) {
      return name.empty() ? v : v + " (" + name + ")";
    };
    mins.push_back(named(*need->release_min));
    sources.insert(need->release_source);
    if (need->compat_floor && *need->compat_floor != *need->release_min) {
      floors.push_back(named(*need->compat_floor));
      sources.insert(need->compat_source);
    }
  }
  out.loads_from = loads_from;
  if (mins.size() != platforms.size()) return;
  out.min_driver = text::join(mins, " / ");
  // A floor is said only where every platform has one.
  if (floors.size() == mins.size()) out.driver_floor = text::join(floors, " / ");
  out.driver_source = text::join(std::vector<std::string>(sources.begin(), sources.end()), "; ");
}

// One candidate per CUDA and cuDNN the builds name. Of one such pair's install forms, the one
// whose wheels bring CUDA names the pip command (tensorflow[and-cuda], onnxruntime-gpu[cuda,
// cudnn]).
BuildNeeds needs_of(const std::vector<const frameworks::Build*>& same, const Named& named,
                    const frameworks::Framework& framework) {
  const frameworks::Build* b = same.front();
  for (const auto* other : same)
    if (other->wheels_bring_cuda && !b->wheels_bring_cuda) b = other;
  BuildNeeds out;
  out.framework = std::string(framework.display_name);
  out.version = named.version;
  out.cuda = b->cuda.value_or("");
  out.cudnn = b->cudnn.value_or("");
  out.wheels_bring_cuda = b->wheels_bring_cuda;
  out.variant = b->variant;
  out.own_index = !b->index_option.empty() || framework.variant_in_local_version;
  out.package = b->package;
  out.source = source_of(*b);
  return out;
}

}  // namespace

std::vector<ListedBuild> listed_builds(const kb::Kb& kb, const LogFacts& log) {
  std::vector<ListedBuild> out;
  if (log.listed.empty()) return out;
  auto t = kb.table("python_packages");
  if (!t) return out;
  for (size_t row = 0; row < (*t)->size(); ++row) {
    if ((*t)->cell(row, "ecosystem") != "pip" || (*t)->cell(row, "role") != "build") continue;
    const auto seen = log.listed.find((*t)->cell(row, "package"));
    if (seen != log.listed.end())
      out.push_back({(*t)->cell(row, "family"), seen->first, seen->second});
  }
  return out;
}

std::vector<BuildNeeds> build_candidates(const kb::Kb& kb, const LogFacts& log,
                                         const std::string& platform) {
  if (platform == "macos") return {};
  const auto named = named_builds(kb, log);
  if (named.size() != 1) return {};
  const frameworks::Framework* framework = frameworks::find(named.front().family);
  if (!framework || !framework->builds) return {};
  const auto all = framework->builds(kb);
  if (!all) return {};
  auto builds = builds_of(*framework, *all, named.front().version, platform);
  keep_distribution(builds, named.front().distribution);
  std::map<std::pair<std::string, std::string>, std::vector<const frameworks::Build*>> by_needs;
  for (const auto& b : builds)
    if (b.cuda) by_needs[{*b.cuda, b.cudnn.value_or("")}].push_back(&b);
  std::vector<BuildNeeds> out;
  for (const auto& [needs, same] : by_needs) {
    std::set<std::string> platforms;
    for (const auto* b : same)
      platforms.insert(b->platform);
    // A log that does not say its platform is read only where Linux and Windows builds agree: a
    // Linux-only build (TensorFlow 2.11 and later) says nothing of a Windows log.
    if (platform.empty() && platforms.size() < 2) continue;
    out.push_back(needs_of(same, named.front(), *framework));
    add_driver(kb, platform, out.back());
  }
  // An unknown platform whose Linux and Windows builds disagree (ONNX Runtime 1.17's cuDNN 8.2
  // and 8.5) names neither.
  if (platform.empty()) {
    std::set<std::string> cudas;
    for (const auto& b : builds)
      if (b.cuda) cudas.insert(*b.cuda + "/" + b.cudnn.value_or(""));
    if (cudas.size() != out.size()) return {};
  }
  return out;
}

std::optional<BuildNeeds> build_for(const Cause& c, const std::vector<BuildNeeds>& candidates) {
  const auto major = [](const std::string& v) { return text::split(v, '.').front(); };
  const auto agrees = [&](const char* capture, const std::string& built) {
    const auto it = c.captures.find(capture);
    return it == c.captures.end() || built.empty() || major(it->second) == major(built);
  };
  const bool driver = c.id == "driver.too_old";
  const bool cuda = c.id == "cuda.runtime_missing" || c.id == "cuda.version_mismatch";
  const bool cudnn = c.id == "cudnn.missing" || c.id == "cudnn.version_mismatch";
  if (!driver && !cuda && !cudnn) return std::nullopt;
  std::vector<const BuildNeeds*> fitting;
  for (const auto& needs : candidates) {
    if (driver && needs.min_driver.empty()) continue;
    // Wheels from the build's own index bring CUDA: only their driver is said.
    if (!driver && needs.wheels_bring_cuda && needs.own_index) continue;
    if (cuda && !agrees("cuda", needs.cuda)) continue;
    if (cudnn && !(agrees("cudnn", needs.cudnn) && agrees("compiled", needs.cudnn))) continue;
    fitting.push_back(&needs);
  }
  if (fitting.size() != 1) return std::nullopt;
  return *fitting.front();
}

}  // namespace gpuvet::explain
