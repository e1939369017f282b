// Compatibility checks over Facts + the knowledge base: is the driver new enough for each CUDA
// the machine's toolkits and framework builds use, can the GPU run each build's kernels, and does
// each build get the CUDA runtime and cuDNN it was made for.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>

#include "checks/checks.hpp"
#include "checks/load_rules.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "kb/driver_rule.hpp"
#include "kb/queries.hpp"

namespace gpuvet::checks {

namespace {

// ---- driver.too_old --------------------------------------------------------------------------

struct CudaUser {
  std::string cuda;
  std::vector<std::string> who;    // "toolkit 12.4.1 at /usr/local/cuda-12.4", "torch 2.1.0 in ..."
  std::vector<std::string> paths;  // the toolkits' roots and the environments
  std::vector<const FrameworkFact*> builds;
};

// "sm_86" / "compute_80" / "sm_90a" as {major, minor, ptx, specific}; nullopt for anything else.
struct Target {
  int major = 0;
  int minor = 0;
  bool ptx = false;
  // sm_90a, compute_90a: architecture-specific code runs on that one architecture only.
  bool specific = false;
};
std::optional<Target> parse_target(const std::string& target) {
  const bool ptx = target.starts_with("compute_");
  if (!ptx && !target.starts_with("sm_")) return std::nullopt;
  std::string digits = target.substr(ptx ? 8 : 3);
  const bool specific = digits.ends_with("a");
  while (!digits.empty() && !std::isdigit(static_cast<unsigned char>(digits.back())))
    digits.pop_back();  // sm_90a, sm_100f
  if (digits.size() < 2 || !text::is_digits(digits)) return std::nullopt;
  return Target{std::atoi(digits.substr(0, digits.size() - 1).c_str()), digits.back() - '0', ptx,
                specific};
}

// "8.6" as {8, 6}.
std::optional<Target> parse_cc(const std::string& cc) {
  const auto parts = text::split(cc, '.');
  if (parts.size() != 2 || !text::is_digits(parts[0]) || !text::is_digits(parts[1])) {
    return std::nullopt;
  }
  return Target{std::atoi(parts[0].c_str()), std::atoi(parts[1].c_str()), false, false};
}

bool at_or_below(const Target& t, const Target& gpu) {
  if (t.specific) return t.major == gpu.major && t.minor == gpu.minor;
  return t.major < gpu.major || (t.major == gpu.major && t.minor <= gpu.minor);
}

// A cubin for X.y runs on X.z with z >= y (the architecture-specific one on X.y only).
bool cubin_runs(const Target& t, const Target& gpu) {
  return t.major == gpu.major && (t.specific ? t.minor == gpu.minor : t.minor <= gpu.minor);
}

// What a build carries for the GPU, per file: read from the fat binaries of its own libraries
// where any could be read, else the list its build declares (build_info.py, version.py).
struct CodeList {
  std::string file;
  std::vector<std::string> sass;  // from the binaries; empty for a declared list
  std::vector<std::string> ptx;   // from the binaries
  std::vector<std::string> declared;
  bool from_binaries() const { return declared.empty(); }
  std::vector<std::string> targets() const {
    if (!from_binaries()) return declared;
    std::vector<std::string> all = sass;
    all.insert(all.end(), ptx.begin(), ptx.end());
    return all;
  }
};

std::vector<CodeList> code_lists(const FrameworkFact& fw) {
  std::vector<CodeList> lists;
  const frameworks::Framework* framework = frameworks::of(fw);
  const bool binaries_decide = !framework || !framework->compiles_kernels_at_run_time;
  for (const auto& code : fw.gpu_code) {
    if (!code.error && binaries_decide) lists.push_back({code.file, code.sass, code.ptx, {}});
  }
  if (lists.empty() && !fw.compute_capabilities.empty()) {
    lists.push_back({fw.declared_by.value_or("?"), {}, {}, fw.compute_capabilities});
  }
  return lists;
}

// Whether a list reaches a GPU only through PTX: no cubin of its major at or below its minor,
// but PTX at or below it.
bool reached_only_by_ptx(const CodeList& list, const std::string& cc) {
  const auto gpu = parse_cc(cc);
  if (!gpu) return false;
  bool cubin = false, ptx = false;
  for (const auto& target : list.targets()) {
    const auto t = parse_target(target);
    if (!t) continue;
    if (t->ptx && at_or_below(*t, *gpu)) ptx = true;
    // TensorFlow's declared compute_XY embeds SASS for XY as well as PTX (.bazelrc: "compute_XY
    // enables PTX embedding in addition to SASS"); a binary's PTX entry is PTX alone.
    if ((!t->ptx || !list.from_binaries()) && cubin_runs(*t, *gpu)) cubin = true;
  }
  return ptx && !cubin;
}

// The first of a build's lists that reaches the GPU only through PTX; nullptr when none does.
const CodeList* ptx_only_list(const std::vector<CodeList>& lists, const std::string& cc) {
  for (const auto& list : lists) {
    if (reached_only_by_ptx(list, cc)) return &list;
  }
  return nullptr;
}

// Users grouped by CUDA major.minor (a toolkit 12.1.105 and a build for 12.1 are one question);
// each group asks with its most specific version.
std::vector<CudaUser> cuda_users(const CheckContext& context) {
  const Facts& f = context.facts();
  std::map<std::string, CudaUser> by_cuda;
  auto add = [&](const std::string& cuda, std::string who, const std::string& path,
                 const FrameworkFact* build) {
    // A wheel's version is its component's (cudart 12.1.105), not a toolkit release: ask for
    // the major.minor, whose GA driver is the lowest any of its releases needs.
    auto& user = by_cuda[version::prefix(cuda, 2)];
    if (build) user.builds.push_back(build);
    user.cuda = version::prefix(cuda, 2);
    user.who.push_back(std::move(who));
    if (std::find(user.paths.begin(), user.paths.end(), path) == user.paths.end()) {
      user.paths.push_back(path);
    }
  };
  for (const auto& t : f.cuda_toolkits) {
    if (!t.version || !version::is_dotted(*t.version)) continue;
    add(*t.version,
        context.text("compat.user.toolkit", {{"version", *t.version}, {"root", t.root}}), t.root,
        nullptr);
  }
  for (const auto& env : f.python_envs) {
    for (const auto& fw : env.frameworks) {
      if (fw.gpu_build != true || !fw.cuda || !version::is_dotted(*fw.cuda)) continue;
      add(*fw.cuda,
          context.text("compat.user.framework", {{"package", fw.package},
                                                 {"version", fw.version.value_or("?")},
                                                 {"cuda", *fw.cuda},
                                                 {"env", env.path}}),
          env.path, &fw);
    }
  }
  std::vector<CudaUser> out;
  for (auto& [cuda, user] : by_cuda)
    out.push_back(std::move(user));
  return out;
}

}  // namespace

Result<bool> check_driver_too_old(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (!f.driver || !f.driver->installed.value_or(false) || !f.driver->version ||
      !version::is_dotted(*f.driver->version)) {
    return true;
  }
  const std::string& driver = *f.driver->version;
  const bool windows = f.os.family == "windows";
  const std::string platform = windows ? "Windows" : "Linux";
  for (const auto& user : cuda_users(context)) {
    auto need = kb::driver_requirement(context.kb(), user.cuda, windows);
    if (!need) return need.error();
    // CUDA 11 and later run on an older driver of the same major (minor-version compatibility),
    // with limits; before 11, and below the major's floor, the runtime does not load.
    const kb::DriverFit fit = kb::driver_fit(*need, driver);
    if (fit == kb::DriverFit::fits || fit == kb::DriverFit::unknown) continue;
    // Minor version compatibility does not JIT-compile PTX: a build that reaches this machine's
    // GPU only through PTX needs the release's own driver (data/cuda_compat_notes.csv).
    std::vector<std::string> ptx_only;
    if (fit == kb::DriverFit::minor_compat) {
      for (const auto* build : user.builds) {
        const auto lists = code_lists(*build);
        for (const auto& gpu : f.gpus) {
          if (!gpu.compute_capability) continue;
          if (const CodeList* list = ptx_only_list(lists, *gpu.compute_capability)) {
            ptx_only.push_back(context.text(
                "driver.too_old.ptx_only",
                {{"package", build->package},
                 {"version", build->version.value_or(context.text("report.unknown_value"))},
                 {"cc", *gpu.compute_capability},
                 {"targets", text::join(list->targets(), ", ")}}));
          }
        }
      }
    }
    const bool fails = fit == kb::DriverFit::too_old || !ptx_only.empty();
    const std::string unknown = context.text("report.unknown_value");
    const kb::MessageArgs args = {
        {"driver", driver},
        {"cuda", user.cuda},
        {"min",
         (fit == kb::DriverFit::too_old ? need->oldest() : need->release_min).value_or(unknown)},
        {"release_min", need->release_min.value_or(unknown)},
        {"platform", platform}};
    auto finding =
        context.finding("driver.too_old", fails ? Severity::error : Severity::warning,
                        fails ? "driver.too_old.title" : "driver.too_old.title_compat", args);
    if (!finding) return finding.error();
    for (const auto& who : user.who)
      finding->evidence.push_back(who);
    if (need->release_min) {
      finding->evidence.push_back(
          context.text("driver.too_old.release", {{"cuda", user.cuda},
                                                  {"label", need->release_label},
                                                  {"min", *need->release_min},
                                                  {"platform", platform},
                                                  {"source", need->release_source}}));
    }
    if (need->compat_floor) {
      finding->evidence.push_back(
          context.text("driver.too_old.compat", {{"major", version::major(user.cuda)},
                                                 {"min", *need->compat_floor},
                                                 {"platform", platform},
                                                 {"source", need->compat_source}}));
    }
    for (auto& line : ptx_only)
      finding->evidence.push_back(std::move(line));
    if (!fails) finding->evidence.push_back(context.text("driver.too_old.compat_limits"));
    finding->fix.push_back(context.text("driver.too_old.fix", args));
    finding->affects = user.paths;
    findings.push_back(std::move(*finding));
  }
  return true;
}

namespace {

// A toolkit the probes found whose version is the framework's CUDA (major.minor).
const CudaToolkitFact* toolkit_of(const Facts& facts, const std::optional<std::string>& cuda) {
  if (!cuda) return nullptr;
  const std::string wanted = version::prefix(*cuda, 2);
  for (const auto& toolkit : facts.cuda_toolkits) {
    if (toolkit.version && version::prefix(*toolkit.version, 2) == wanted) return &toolkit;
  }
  return nullptr;
}

}  // namespace

// ---- gpu.compute_capability_unsupported ------------------------------------------------------

namespace {

// Whether a list's targets run on a GPU: a cubin (sm_XY) runs on the same major with an equal or
// higher minor (sm_XYa on X.Y only); PTX (compute_XY) is JIT-compiled for any GPU at or above XY.
// Source: CUDA C Programming Guide, "Binary Compatibility" and "PTX Compatibility"; nvcc's
// documentation of architecture-specific (a) and family-specific (f) targets.
std::optional<bool> runs_on(const std::vector<std::string>& targets, const std::string& cc) {
  const auto gpu = parse_cc(cc);
  if (!gpu) return std::nullopt;
  std::optional<bool> known;
  for (const auto& target : targets) {
    const auto t = parse_target(target);
    if (!t) continue;
    known = known.value_or(false);
    if (t->ptx && at_or_below(*t, *gpu)) return true;
    if (!t->ptx && cubin_runs(*t, *gpu)) return true;
  }
  return known;
}

// Why a list does not run on the GPU, as evidence.
std::string not_running(const CodeList& list, const CheckContext& context, const std::string& cc) {
  if (!list.from_binaries()) {
    return context.text("compat.cc.compiled",
                        {{"targets", text::join(list.declared, ", ")}, {"file", list.file}});
  }
  const std::string sass = text::join(list.sass, " ");
  const std::string ptx = text::join(list.ptx, " ");
  const std::string code =
      list.ptx.empty()    ? context.text("compat.cc.code_no_ptx", {{"sass", sass}})
      : list.sass.empty() ? context.text("compat.cc.code_no_sass", {{"ptx", ptx}})
                          : context.text("compat.cc.code", {{"sass", sass}, {"ptx", ptx}});
  return context.text(
      "compat.cc.binary",
      {{"file", list.file}, {"code", code}, {"sm", text::replace_all(cc, ".", "")}});
}

// The minimum compute capability of the framework's official builds, from data/framework_min_cc
// (families: tensorflow, torch-cu121 ..., jax-cuda12 ...).
Result<std::optional<kb::Row>> family_minimum(const kb::Kb& kb, const FrameworkFact& fw) {
  const frameworks::Framework* framework = frameworks::of(fw);
  const std::string family =
      framework && framework->min_cc_family ? framework->min_cc_family(fw) : fw.name;
  auto rows = kb::rows_where(kb, "framework_min_cc", "family", family);
  if (!rows) return rows.error();
  const std::string version = fw.version ? text::split(*fw.version, '+').front() : "";
  for (const auto& row : *rows) {
    const std::string& from = row.get("version_from");
    const std::string& to = row.get("version_to");
    if (!version::is_dotted(row.get("min_cc"))) continue;
    if (from.empty() && to.empty()) return std::optional<kb::Row>(row);
    if (version.empty() || !version::is_dotted(from)) continue;
    const std::string cut = version::prefix(version, text::split(from, '.').size());
    if (version::compare(cut, from) < 0) continue;
    if (version::is_dotted(to) && version::compare(cut, to) > 0) continue;
    return std::optional<kb::Row>(row);
  }
  return std::optional<kb::Row>();
}

}  // namespace

Result<bool> check_compute_capability(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  for (const auto& gpu : f.gpus) {
    if (!gpu.compute_capability || !version::is_dotted(*gpu.compute_capability)) continue;
    const std::string& cc = *gpu.compute_capability;
    const std::string gpu_name = gpu.name.value_or("GPU " + std::to_string(gpu.index));
    for (const auto& env : f.python_envs) {
      for (const auto& fw : env.frameworks) {
        if (fw.gpu_build != true) continue;
        const kb::MessageArgs args = {
            {"gpu", gpu_name},       {"cc", cc},
            {"package", fw.package}, {"version", fw.version.value_or("?")},
            {"env", env.path},       {"family", fw.name}};
        std::vector<std::string> evidence;
        const auto lists = code_lists(fw);
        const bool from_binaries = !lists.empty() && lists.front().from_binaries();
        for (const auto& list : lists) {
          if (runs_on(list.targets(), cc) == false) {
            evidence.push_back(not_running(list, context, cc));
          }
        }
        // What the files hold is the answer; the tables only stand in when none could be read.
        if (!from_binaries) {
          auto minimum = family_minimum(context.kb(), fw);
          if (!minimum) return minimum.error();
          if (*minimum && version::compare(cc, (*minimum)->get("min_cc")) < 0) {
            evidence.push_back(
                context.text("compat.cc.minimum", {{"family", (*minimum)->get("family")},
                                                   {"min", (*minimum)->get("min_cc")},
                                                   {"source", (*minimum)->get("source")}}));
          }
        }
        if (evidence.empty()) continue;
        evidence.push_back(
            context.text(from_binaries ? "compat.cc.from_binaries" : "compat.cc.from_tables"));
        auto finding = context.finding("gpu.compute_capability_unsupported", Severity::error,
                                       "compat.cc.title", args);
        if (!finding) return finding.error();
        finding->evidence = std::move(evidence);
        finding->fix.push_back(context.text("compat.cc.fix", args));
        finding->affects.push_back(env.path);
        findings.push_back(std::move(*finding));
      }
    }
    // A toolkit that dropped this GPU's architecture: nvcc, and frameworks built from source,
    // cannot build for it at all.
    for (const auto& t : f.cuda_toolkits) {
      if (!t.version || t.source == "pip" || t.source == "conda") continue;
      auto rows = kb::rows_for_range(context.kb(), "cuda_arch_support", "cuda_from", "cuda_to",
                                     version::prefix(*t.version, 2));
      if (!rows) return rows.error();
      for (const auto& row : *rows) {
        const std::string& min_sm = row.get("min_sm");
        if (!version::is_dotted(min_sm) || version::compare(cc, min_sm) >= 0) continue;
        const kb::MessageArgs args = {{"gpu", gpu_name},       {"cc", cc},
                                      {"toolkit", *t.version}, {"root", t.root},
                                      {"min", min_sm},         {"source", row.get("source")}};
        auto finding = context.finding("cuda.toolkit_dropped_arch", Severity::warning,
                                       "compat.cc.toolkit_title", args);
        if (!finding) return finding.error();
        finding->evidence.push_back(context.text("compat.cc.toolkit_evidence", args));
        finding->fix.push_back(context.text("compat.cc.toolkit_fix", args));
        finding->affects.push_back(t.root);
        findings.push_back(std::move(*finding));
        break;
      }
    }
  }
  return true;
}

// ---- cuda.runtime_missing, cudnn.missing, cudnn.version_mismatch -----------------------------

namespace {

// cuDNN 8.3 and later on Windows load zlibwapi.dll (data/cudnn_windows_dlls.csv): the cuDNN the
// build loads is the copy at the resolved cudnn64_8.dll, its version from the cuDNN facts there.
Result<bool> check_zlibwapi(const CheckContext& context, const PythonEnvFact& env,
                            const FrameworkFact& fw, const LibraryFact& zlib,
                            std::vector<Finding>& findings) {
  if (zlib.resolved) return true;
  const auto cudnn_dll =
      std::find_if(fw.libraries.begin(), fw.libraries.end(), [](const LibraryFact& l) {
        return text::to_lower(l.name).starts_with("cudnn64_") && l.resolved;
      });
  if (cudnn_dll == fw.libraries.end()) return true;
  const std::string dir =
      text::to_lower(cudnn_dll->resolved->substr(0, cudnn_dll->resolved->rfind('/')));
  std::optional<std::string> version;
  for (const auto& c : context.facts().cudnn) {
    if (text::to_lower(c.location) == dir && c.version) version = c.version;
  }
  if (!version) return true;
  auto table = context.kb().table("cudnn_windows_dlls");
  if (!table) return table.error();
  const kb::Table& t = **table;
  for (size_t row = 0; row < t.size(); ++row) {
    if (text::to_lower(t.cell(row, "dll")) != "zlibwapi.dll") continue;
    const std::string v = version::prefix(*version, 3);
    if (version::compare(v, t.cell(row, "cudnn_from")) < 0 ||
        version::compare(v, t.cell(row, "cudnn_to")) > 0) {
      continue;
    }
    const kb::MessageArgs args = {{"cudnn", *version},
                                  {"location", *cudnn_dll->resolved},
                                  {"package", fw.package},
                                  {"env", env.path},
                                  {"source", t.cell(row, "source")}};
    auto finding =
        context.finding("cudnn.zlibwapi_missing", Severity::error, "compat.zlib.title", args);
    if (!finding) return finding.error();
    finding->evidence.push_back(context.text("compat.zlib.evidence", args));
    finding->fix.push_back(context.text("compat.zlib.fix", args));
    finding->affects.push_back(env.path);
    findings.push_back(std::move(*finding));
    break;
  }
  return true;
}

// Windows: a copy in System32 or the Windows directory, or in a toolkit of another CUDA than the
// build's, loaded before the copy that belongs to the build (the seeds' stray cudnn64_7.dll).
struct Stray {
  bool stray = false;
  bool in_windows_folder = false;  // System32 or the Windows folder: before every Path entry
  std::optional<std::string> other_cuda;
};

Stray windows_stray(const Facts& f, const FrameworkFact& fw, const LibraryFact& lib) {
  Stray out;
  if (f.os.family != "windows" || !lib.resolved) return out;
  const std::string resolved = text::to_lower(*lib.resolved);
  const std::string windir = text::to_lower(paths::normalize(f.env.variables.count("SystemRoot")
                                                                 ? f.env.variables.at("SystemRoot")
                                                                 : std::string("C:/Windows")));
  out.in_windows_folder = resolved.starts_with(windir + "/");
  // Stray: it shadows the copy that belongs to the build.
  if (lib.shadowed.empty()) return out;
  out.stray = out.in_windows_folder;
  for (const auto& t : f.cuda_toolkits) {
    if (!t.version || !fw.cuda) continue;
    if (resolved.starts_with(text::to_lower(t.root) + "/") &&
        version::prefix(*t.version, 2) != version::prefix(*fw.cuda, 2)) {
      out.stray = true;
      out.other_cuda = version::prefix(*t.version, 2);
    }
  }
  return out;
}

std::string version_or_unknown(const CheckContext& context, const std::optional<std::string>& v) {
  return v ? *v : context.text("report.unknown_value");
}

// The cuDNN a build was compiled with. Some builds declare only the major (build_info.py: "7",
// "64_8"): the plug-in names the column of its tested-build table that gives the minor of the
// official build of that release and platform. `from` says where the version came from.
struct Compiled {
  std::optional<std::string> version;
  std::string from;
};

Result<Compiled> compiled_version(const CheckContext& context, const FrameworkFact& fw,
                                  bool cudnn) {
  Compiled out;
  out.version = cudnn ? fw.cudnn : fw.cuda;
  out.from = fw.declared_by.value_or(fw.package);
  const frameworks::Framework* framework = frameworks::of(fw);
  if (!cudnn || !out.version || out.version->find('.') != std::string::npos || !fw.version ||
      !framework || framework->tested_cudnn_column.empty() || framework->kb_table.empty()) {
    return out;
  }
  const std::string platform = context.facts().os.family == "windows" ? "windows" : "linux";
  const std::string release = text::split(*fw.version, '+').front();
  const std::string column(framework->tested_cudnn_column);
  auto rows = kb::rows_if(context.kb(), std::string(framework->kb_table), [&](const kb::Row& r) {
    const std::string& tested = r.get(column);
    return r.get("platform") == platform &&
           version::prefix(r.get(framework->kb_version_column), 2) == version::prefix(release, 2) &&
           version::is_dotted(tested) && version::major(tested) == *out.version;
  });
  if (!rows) return rows.error();
  if (!rows->empty()) {
    out.from = context.text("compat.loaded.tested_build",
                            {{"declared_by", out.from}, {"source", rows->front().get("source")}});
    out.version = rows->front().get(column);
  }
  return out;
}

// The copy of the CUDA runtime or cuDNN that the search order gives a build, judged by the
// framework's loading rule (data/library_load_rules.csv): a copy the framework refuses is an
// error; a stray copy it accepts, or whose version is unknown, a warning.
Result<bool> check_loaded_copy(const CheckContext& context, const PythonEnvFact& env,
                               const FrameworkFact& fw, const LibraryFact& lib, bool cudnn,
                               std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  const bool windows = f.os.family == "windows";
  const Stray stray = windows_stray(f, fw, lib);
  auto compiled = compiled_version(context, fw, cudnn);
  if (!compiled) return compiled.error();
  std::optional<LoadRule> rule;
  if (compiled->version) {
    auto found = find_load_rule(context.kb(), fw.name, cudnn ? "cudnn" : "cudart",
                                windows ? "windows" : "linux", *compiled->version);
    if (!found) return found.error();
    rule = *found;
  }
  const LoadVerdict verdict =
      rule ? judge_load(rule->rule, *compiled->version, lib.version) : LoadVerdict::unknown;
  // Only a stray copy is worth a word when the rule accepts it or cannot tell.
  if (verdict != LoadVerdict::rejected && !stray.stray) return true;

  const std::string what = cudnn ? "cuDNN" : "CUDA";
  kb::MessageArgs args = {
      {"package", fw.package},
      {"version", fw.version.value_or("?")},
      {"env", env.path},
      {"library", lib.name},
      {"what", what},
      {"resolved", *lib.resolved},
      {"loaded", version_or_unknown(context, lib.version)},
      {"shadowed", lib.shadowed.empty() ? std::string("-") : lib.shadowed.front().path},
      {"cuda", fw.cuda.value_or("?")},
      {"other_cuda", stray.other_cuda.value_or("?")},
      {"compiled", version_or_unknown(context, compiled->version)},
      {"compiled_from", compiled->from}};
  if (rule) {
    args.emplace_back("rule", context.text("load_rule." + rule->rule));
    args.emplace_back("rule_source", rule->source);
  }
  const bool rejected = verdict == LoadVerdict::rejected;
  const char* id =
      rejected ? (cudnn ? "cudnn.version_mismatch" : "cuda.version_mismatch") : "lib.shadowed_copy";
  auto finding = context.finding(id, rejected ? Severity::error : Severity::warning,
                                 rejected ? "compat.loaded.title" : "compat.stray.title", args);
  if (!finding) return finding.error();
  // A cuDNN copy is a cuDNN question, whatever shadowed it: it belongs on the cuDNN row.
  if (cudnn) finding->layer = Layer::cudnn;
  finding->evidence.push_back(context.text("compat.loaded.loads", args));
  for (const auto& copy : lib.shadowed) {
    finding->evidence.push_back(context.text(
        "lib.shadowed_copy.shadowed",
        {{"path", copy.path}, {"version", version_or_unknown(context, copy.version)}}));
  }
  if (stray.other_cuda) finding->evidence.push_back(context.text("compat.stray.other_cuda", args));
  if (!rule) {
    finding->evidence.push_back(context.text("compat.loaded.no_rule", args));
  } else if (verdict == LoadVerdict::unknown) {
    const bool compiled_major_only =
        compiled->version && compiled->version->find('.') == std::string::npos;
    finding->evidence.push_back(context.text(
        !lib.version                                  ? "compat.loaded.version_unknown"
        : lib.version->find('.') == std::string::npos ? "compat.loaded.version_major_only"
        : compiled_major_only                         ? "compat.loaded.compiled_unknown"
                                                      : "compat.loaded.version_unknown",
        args));
    finding->evidence.push_back(context.text("compat.loaded.rule", args));
  } else {
    finding->evidence.push_back(
        context.text(rejected ? "compat.loaded.compiled" : "compat.loaded.accepted", args));
    finding->evidence.push_back(context.text("compat.loaded.rule", args));
  }
  // Where a copy the rule accepts is: shadowed by this one, or somewhere the search never looks.
  std::optional<std::string> good_copy;
  std::optional<std::string> good_version;
  if (rule) {
    for (const auto& copy : lib.shadowed) {
      if (judge_load(rule->rule, *compiled->version, copy.version) == LoadVerdict::accepted) {
        good_copy = copy.path;
        good_version = copy.version;
        break;
      }
    }
  }
  std::optional<std::string> good_dir;  // a folder off the search path that holds one
  if (rejected && !good_copy && cudnn) {
    for (const auto& c : f.cudnn) {
      if (judge_load(rule->rule, *compiled->version, c.version) == LoadVerdict::accepted) {
        good_dir = c.location;
        good_version = c.version;
        break;
      }
    }
  }
  if (good_copy) args.emplace_back("good", *good_copy);
  if (good_version) args.emplace_back("good_version", *good_version);
  if (good_dir) {
    std::string dir = *good_dir;
    if (windows) std::replace(dir.begin(), dir.end(), '/', '\\');
    args.emplace_back("good_dir", dir);
  }
  if (!rejected) {
    finding->fix.push_back(context.text(
        stray.in_windows_folder ? "compat.stray.fix_windows_folder" : "compat.stray.fix", args));
  } else if (stray.in_windows_folder) {
    // System32 and the Windows folder come before every Path entry: only moving the copy helps.
    finding->fix.push_back(context.text(good_copy ? "compat.loaded.fix_move_windows_folder"
                                                  : "compat.loaded.fix_move_windows_folder_only",
                                        args));
  } else if (good_copy) {
    finding->fix.push_back(context.text(
        windows ? "compat.loaded.fix_order_windows" : "compat.loaded.fix_order_linux", args));
  } else {
    finding->fix.push_back(context.text("compat.loaded.fix_remove", args));
  }
  if (rejected && !good_copy) {
    finding->fix.push_back(context.text(
        good_dir ? (windows ? "compat.loaded.fix_add_windows" : "compat.loaded.fix_add_linux")
                 : "compat.loaded.fix_install",
        args));
  }
  finding->affects.push_back(env.path);
  // A stray copy may be moved aside; an old copy the loader takes in its place may be, too, when
  // a good one is behind it.
  if (stray.stray || good_copy) {
    finding->details["stray"] = *lib.resolved;
    finding->details["name"] = lib.name;
  }
  if (good_copy) finding->details["good"] = *good_copy;
  findings.push_back(std::move(*finding));
  return true;
}

// Any other library (msvcp140.dll, zlibwapi.dll ...) found in a stray place first.
Result<bool> check_windows_stray(const CheckContext& context, const PythonEnvFact& env,
                                 const FrameworkFact& fw, const LibraryFact& lib,
                                 std::vector<Finding>& findings) {
  const Stray stray = windows_stray(context.facts(), fw, lib);
  if (!stray.stray) return true;
  const kb::MessageArgs args = {{"package", fw.package},
                                {"version", fw.version.value_or("?")},
                                {"env", env.path},
                                {"library", lib.name},
                                {"resolved", *lib.resolved},
                                {"shadowed", lib.shadowed.front().path},
                                {"cuda", fw.cuda.value_or("?")},
                                {"other_cuda", stray.other_cuda.value_or("?")}};
  auto finding =
      context.finding("lib.shadowed_copy", Severity::warning, "compat.stray.title", args);
  if (!finding) return finding.error();
  if (stray.other_cuda) finding->evidence.push_back(context.text("compat.stray.other_cuda", args));
  finding->evidence.push_back(context.text(
      "compat.loaded.loads_other",
      {{"resolved", *lib.resolved}, {"loaded", version_or_unknown(context, lib.version)}}));
  for (const auto& copy : lib.shadowed) {
    finding->evidence.push_back(context.text(
        "lib.shadowed_copy.shadowed",
        {{"path", copy.path}, {"version", version_or_unknown(context, copy.version)}}));
  }
  finding->fix.push_back(context.text(
      stray.in_windows_folder ? "compat.stray.fix_windows_folder" : "compat.stray.fix", args));
  finding->affects.push_back(env.path);
  finding->details["stray"] = *lib.resolved;
  finding->details["name"] = lib.name;
  findings.push_back(std::move(*finding));
  return true;
}

// The runtime the build wants is missing, but toolkits of other CUDA versions are installed: the
// seeds' "cudart64_101.dll not found" with CUDA 10.0 installed. True when it reported.
Result<bool> check_cuda_version_mismatch(const CheckContext& context, const PythonEnvFact& env,
                                         const FrameworkFact& fw, const LibraryFact& lib,
                                         std::vector<Finding>& findings) {
  std::vector<std::string> others;
  for (const auto& t : context.facts().cuda_toolkits) {
    if (!t.version || version::prefix(*t.version, 2) == version::prefix(*fw.cuda, 2)) continue;
    if (std::find(t.libraries.begin(), t.libraries.end(), "cudart") == t.libraries.end()) continue;
    // Another environment's pip or conda runtime is no option for this one.
    const bool private_copy = t.source == "pip" || t.source == "conda";
    if (private_copy && !text::to_lower(t.root).starts_with(text::to_lower(env.path) + "/") &&
        text::to_lower(t.root) != text::to_lower(env.path)) {
      continue;
    }
    others.push_back(
        context.text("compat.user.toolkit", {{"version", *t.version}, {"root", t.root}}));
  }
  if (others.empty()) return false;
  const bool windows = context.facts().os.family == "windows";
  auto need = kb::driver_requirement(context.kb(), *fw.cuda, windows);
  if (!need) return need.error();
  const kb::MessageArgs args = {
      {"package", fw.package},
      {"version", fw.version.value_or("?")},
      {"env", env.path},
      {"library", lib.name},
      {"cuda", *fw.cuda},
      {"label", need->release_label.empty() ? *fw.cuda : need->release_label}};
  auto finding =
      context.finding("cuda.version_mismatch", Severity::error, "compat.cuda_mismatch.title", args);
  if (!finding) return finding.error();
  finding->evidence.push_back(context.text("compat.cuda_mismatch.evidence", args));
  for (auto& other : others)
    finding->evidence.push_back(std::move(other));
  finding->fix.push_back(context.text("compat.cuda_mismatch.fix", args));
  finding->affects.push_back(env.path);
  findings.push_back(std::move(*finding));
  return true;
}

}  // namespace

Result<bool> check_framework_libraries(const CheckContext& context,
                                       std::vector<Finding>& findings) {
  for (const auto& env : context.facts().python_envs) {
    for (const auto& fw : env.frameworks) {
      if (fw.gpu_build != true) continue;
      for (const auto& lib : fw.libraries) {
        const std::string lower = text::to_lower(lib.name);
        const bool cudnn = lower.starts_with("libcudnn.") || lower.starts_with("cudnn64_");
        const bool cudart = lower.starts_with("libcudart.") || lower.starts_with("cudart64_");
        const bool msvc = lower.starts_with("msvcp") || lower.starts_with("vcruntime");
        if (lower == "zlibwapi.dll") {
          if (auto r = check_zlibwapi(context, env, fw, lib, findings); !r) return r;
          continue;
        }
        if (lib.resolved && (cudnn || cudart)) {
          if (auto r = check_loaded_copy(context, env, fw, lib, cudnn, findings); !r) return r;
          continue;
        }
        if (lib.resolved) {
          if (auto r = check_windows_stray(context, env, fw, lib, findings); !r) return r;
        }
        if (msvc) {
          if (lib.resolved) continue;
          const kb::MessageArgs margs = {{"package", fw.package},
                                         {"version", fw.version.value_or("?")},
                                         {"env", env.path},
                                         {"library", lib.name}};
          auto finding =
              context.finding("msvc.runtime_missing", Severity::error, "compat.msvc.title", margs);
          if (!finding) return finding.error();
          finding->evidence.push_back(context.text("compat.msvc.evidence", margs));
          finding->fix.push_back(context.text("compat.msvc.fix", margs));
          finding->affects.push_back(env.path);
          findings.push_back(std::move(*finding));
          continue;
        }
        const kb::MessageArgs args = {{"package", fw.package},
                                      {"version", fw.version.value_or("?")},
                                      {"env", env.path},
                                      {"library", lib.name},
                                      {"module", fw.module.value_or("?")},
                                      {"family", fw.name},
                                      {"declared", fw.cudnn.value_or("?")},
                                      {"loaded", lib.version.value_or("?")},
                                      {"resolved", lib.resolved.value_or("?")}};
        if (!lib.resolved && cudart && fw.cuda) {
          auto reported = check_cuda_version_mismatch(context, env, fw, lib, findings);
          if (!reported) return reported.error();
          if (*reported) continue;
        }
        if (!lib.resolved) {
          if (!cudnn && !cudart) continue;
          const bool windows = context.facts().os.family == "windows";
          // Windows searches for DLLs by its own order; "the loader" there is that search.
          auto finding = context.finding(
              cudnn ? "cudnn.missing" : "cuda.runtime_missing", Severity::error,
              windows ? "compat.lib.missing_title.windows" : "compat.lib.missing_title", args);
          if (!finding) return finding.error();
          finding->evidence.push_back(context.text(windows ? "compat.lib.missing_evidence_windows"
                                                   : fw.module
                                                       ? "compat.lib.missing_evidence"
                                                       : "compat.lib.missing_evidence_dlopen",
                                                   args));
          // Builds whose wheels can bring the libraries say how (tensorflow[and-cuda]).
          const frameworks::Framework* framework = frameworks::of(fw);
          if (framework && framework->missing_library_fix) {
            if (auto note = framework->missing_library_fix(fw, windows)) {
              note->args.emplace_back("python", env_python(env, windows));
              finding->fix.push_back(context.text(note->key, note->args));
            }
          }
          if (lib.new_terminal) {
            // The saved Path has it; this terminal started before it was added.
            finding->evidence.push_back(
                context.text("compat.lib.new_terminal_evidence", {{"path", *lib.new_terminal}}));
            finding->fix.push_back(context.text("compat.lib.new_terminal_fix"));
          }
          kb::MessageArgs fix_args = args;
          fix_args.emplace_back("cuda", fw.cuda.value_or("?"));
          // Never advise installing what the report found: a toolkit of that CUDA is there, only
          // not on this terminal's search path.
          const CudaToolkitFact* installed =
              cudart ? toolkit_of(context.facts(), fw.cuda) : nullptr;
          if (installed) {
            // What the user types into Windows' Path takes its own separators.
            std::string root = installed->root;
            if (windows) std::replace(root.begin(), root.end(), '/', '\\');
            fix_args.emplace_back("root", root);
            fix_args.emplace_back("found", installed->version.value_or("?"));
            finding->evidence.push_back(
                context.text("compat.lib.installed_not_visible_evidence", fix_args));
          }
          if (lib.new_terminal) {
            // The new terminal's fix above is the whole fix.
          } else if (installed) {
            finding->fix.push_back(context.text(windows
                                                    ? "compat.lib.installed_not_visible_fix_windows"
                                                    : "compat.lib.installed_not_visible_fix",
                                                fix_args));
          } else {
            const std::string fix_key = std::string(cudnn ? "compat.lib.missing_fix_cudnn"
                                                          : "compat.lib.missing_fix_cuda") +
                                        (windows ? "_windows" : "");
            finding->fix.push_back(context.text(fix_key, fix_args));
          }
          finding->affects.push_back(env.path);
          findings.push_back(std::move(*finding));
          continue;
        }
      }
    }
  }
  return true;
}

// ---- cuda.nvvm_libdevice_missing -------------------------------------------------------------

Result<bool> check_libdevice(const CheckContext& context, std::vector<Finding>& findings) {
  for (const auto& env : context.facts().python_envs) {
    for (const auto& fw : env.frameworks) {
      if (fw.libdevice_roots.empty() || fw.libdevice) continue;
      // A toolkit on this machine that has it: point XLA there.
      std::optional<std::string> toolkit;
      for (const auto& t : context.facts().cuda_toolkits) {
        if (t.libdevice && t.source != "pip" && t.source != "conda") toolkit = t.root;
      }
      const std::string major = fw.cuda ? version::major(*fw.cuda) : "12";
      const kb::MessageArgs args = {
          {"package", fw.package},
          {"version", fw.version.value_or("?")},
          {"env", env.path},
          {"roots", text::join(fw.libdevice_roots, ", ")},
          {"python", env_python(env, context.facts().os.family == "windows")},
          {"wheel", major == "13" ? "nvidia-cuda-nvcc" : "nvidia-cuda-nvcc-cu" + major},
          {"toolkit", toolkit.value_or("")}};
      // JAX compiles everything with XLA; TensorFlow only what it JIT-compiles.
      const frameworks::Framework* framework = frameworks::of(fw);
      const bool always = framework && framework->libdevice == frameworks::Libdevice::always;
      auto finding = context.finding("cuda.nvvm_libdevice_missing",
                                     always ? Severity::error : Severity::warning,
                                     "compat.libdevice.title", args);
      if (!finding) return finding.error();
      finding->evidence.push_back(context.text("compat.libdevice.evidence", args));
      if (toolkit) finding->fix.push_back(context.text("compat.libdevice.fix_toolkit", args));
      finding->fix.push_back(context.text("compat.libdevice.fix_wheel", args));
      finding->affects.push_back(env.path);
      if (toolkit) finding->details = {{"env", env.path}, {"toolkit", *toolkit}};
      findings.push_back(std::move(*finding));
    }
  }
  return true;
}

}  // namespace gpuvet::checks
