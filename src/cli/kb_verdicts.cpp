#include "cli/kb_verdicts.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/cc_support.hpp"
#include "kb/arch_support.hpp"
#include "kb/queries.hpp"

namespace gpuvet::cli {

namespace {

using report::KbAnswer;
using report::VerdictLine;

// "8.6" -> "86", "12.0" -> "120": the sm_XY name nvcc uses.
std::string sm_of(const std::string& cc) {
  std::string sm;
  for (char c : cc) {
    if (c != '.') sm += c;
  }
  return sm;
}

std::string span(const std::string& from, const std::string& to) {
  return from == to ? from : from + " – " + to;
}

// The distinct non-empty values of a column over rows, in order.
std::vector<std::string> distinct(const std::vector<kb::Row>& rows, const std::string& column) {
  std::vector<std::string> values;
  for (const auto& row : rows) {
    const std::string& v = row.get(column);
    if (!v.empty() && std::find(values.begin(), values.end(), v) == values.end())
      values.push_back(v);
  }
  return values;
}

const std::vector<kb::Row>& section(const KbAnswer& answer, const std::string& table) {
  static const std::vector<kb::Row> none;
  for (const auto& s : answer.sections) {
    if (s.table == table) return s.rows;
  }
  return none;
}

void add(KbAnswer& answer, std::string status, std::string key, kb::MessageArgs args,
         int indent = 0) {
  answer.verdict.push_back({std::move(status), std::move(key), std::move(args), indent});
}

void add_cuda_range(const kb::CudaRangeForCc& range, const std::string& cc, KbAnswer& answer) {
  const std::string sm = sm_of(cc);
  if (range.from.empty()) {
    add(answer, "unknown", "kb.verdict.gpu.cuda_none", {{"sm", sm}});
  } else if (range.to_is_newest) {
    add(answer, "ok", "kb.verdict.gpu.cuda_open",
        {{"from", range.from}, {"to", range.to}, {"sm", sm}});
  } else if (!range.dropped_in.empty()) {
    add(answer, "no", "kb.verdict.gpu.cuda_closed",
        {{"from", range.from}, {"to", range.to}, {"sm", sm}, {"dropped", range.dropped_in}});
  } else {
    add(answer, "ok", "kb.verdict.gpu.cuda_range",
        {{"from", range.from}, {"to", range.to}, {"sm", sm}});
  }
  if (!range.deprecated_in.empty() && range.dropped_in.empty())
    add(answer, "info", "kb.verdict.gpu.cuda_deprecated",
        {{"cuda", range.deprecated_in}, {"sm", sm}}, 1);
}

void add_driver_branch(const kb::DriverBranchForCc& branch, const std::string& cc,
                       KbAnswer& answer) {
  if (!branch.row) {
    add(answer, "unknown", "kb.verdict.gpu.driver_unknown", {{"cc", cc}});
  } else if (branch.current) {
    add(answer, "ok", "kb.verdict.gpu.driver_current",
        {{"architecture", branch.row->get("architecture")}});
  } else {
    add(answer, "no", "kb.verdict.gpu.driver_last",
        {{"architecture", branch.row->get("architecture")}, {"branch", branch.last_branch}});
  }
}

void add_framework_on_cc(const frameworks::FrameworkOnCc& on, const std::string& cc,
                         KbAnswer& answer) {
  const std::string name(on.framework->display_name);
  const std::string sm = sm_of(cc);
  if (!on.has_builds) {
    add(answer, "unknown", "kb.verdict.framework.no_builds", {{"framework", name}}, 1);
    return;
  }
  if (on.running.empty()) {
    if (on.any_unknown && !on.refused_need_cc.empty())
      add(answer, "unknown", "kb.verdict.framework.unknown_others_cc",
          {{"framework", name}, {"min", on.refused_need_cc}}, 1);
    else if (on.any_unknown)
      add(answer, "unknown", "kb.verdict.framework.unknown", {{"framework", name}}, 1);
    else if (!on.refused_need_cc.empty())
      add(answer, "no", "kb.verdict.framework.none_cc",
          {{"framework", name}, {"cc", cc}, {"min", on.refused_need_cc}}, 1);
    else if (!on.refused_cuda.empty())
      add(answer, "no", "kb.verdict.framework.none_cuda",
          {{"framework", name}, {"cc", cc}, {"cuda", on.refused_cuda}, {"sm", sm}}, 1);
    else
      add(answer, "unknown", "kb.verdict.framework.unknown", {{"framework", name}}, 1);
    return;
  }
  const std::string releases = span(on.running.front(), on.running.back());
  kb::MessageArgs args = {{"framework", name}, {"releases", releases}, {"cc", cc}};
  if (on.newest_runs) {
    add(answer, "ok", "kb.verdict.framework.runs_newest", args, 1);
  } else if (!on.refused_need_cc.empty()) {
    args.push_back({"min", on.refused_need_cc});
    add(answer, "ok", "kb.verdict.framework.runs_until_cc", args, 1);
  } else if (!on.refused_cuda.empty()) {
    args.push_back({"cuda", on.refused_cuda});
    args.push_back({"sm", sm});
    add(answer, "ok", "kb.verdict.framework.runs_until_cuda", args, 1);
  } else {
    add(answer, "ok", "kb.verdict.framework.runs_newer_unknown", args, 1);
  }
}

// The builds of a release (a prefix: "2.1" holds 2.1.0 and the series 2.1).
bool of_release(const frameworks::Build& b, const std::string& v) {
  return v.empty() || kb::version_has_prefix(b.version, v) ||
         (b.series && kb::version_has_prefix(v, b.version));
}

// One line per build, the platforms of otherwise equal builds together.
void add_build_lines(const frameworks::Framework& f, const std::vector<frameworks::Build>& builds,
                     KbAnswer& answer) {
  std::map<std::vector<std::string>, std::vector<std::string>> platforms;
  std::vector<std::vector<std::string>> order;
  for (const auto& b : builds) {
    const std::string python = b.python_min || b.python_max
                                   ? b.python_min.value_or("") + " – " + b.python_max.value_or("")
                                   : std::string();
    std::vector<std::string> key = {b.version.empty() ? b.package : b.version,
                                    b.variant,
                                    b.cuda.value_or(""),
                                    b.cudnn.value_or(""),
                                    python,
                                    b.min_cc.value_or("")};
    if (!platforms.count(key)) order.push_back(key);
    platforms[key].push_back(b.platform);
  }
  for (const auto& key : order) {
    const std::string release = key[1].empty() ? key[0] : key[0] + " " + key[1];
    add(answer, "info", "kb.verdict.framework.build",
        {{"framework", std::string(f.display_name)},
         {"release", release},
         {"platforms", text::join(platforms[key], ", ")},
         {"cuda", key[2]},
         {"cudnn", key[3]},
         {"python", key[4]},
         {"min_cc", key[5]}});
  }
}

}  // namespace

Result<bool> add_framework_verdict(const kb::Kb& kb, const frameworks::Spec& spec,
                                   KbAnswer& answer) {
  const frameworks::Framework& f = *spec.framework;
  if (!f.builds) return true;
  auto all = f.builds(kb);
  if (!all) return all.error();
  const std::string v = spec.version.value_or("");
  std::vector<frameworks::Build> builds;
  std::copy_if(all->begin(), all->end(), std::back_inserter(builds),
               [&](const frameworks::Build& b) { return of_release(b, v); });
  if (!v.empty()) {
    add_build_lines(f, builds, answer);
    return true;
  }
  // No release asked for: how many the knowledge base knows, then the newest one's builds.
  std::set<std::string> releases;
  std::string newest;
  for (const auto& b : builds) {
    if (!version::is_dotted(b.version)) continue;
    releases.insert(b.version);
    if (newest.empty() || version::compare(b.version, newest) > 0) newest = b.version;
  }
  std::string oldest = newest;
  for (const auto& r : releases) {
    if (version::compare(r, oldest) < 0) oldest = r;
  }
  add(answer, "info", "kb.verdict.framework.summary",
      {{"framework", std::string(f.display_name)},
       {"count", std::to_string(releases.size())},
       {"releases", span(oldest, newest)}});
  std::vector<frameworks::Build> newest_builds;
  std::copy_if(builds.begin(), builds.end(), std::back_inserter(newest_builds),
               [&](const frameworks::Build& b) { return b.version == newest; });
  add_build_lines(f, newest_builds, answer);
  return true;
}

Result<bool> add_gpu_verdict(const kb::Kb& kb, KbAnswer& answer) {
  const std::vector<kb::Row>& rows = section(answer, "gpus");
  const std::string& cc = answer.compute_capability;
  if (!answer.candidates.empty()) {
    add(answer, "info", "kb.gpu.candidates",
        {{"count", std::to_string(answer.candidates.size())},
         {"names", text::join(answer.candidates, ", ")}});
    add(answer, cc.empty() ? "unknown" : "info",
        cc.empty() ? "kb.gpu.candidates_differ" : "kb.gpu.candidates_share", {{"cc", cc}}, 1);
  } else {
    // One message per way of matching, so that each language words it whole.
    add(answer, "info", "kb.verdict.gpu.identity." + answer.matched_by,
        {{"name", text::join(answer.matched, ", ")}});
  }
  if (cc.empty()) {
    if (answer.candidates.empty()) add(answer, "unknown", "kb.verdict.gpu.cc_unknown", {});
    return true;
  }
  add(answer, "info", "kb.verdict.gpu.cc",
      {{"cc", cc}, {"architecture", text::join(distinct(rows, "architecture"), ", ")}});
  auto range = kb::cuda_range_for_cc(kb, cc);
  if (!range) return range.error();
  add_cuda_range(*range, cc, answer);
  auto branch = kb::driver_branch_for_cc(kb, cc);
  if (!branch) return branch.error();
  add_driver_branch(*branch, cc, answer);
  if (branch->row) answer.sections.push_back({"gpu_arch_drivers", {*branch->row}});
  add(answer, "info", "kb.verdict.gpu.frameworks", {{"cc", cc}});
  for (const frameworks::Framework* f : frameworks::all()) {
    auto on = frameworks::framework_on_cc(*f, kb, cc, *range);
    if (!on) return on.error();
    add_framework_on_cc(*on, cc, answer);
  }
  return true;
}

void add_cuda_verdict(KbAnswer& answer) {
  for (const auto& row : section(answer, "cuda_releases")) {
    add(answer, "info", "kb.verdict.cuda.release",
        {{"version", row.get("version").empty() ? row.get("label") : row.get("version")},
         {"date", row.get("release_date")},
         {"linux", row.get("min_driver_linux")},
         {"windows", row.get("min_driver_windows")}});
  }
  for (const auto& row : section(answer, "cuda_minor_compat")) {
    add(answer, "info", "kb.verdict.cuda.minor_compat",
        {{"major", row.get("cuda_major")},
         {"driver", row.get("min_driver")},
         {"linux", row.get("min_driver_linux")},
         {"windows", row.get("min_driver_windows")}});
  }
  for (const auto& row : section(answer, "cuda_arch_support")) {
    kb::MessageArgs args = {{"cuda", span(row.get("cuda_from"), row.get("cuda_to"))},
                            {"min", sm_of(row.get("min_sm"))}};
    if (row.get("max_sm").empty()) {
      add(answer, "info", "kb.verdict.cuda.targets_from", args);
    } else {
      args.push_back({"max", sm_of(row.get("max_sm"))});
      add(answer, "info", "kb.verdict.cuda.targets", args);
    }
    if (!row.get("deprecated_sm").empty())
      add(answer, "info", "kb.verdict.cuda.deprecates",
          {{"ccs", text::join(text::split(row.get("deprecated_sm"), ';'), ", ")}}, 1);
  }
  const auto& libraries = section(answer, "library_names");
  std::vector<std::string> names = distinct(libraries, "linux_soname");
  for (const auto& dll : distinct(libraries, "windows_dll"))
    names.push_back(dll);
  if (!names.empty())
    add(answer, "info", "kb.verdict.cuda.libraries", {{"names", text::join(names, ", ")}});
}

void add_cudnn_verdict(KbAnswer& answer) {
  for (const auto& row : section(answer, "cudnn_releases")) {
    add(answer, "info", "kb.verdict.cudnn.release",
        {{"cudnn", span(row.get("cudnn_from"), row.get("cudnn_to"))},
         {"cuda", text::join(text::split(row.get("cuda_versions"), ';'), ", ")},
         {"linux", row.get("linux_soname")},
         {"windows", row.get("windows_dll")}});
  }
}

}  // namespace gpuvet::cli
