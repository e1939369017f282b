// Solving a plan: every known build of the framework is checked against the request (platform,
// Python, compute capability, driver); the feasible ones are ranked newest first; when the wish
// is infeasible the blockers say why and the nearest feasible builds are offered instead.
#include <algorithm>
#include <set>

#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/cc_support.hpp"
#include "frameworks/framework.hpp"
#include "kb/driver_rule.hpp"
#include "kb/queries.hpp"
#include "plan/cuda_releases.hpp"
#include "plan/plan.hpp"
#include "plan/steps.hpp"

namespace gpuvet::plan {

namespace {

constexpr size_t kMaxOptions = 3;

struct Evaluation {
  std::vector<Blocker> blockers;
  std::vector<std::string> notes;
  int risks = 0;  // things that may still fail: only PTX JIT for this GPU, minor compatibility
  bool ptx_only = false;              // the GPU is reached only through PTX JIT
  bool minor_compat = false;          // the driver is below the build's CUDA release driver
  int unknown_facts = 0;              // facts the KB lacks (a minimum driver): ranks lower
  std::vector<std::string> unknowns;  // what keeps the fit from being verified (arch lists)
  std::optional<std::string> min_driver;
  std::optional<std::string> driver_floor;
};

class Solver {
 public:
  Solver(const Request& request, const kb::Kb& kb, const kb::Messages& messages)
      : request_(request), kb_(kb), messages_(messages) {}

  Result<Plan> solve();

 private:
  std::string text(std::string_view key, const kb::MessageArgs& args = {}) const {
    return messages_.text(key, args);
  }
  std::string kb_platform(const std::string& os) const {
    return os == "windows" ? "windows" : "linux";
  }
  bool matches_version(const Build& b) const;
  Result<std::vector<Build>> wished_builds() const;
  Result<Plan> elsewhere(Plan plan, const std::vector<Build>& known);
  Result<bool> check_platform_support(const std::string& os, std::vector<Blocker>& blockers);
  Result<Evaluation> evaluate(const Build& b, const Request& r) const;
  Result<bool> check_driver(const Build& b, const Request& r, Evaluation& e) const;
  Result<bool> check_compute_capability(const Build& b, const Request& r, Evaluation& e) const;
  void check_python(const Build& b, const Request& r, Evaluation& e) const;
  Result<Option> make_option(const Build& b, const Request& r, const Evaluation& e,
                             bool alternative) const;
  // The feasible builds for a request, best first.
  Result<std::vector<Option>> feasible(const std::vector<Build>& builds, const Request& r,
                                       size_t limit) const;
  Result<bool> add_alternatives(Plan& plan, const std::vector<Build>& on_platform,
                                const Evaluation& best);

