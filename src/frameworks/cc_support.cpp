#include "frameworks/cc_support.hpp"

#include <algorithm>
#include <map>

#include "core/version.hpp"

namespace gpuvet::frameworks {

namespace {

bool older(const std::string& a, const std::string& b) {
  return version::compare(a, b) < 0;
}

// The release a build belongs to.
std::string release_of(const Build& b) {
  return b.version;
}

bool release_order(const std::string& a, const std::string& b) {
  if (version::is_dotted(a) && version::is_dotted(b)) return older(a, b);
  return a < b;
}

struct ReleaseOnCc {
  bool yes = false;
  bool unknown = false;
};

}  // namespace

bool arch_list_runs_on(const std::vector<std::string>& arch_list, const std::string& cc) {
  return std::any_of(arch_list.begin(), arch_list.end(), [&](const std::string& item) {
    const bool ptx = item.ends_with("+PTX");
    const std::string arch = ptx ? item.substr(0, item.size() - 4) : item;
    const bool same_major = version::major(arch) == version::major(cc);
    return (same_major && !older(cc, arch)) || (ptx && !older(cc, arch));
  });
}

bool arch_list_has_sass_for(const std::vector<std::string>& arch_list, const std::string& cc) {
  return std::any_of(arch_list.begin(), arch_list.end(), [&](const std::string& item) {
    const std::string arch = item.ends_with("+PTX") ? item.substr(0, item.size() - 4) : item;
    return version::major(arch) == version::major(cc) && !older(cc, arch);
  });
}

Runs build_runs_on(const Build& b, const std::string& cc, const kb::CudaRangeForCc& cuda_range) {
  if (b.min_cc && older(cc, *b.min_cc)) return Runs::no;
  if (!b.arch_list.empty()) return arch_list_runs_on(b.arch_list, cc) ? Runs::yes : Runs::no;
  // A CUDA at or past the toolkit that dropped cc cannot have built kernels for it.
  if (b.cuda && !cuda_range.dropped_in.empty() &&
      !older(version::major_minor(*b.cuda), cuda_range.dropped_in))
    return Runs::no;
  return b.min_cc ? Runs::yes : Runs::unknown;
}

Result<FrameworkOnCc> framework_on_cc(const Framework& f, const kb::Kb& kb, const std::string& cc,
                                      const kb::CudaRangeForCc& cuda_range) {
  FrameworkOnCc answer;
  answer.framework = &f;
  if (!f.builds) return answer;
  auto builds = f.builds(kb);
  if (!builds) return builds.error();
  std::map<std::string, ReleaseOnCc, decltype(&release_order)> releases(&release_order);
  for (const auto& b : *builds) {
    const std::string release = release_of(b);
    if (release.empty() || !version::is_dotted(release)) continue;
    ReleaseOnCc& r = releases[release];
    const Runs runs = build_runs_on(b, cc, cuda_range);
    r.yes = r.yes || runs == Runs::yes;
    r.unknown = r.unknown || runs == Runs::unknown;
    if (runs != Runs::no) continue;
    if (b.min_cc && older(cc, *b.min_cc)) {
      if (answer.refused_need_cc.empty() || older(*b.min_cc, answer.refused_need_cc))
        answer.refused_need_cc = *b.min_cc;
    } else if (b.cuda && (answer.refused_cuda.empty() ||
                          older(version::major_minor(*b.cuda), answer.refused_cuda))) {
      answer.refused_cuda = version::major_minor(*b.cuda);
    }
  }
  answer.has_builds = !releases.empty();
  for (const auto& [release, on_cc] : releases) {
    if (on_cc.yes) answer.running.push_back(release);
    answer.any_unknown = answer.any_unknown || (on_cc.unknown && !on_cc.yes);
  }
  answer.newest_runs = !releases.empty() && releases.rbegin()->second.yes;
  return answer;
}

}  // namespace gpuvet::frameworks