  Request request_;
  const kb::Kb& kb_;
  const kb::Messages& messages_;
  std::vector<Build> all_;
};

bool Solver::matches_version(const Build& b) const {
  if (request_.cuda && (!b.cuda || !kb::version_has_prefix(cuda_minor(*b.cuda), *request_.cuda))) {
    return false;
  }
  if (!request_.version) return true;
  const std::string& wish = *request_.version;
  return kb::version_has_prefix(b.version, wish) ||
         (b.series && kb::version_has_prefix(wish, b.version));
}

// The same rule as check's driver.too_old (kb/driver_rule.hpp). WSL2 runs on the Windows driver.
Result<bool> Solver::check_driver(const Build& b, const Request& r, Evaluation& e) const {
  kb::DriverRequirement need;
  if (b.min_driver_override) {
    need.release_min = need.compat_floor = b.min_driver_override;
  } else if (b.cuda) {
    auto found = kb::driver_requirement(kb_, cuda_minor(*b.cuda), r.os != "linux");
    if (!found) return found.error();
    need = std::move(*found);
  }
  e.min_driver = need.release_min ? need.release_min : need.oldest();
  e.driver_floor = need.oldest();
  if (!e.min_driver) {
    ++e.unknown_facts;
    e.notes.push_back(text("plan.note.min_driver_unknown", {{"os", r.os}}));
    return true;
  }
  if (!r.driver) {
    e.notes.push_back(text("plan.note.driver_unknown", {{"min", *e.min_driver}}));
    return true;
  }
  const std::string cuda = b.cuda ? cuda_minor(*b.cuda) : text("plan.text.unknown");
  switch (kb::driver_fit(need, *r.driver)) {
    case kb::DriverFit::too_old:
      e.blockers.push_back(
          {"driver.too_old",
           text("plan.blocker.driver_too_old",
                {{"driver", *r.driver}, {"min", *e.driver_floor}, {"cuda", cuda}})});
      break;
    case kb::DriverFit::minor_compat:
      ++e.risks;
      e.minor_compat = true;
      e.notes.push_back(text("plan.note.minor_compat",
                             {{"driver", *r.driver}, {"min", *e.min_driver}, {"cuda", cuda}}));
      break;
    case kb::DriverFit::fits:
    case kb::DriverFit::unknown:
      break;
  }
  return true;
}

// Code for the GPU: the build's compiled architectures when the KB lists them (SASS of the GPU's
// major at or below its minor, or PTX at or below it); without the list, the build's lowest
// architecture and its CUDA's newest bound it, and what they cannot settle is an unknown that
// makes the option unverified, never quietly feasible.
Result<bool> Solver::check_compute_capability(const Build& b, const Request& r,
                                              Evaluation& e) const {
  if (!r.compute_capability) {
    e.notes.push_back(text("plan.note.cc_unknown"));
    return true;
  }
  const std::string& cc = *r.compute_capability;
  if (b.min_cc && older(cc, *b.min_cc)) {
    e.blockers.push_back({"gpu.compute_capability_unsupported",
                          text("plan.blocker.cc_below_build", {{"cc", cc}, {"min", *b.min_cc}})});
    return true;
  }
  if (!b.arch_list.empty()) {
    if (!frameworks::arch_list_runs_on(b.arch_list, cc)) {
      e.blockers.push_back({"gpu.compute_capability_unsupported",
                            text("plan.blocker.cc_no_kernels",
                                 {{"cc", cc}, {"arches", text::join(b.arch_list, ", ")}})});
    } else if (!frameworks::arch_list_has_sass_for(b.arch_list, cc)) {
      // Only PTX reaches this GPU: the driver JIT-compiles it at first use, slowly, and only a
      // driver at least as new as the build's CUDA can.
      ++e.risks;
      e.ptx_only = true;
      e.notes.push_back(
          text("plan.note.ptx_only", {{"cc", cc}, {"arches", text::join(b.arch_list, ", ")}}));
    }
    return true;
  }
  std::vector<std::string> label = {b.package.empty() ? b.framework : b.package};
  for (const auto& part : {b.version, b.variant}) {
    if (!part.empty()) label.push_back(part);
  }
  const std::string build = text::join(label, " ");
  if (!b.cuda) {
    e.unknowns.push_back(text("plan.unknown.arch_list", {{"build", build}, {"cc", cc}}));
    return true;
  }
  const std::string cuda = cuda_minor(*b.cuda);
  auto support = kb::rows_for_range(kb_, "cuda_arch_support", "cuda_from", "cuda_to", cuda);
  if (!support) return support.error();
  const std::string min_sm = support->empty() ? "" : support->front().get("min_sm");
  const std::string max_sm = support->empty() ? "" : support->front().get("max_sm");
  if (!min_sm.empty() && older(cc, min_sm)) {
    e.blockers.push_back(
        {"gpu.compute_capability_unsupported",
         text("plan.blocker.cc_below_cuda", {{"cc", cc}, {"cuda", cuda}, {"min", min_sm}})});
  } else if (!version::is_dotted(max_sm) ||
             version::compare(version::major(max_sm), version::major(cc)) < 0) {
    // Code for the CUDA's newest X.y runs on X.z with z >= y: only a newer major needs PTX.
    // A CUDA older than the GPU's architecture compiles no code for it: only PTX of an older
    // architecture could run, and the KB does not say whether the build ships any.
    e.unknowns.push_back(
        text("plan.unknown.cc_newer_than_cuda", {{"cc", cc}, {"cuda", cuda}, {"build", build}}));
  } else if (!b.min_cc) {
    e.unknowns.push_back(text("plan.unknown.arch_list", {{"build", build}, {"cc", cc}}));
  }
  return true;
}

void Solver::check_python(const Build& b, const Request& r, Evaluation& e) const {
  if (!b.python_min || !b.python_max) {
    ++e.unknown_facts;
    e.notes.push_back(text("plan.note.python_range_unknown"));
    return;
  }
  if (!r.python) return;
  const std::string python = version::prefix(*r.python, 2);
  if (older(python, *b.python_min) || older(*b.python_max, python)) {
    e.blockers.push_back(
        {"python.version_unsupported",
         text("plan.blocker.python",
              {{"python", python}, {"min", *b.python_min}, {"max", *b.python_max}})});
  }
}

Result<Evaluation> Solver::evaluate(const Build& b, const Request& r) const {
  Evaluation e;
  if (auto ok = check_compute_capability(b, r, e); !ok) return ok.error();
  if (auto ok = check_driver(b, r, e); !ok) return ok.error();
  check_python(b, r, e);
  // Minor version compatibility does not JIT-compile PTX (CUDA Compatibility, "Minor Version
  // Compatibility" limitations): a GPU reached only through PTX needs the release's own driver.
  if (e.ptx_only && e.minor_compat && e.min_driver && r.driver) {
    auto rule = kb::rows_where(kb_, "cuda_compat_notes", "topic", "ptx_jit_needs_newer_driver");
    if (!rule) return rule.error();
    const std::string source = rule->empty() ? "" : rule->front().get("source");
    e.blockers.push_back(
        {"driver.too_old",
         text("plan.blocker.ptx_needs_driver",
              {{"driver", *r.driver}, {"min", *e.min_driver}, {"source", source}})});
  }
  return e;
}

Result<Option> Solver::make_option(const Build& b, const Request& r, const Evaluation& e,
                                   bool alternative) const {
  Option o;
  o.platform = r.os;
  o.build = b;
  if (b.series && r.version && kb::version_has_prefix(*r.version, b.version)) {
    o.build.version = *r.version;  // "torch==2.1.2": the exact release wished, of a known series
    o.build.series = text::split(*r.version, '.').size() < 3;
  }
  o.min_driver = e.min_driver;
  o.driver_floor = e.driver_floor;
  o.notes = e.notes;
  o.alternative = alternative;
  o.verified = e.unknowns.empty();
  o.unknowns = e.unknowns;
  if (auto steps = add_install_steps(o, r, kb_, messages_); !steps) return steps.error();
  return o;
}

// Verified options first, then those whose facts (minimum driver, Python range) are all known;
// then the newest release; within a release the build with fewer risks (minor-version
// compatibility).
Result<std::vector<Option>> Solver::feasible(const std::vector<Build>& builds, const Request& r,
                                             size_t limit) const {
  std::vector<std::pair<const Build*, Evaluation>> fitting;
  for (const auto& b : builds) {
    auto e = evaluate(b, r);
    if (!e) return e.error();
    if (e->blockers.empty()) fitting.emplace_back(&b, std::move(*e));
  }
  const auto release = [](const Build& b) {
    return version::is_dotted(b.version) ? b.version : std::string("0");
  };
  std::stable_sort(fitting.begin(), fitting.end(), [&](const auto& a, const auto& b) {
    const bool a_verified = a.second.unknowns.empty();
    const bool b_verified = b.second.unknowns.empty();
    if (a_verified != b_verified) return a_verified;
    if (a.second.unknown_facts != b.second.unknown_facts) {
      return a.second.unknown_facts < b.second.unknown_facts;
    }
    const int newer = version::compare(release(*a.first), release(*b.first));
    if (newer != 0) return newer > 0;
    return a.second.risks < b.second.risks;
  });
  std::vector<Option> out;
  for (const auto& [build, evaluation] : fitting) {
    if (out.size() >= limit) break;
    auto option = make_option(*build, r, evaluation, false);
    if (!option) return option.error();
    out.push_back(std::move(*option));
  }
  return out;
}

Result<bool> Solver::check_platform_support(const std::string& os, std::vector<Blocker>& blockers) {
  auto limits = kb::rows_if(kb_, "framework_platform_limits", [&](const kb::Row& row) {
    return row.get("family") == request_.framework && row.get("platform") == os;
  });
  if (!limits) return limits.error();
  std::string why;
  if (!limits->empty()) {
    why = text("plan.blocker.windows_native_until", {{"framework", request_.framework},
                                                     {"version", request_.version.value_or("")},
                                                     {"until", limits->front().get("gpu_until")}});
  } else {
    why = text("plan.blocker.no_platform_build", {{"framework", request_.framework}, {"os", os}});
  }
  blockers.push_back({"framework.windows_native_gpu_unsupported", why});
  return true;
}

Result<bool> Solver::add_alternatives(Plan& plan, const std::vector<Build>& on_platform,
                                      const Evaluation& best) {
  const auto has = [&](const std::string& id) {
    return std::any_of(best.blockers.begin(), best.blockers.end(),
                       [&](const Blocker& b) { return b.id == id; });
  };
  const auto add = [&](Option o) {
    o.alternative = true;
    const bool seen = std::any_of(plan.options.begin(), plan.options.end(), [&](const Option& x) {
      return x.platform == o.platform && x.build.version == o.build.version &&
             x.build.variant == o.build.variant && x.build.cuda == o.build.cuda;
    });
    if (!seen && plan.options.size() < kMaxOptions) plan.options.push_back(std::move(o));
  };
  if (!on_platform.empty()) {
    const Build& wished = on_platform.front();
    // Only the driver or only Python is in the way: the same build, once that is changed.
    if (best.blockers.size() == 1 && has("driver.too_old")) {
      Evaluation e = best;
      e.blockers.clear();
      e.notes.insert(e.notes.begin(),
                     text("plan.note.after_driver_update", {{"min", *best.min_driver}}));
      auto o = make_option(wished, request_, e, true);
      if (!o) return o.error();
      add(std::move(*o));
    }
    if (best.blockers.size() == 1 && has("python.version_unsupported")) {
      Request in_range = request_;
      in_range.python.reset();  // the environment is made with a Python of the range
      auto e = evaluate(wished, in_range);
      if (!e) return e.error();
      if (e->blockers.empty()) {
        e->notes.insert(e->notes.begin(),
                        text("plan.note.new_python",
                             {{"min", *wished.python_min}, {"max", *wished.python_max}}));
        auto o = make_option(wished, in_range, *e, true);
        if (!o) return o.error();
        add(std::move(*o));
      }
    }
  }
  // The newest build that fits this machine as it is.
  std::vector<Build> same_platform;
  for (const auto& b : all_) {
    if (b.platform == kb_platform(request_.os) && b.cuda) same_platform.push_back(b);
  }
  auto newest = feasible(same_platform, request_, 1);
  if (!newest) return newest.error();
  for (auto& o : *newest)
    add(std::move(o));
  return true;
}

// The builds of the wished version (and CUDA), or why there are none: an unknown version, or a
// version the KB knows without its CUDA. gpuvet does not guess.
Result<std::vector<Build>> Solver::wished_builds() const {
  std::vector<Build> matching;
  for (const auto& b : all_) {
    if (matches_version(b)) matching.push_back(b);
  }
  if (matching.empty()) {
    std::set<std::string, bool (*)(const std::string&, const std::string&)> versions(
        [](const std::string& a, const std::string& b) { return older(a, b); });
    for (const auto& b : all_)
      versions.insert(b.version);
    if (request_.cuda) {
      return make_error(
          text("plan.error.no_cuda_build", {{"framework", request_.framework},
                                            {"version", request_.version.value_or("")},
                                            {"cuda", *request_.cuda}}));
    }
    return make_error(text("plan.error.unknown_version",
                           {{"framework", request_.framework},
                            {"version", request_.version.value_or("")},
                            {"oldest", versions.empty() ? "?" : *versions.begin()},
                            {"newest", versions.empty() ? "?" : *versions.rbegin()}}));
  }
  std::vector<Build> known;
  for (const auto& b : matching) {
    if (b.cuda) known.push_back(b);
  }
  if (known.empty()) {
    return make_error(text("plan.error.cuda_unknown",
                           {{"framework", request_.framework}, {"version", matching[0].version}}));
  }
  return known;
}

// No build for the platform asked: why, and on Windows the same version under WSL2 (which runs
// the Linux builds with the Windows driver).
Result<Plan> Solver::elsewhere(Plan plan, const std::vector<Build>& known) {
  if (auto ok = check_platform_support(kb_platform(request_.os), plan.blockers); !ok) {
    return ok.error();
  }
  if (request_.os == "windows") {
    Request wsl = request_;
    wsl.os = "wsl2";
    std::vector<Build> linux;
    for (const auto& b : known) {
      if (b.platform == "linux") linux.push_back(b);
    }
    Solver under_wsl(wsl, kb_, messages_);
    under_wsl.all_ = all_;
    auto options = under_wsl.feasible(linux, wsl, 1);
    if (!options) return options.error();
    for (auto& o : *options) {
      o.alternative = true;
      plan.options.push_back(std::move(o));
    }
  }
  if (auto ok = add_alternatives(plan, {}, Evaluation{}); !ok) return ok.error();
  return plan;
}

Result<Plan> Solver::solve() {
  auto builds = known_builds(kb_, request_.framework);
  if (!builds) {
    return make_error(text("plan.error.no_table", {{"framework", request_.framework}}));
  }
  all_ = std::move(*builds);
  auto known = wished_builds();
  if (!known) return known.error();
  std::vector<Build> on_platform;
  for (const auto& b : *known) {
    if (b.platform == kb_platform(request_.os)) on_platform.push_back(b);
  }
  Plan plan;
  plan.request = request_;
  if (on_platform.empty()) return elsewhere(std::move(plan), *known);

  auto options = feasible(on_platform, request_, kMaxOptions);
  if (!options) return options.error();
  if (!options->empty()) {
    plan.outcome = options->front().verified ? Outcome::feasible : Outcome::unverified;
    plan.feasible = plan.outcome == Outcome::feasible;
    plan.options = std::move(*options);
    return plan;
  }
  auto best = evaluate(on_platform.front(), request_);
  if (!best) return best.error();
  plan.blockers = best->blockers;
  if (request_.version) {
    if (auto ok = add_alternatives(plan, on_platform, *best); !ok) return ok.error();
  }
  return plan;
}

}  // namespace

Result<Plan> make_plan(const Request& request, const kb::Kb& kb, const kb::Messages& messages) {
  Solver solver(request, kb, messages);
  return solver.solve();
}

}  // namespace gpuvet::plan
