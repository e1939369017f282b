#include "explain/explain.hpp"
#include "explain/build_needs.hpp"
#include "explain/known_bugs.hpp"
#include "explain/pasted_forms.hpp"

#include "kb/arch_support.hpp"
#include "kb/queries.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "python/metadata.hpp"

namespace gpuvet::explain {

namespace {

// Causes the machine's facts decide: the checks report them when they hold.
const std::set<std::string> kDecidable = {"driver.missing",
                                          "driver.module_not_loaded",
                                          "driver.too_old",
                                          "gpu.not_visible",
                                          "cuda.runtime_missing",
                                          "cuda.version_mismatch",
                                          "cudnn.missing",
                                          "cudnn.version_mismatch",
                                          "cudnn.zlibwapi_missing",
                                          "msvc.runtime_missing",
                                          "framework.cpu_only_build",
                                          "gpu.compute_capability_unsupported",
                                          "cuda.nvvm_libdevice_missing"};

// Causes whose line names the library a program could not load (missing_library).
const std::set<std::string> kLibraryMissing = {"cuda.runtime_missing", "cuda.version_mismatch",
                                               "cudnn.missing", "tensorrt.library_missing",
                                               "msvc.runtime_missing"};

// What a library is part of, by its name: cuda (cudart64_110.dll, libcublasLt.so.12), cudnn,
// tensorrt, msvc (the Visual C++ runtime), driver (libcuda.so.1, nvcuda.dll, NVML); empty for
// anything else.
std::string library_kind(std::string_view name) {
  std::string lower = text::to_lower(name);
  if (lower.starts_with("lib")) lower.erase(0, 3);
  if (lower.find("cudnn") != std::string::npos) return "cudnn";
  // The driver package's own libraries: libcuda, NVML, the video codec and JIT libraries.
  if (lower == "cuda" || lower.starts_with("cuda.so")) return "driver";
  for (const char* prefix : {"nvcuda", "nvidia-", "nvml", "nvcuvid", "nvencodeapi"})
    if (lower.starts_with(prefix)) return "driver";
  for (const char* prefix : {"nvinfer", "nvonnxparser", "nvparsers"})
    if (lower.starts_with(prefix)) return "tensorrt";
  for (const char* prefix : {"msvcp", "msvcr", "vcruntime", "vcomp", "concrt"})
    if (lower.starts_with(prefix)) return "msvc";
  for (const char* prefix : {"cudart", "cublas", "cufft", "curand", "cusolver", "cusparse", "nvrtc",
                             "nvjitlink", "npp", "nvjpeg"})
    if (lower.starts_with(prefix)) return "cuda";
  return "";
}

// The library a line that says it could not be loaded names, for a cause of its kind: a missing
// cuDNN does not confirm another CUDA version the same line's threads were resolved to. A path
// was found and failed for another reason (one of its dependencies); a link flag (-lnvinfer) is
// no file.
std::string unloaded_library(const std::string& cause_id, const std::string& name) {
  const bool file = name.find(".so") != std::string::npos || text::to_lower(name).ends_with(".dll");
  if (!file || name.find_first_of("/\\") != std::string::npos) return "";
  const std::string kind = library_kind(name);
  const std::string cause_kind = cause_id.substr(0, cause_id.find('.'));
  return !kind.empty() && kind == cause_kind ? name : "";
}

// The kind of library a cause's text means by its {lib}: the CUDA runtime a line asks for is
// no compiled extension of the framework, nor the Visual C++ runtime ("" for an extension: none
// of the known kinds). Causes not listed take any library.
const std::map<std::string, std::string, std::less<>> kLibraryKindOfCause = {
    {"cuda.runtime_missing", "cuda"},    {"cuda.version_mismatch", "cuda"},
    {"cudnn.missing", "cudnn"},          {"tensorrt.library_missing", "tensorrt"},
    {"msvc.runtime_missing", "msvc"},    {"driver.missing", "driver"},
    {"framework.extension_mismatch", ""}};

bool library_fits_cause(const std::string& cause_id, std::string_view lib) {
  const auto kind = kLibraryKindOfCause.find(cause_id);
  if (kind == kLibraryKindOfCause.end()) return true;
  const size_t slash = lib.find_last_of("/\\");
  return library_kind(slash == std::string_view::npos ? lib : lib.substr(slash + 1)) ==
         kind->second;
}

// Whether a toolkit's CUDA ("11.2") provides the runtime asked for: "11.x" (cudart64_110.dll
// serves every 11.x) by its major, "10.1" exactly.
bool same_cuda(const std::string& wanted, const std::string& toolkit) {
  if (wanted.ends_with(".x"))
    return text::split(wanted, '.').front() == text::split(toolkit, '.').front();
  return toolkit == wanted || toolkit.starts_with(wanted + ".");
}

// One family for confirmation: a missing runtime and a runtime of another version are one fault.
std::string family_of(const std::string& id) {
  if (id == "cuda.version_mismatch") return "cuda.runtime_missing";
  return id;
}

// The machine's finding of this cause, or of its family (a missing runtime for a mismatch).
// A known bug's finding is of one bug, not of every line of its cause: known_bug_on_machine.
const Finding* finding_of(const std::string& id, const std::optional<MachineFindings>& machine) {
  if (!machine || is_known_bug_cause(id)) return nullptr;
  const auto& all = machine->findings;
  auto it = std::find_if(all.begin(), all.end(), [&](const Finding& f) { return f.id == id; });
  if (it == all.end()) {
    it = std::find_if(all.begin(), all.end(),
                      [&](const Finding& f) { return family_of(f.id) == family_of(id); });
  }
  return it == all.end() ? nullptr : &*it;
}

// The library the program could not load, as this machine's loader would look it up, or null
// when nobody looked.
const std::optional<std::string>* library_on_machine(
    const Cause& c, const std::optional<MachineFindings>& machine) {
  if (!machine || !machine->ranks) return nullptr;
  const auto name = missing_library(c);
  if (!name) return nullptr;
  const auto it = machine->libraries.find(*name);
  return it == machine->libraries.end() ? nullptr : &it->second;
}

// A CUDA library this machine does not load either: which of the family it is follows from the
// toolkits it has. One of the CUDA asked for is there but not on the search path; another CUDA
// only is a version mismatch; none at all, a missing runtime.
void decide_cuda_family(Cause& c, const MachineFindings& machine) {
  const auto cuda = c.captures.find("cuda");
  if (cuda == c.captures.end()) return;
  const auto same =
      std::find_if(machine.cuda_installs.begin(), machine.cuda_installs.end(),
                   [&](const auto& install) { return same_cuda(cuda->second, install.first); });
  const bool other_only = same == machine.cuda_installs.end() && !machine.cuda_installs.empty();
  c.id = other_only ? "cuda.version_mismatch" : "cuda.runtime_missing";
}

// What this machine's loader did with the library, in words: not found (and the CUDA toolkits it
// has), or where it loads it from.
std::string library_words(const Cause& c, const std::optional<std::string>& loads,
                          const MachineFindings& machine, const kb::Messages& m) {
  const std::string& lib = c.unloaded_library;
  if (loads) return m.text("explain.library_found", {{"lib", lib}, {"path", *loads}});
  std::string words = m.text("explain.library_not_found", {{"lib", lib}});
  if (family_of(c.id) != "cuda.runtime_missing") return words;
  std::string installs;
  for (const auto& [version, root] : machine.cuda_installs)
    installs += (installs.empty() ? "" : ", ") + version + " (" + root + ")";
  words +=
      " " + (installs.empty() ? m.text("explain.library_not_found.no_cuda")
                              : m.text("explain.library_not_found.cuda", {{"cuda", installs}}));
  return words;
}

std::string build_fix(const std::string& id, const BuildNeeds& needs, const kb::Messages& m) {
  const kb::MessageArgs args = {{"framework", needs.framework}, {"version", needs.version},
                                {"cuda", needs.cuda},           {"cudnn", needs.cudnn},
                                {"package", needs.package},     {"source", needs.source}};
  if (id == "driver.too_old") {
    return m.text(needs.driver_floor.empty() ? "explain.fix.build_needs.driver"
                                             : "explain.fix.build_needs.driver_floor",
                  {{"framework", needs.framework},
                   {"version", needs.version},
                   {"cuda", needs.cuda},
                   {"driver", needs.min_driver},
                   {"floor", needs.driver_floor},
                   {"source", needs.driver_source}});
  }
  if (needs.wheels_bring_cuda && !needs.package.empty())
    return m.text("explain.fix.build_needs.wheels", args);
  return m.text(
      needs.cudnn.empty() ? "explain.fix.build_needs.without_cudnn" : "explain.fix.build_needs",
      args);
}

// On the log's own machine, what its checks find wrong that no line of the log names: a vague
// log ("GPU not detected") gets the machine's real fault. Root errors only (not one that follows
// from a lower layer's), with words for them, at most kMaxMachineCauses.
void add_machine_findings(std::vector<Cause>& causes, const std::vector<Finding>& findings,
                          const kb::Messages& m) {
  constexpr size_t kMaxMachineCauses = 3;
  size_t added = 0;
  for (const auto& f : findings) {
    if (added == kMaxMachineCauses) break;
    if (f.severity != Severity::error || f.follows_from ||
        !m.has(fmt::format("explain.why.{}", f.id))) {
      continue;
    }
    const bool named = std::any_of(causes.begin(), causes.end(), [&](const Cause& c) {
      return family_of(c.id) == family_of(f.id);
    });
    if (named) continue;
    Cause c;
    c.id = f.id;
    // Sure of the machine, not that it is what the log met: below the causes its lines name.
    c.confidence = 0.5;
    c.symptom_only = false;
    c.machine_only = true;
    c.first_line = std::numeric_limits<size_t>::max();
    causes.push_back(std::move(c));
    ++added;
  }
}

void swap_when_cudnn_missing_too(std::vector<Cause>& causes) {
  const auto named = [&](const std::string& id) {
    return std::find_if(causes.begin(), causes.end(),
                        [&](const Cause& c) { return c.id == id && !c.alternative; });
  };
  const auto mismatch = named("cuda.version_mismatch");
  if (named("cudnn.missing") == causes.end() || mismatch == causes.end() ||
      mismatch->captures.contains("other")) {
    return;
  }
  for (auto& c : causes) {
    if (c.id == "cuda.runtime_missing") c.id = "cuda.version_mismatch";
  }
  mismatch->id = "cuda.runtime_missing";
}

// data/cause_platforms.csv: the platforms a cause can happen on; absent, all of them.
std::map<std::string, std::set<std::string>> cause_platforms(const kb::Kb& kb) {
  std::map<std::string, std::set<std::string>> out;
  if (auto t = kb.table("cause_platforms")) {
    for (size_t row = 0; row < (*t)->size(); ++row) {
      for (const auto& p : text::split((*t)->cell(row, "platforms"), '|'))
        out[(*t)->cell(row, "cause")].insert(p);
    }
  }
  return out;
}

// A Linux-looking log may come from WSL (the two print the same paths): only a WSL mark rules
// out what happens on plain Linux, and nothing in a Linux-looking log rules out WSL.
bool can_happen_on(const std::set<std::string>& platforms, const std::string& log_platform) {
  if (platforms.empty() || log_platform.empty() || platforms.contains(log_platform)) return true;
  return log_platform == "linux" && platforms.contains("wsl");
}

void apply_log_platform(std::vector<Cause>& causes, const kb::Kb& kb, const std::string& platform) {
  if (platform.empty()) return;
  const auto where = cause_platforms(kb);
  for (auto& c : causes) {
    const auto it = where.find(c.id);
    if (it == where.end()) continue;
    c.off_platform = !can_happen_on(it->second, platform);
    // Inside WSL a message's WSL-only alternative is what happened there ("NVIDIA-SMI has failed"
    // printed inside WSL is not a kernel module): WSL, unlike Linux or Windows, says so rarely
    // and never by accident.
    if (platform == "wsl" && it->second == std::set<std::string>{platform}) c.alternative = false;
  }
}

// A log from a platform CUDA does not run on (data/platform_without_cuda.csv: macOS since CUDA
// 10.2) that names a CPU-only build or a missing GPU: that platform has no NVIDIA GPU to use, and
// the causes its lines name follow from it (fixing the build would not make CUDA run there).
void apply_platform_without_cuda(std::vector<Cause>& causes, const kb::Kb& kb,
                                 const std::string& platform) {
  if (platform.empty()) return;
  auto rows = kb::rows_where(kb, "platform_without_cuda", "platform", platform);
  if (!rows || rows->empty()) return;
  const kb::Row& row = rows->front();
  const auto instead_of = text::split(row.get("instead_of"), '|');
  const auto explained = [&](const Cause& c) {
    return !c.alternative &&
           std::find(instead_of.begin(), instead_of.end(), c.id) != instead_of.end();
  };
  const auto first = std::find_if(causes.begin(), causes.end(), explained);
  if (first == causes.end()) return;
  Cause limit;
  limit.id = "gpu.none";
  limit.confidence = 0.9;
  limit.symptom_only = false;
  limit.first_line = first->first_line;
  limit.evidence = first->evidence;
  limit.captures = {{"until", row.get("last_cuda")}};
  limit.signatures = {"without_cuda_on_" + platform};
  for (auto& c : causes) {
    if (explained(c)) c.alternative = true;
  }
  std::erase_if(causes, [&](const Cause& c) { return c.id == limit.id; });
  causes.push_back(std::move(limit));
}

// A framework newer than its last release with GPU support on native Windows
// (data/framework_platform_limits.csv), printed in a Windows log that found no GPU: that limit is
// the cause, the CPU-only build its consequence.
void apply_windows_native_limit(std::vector<Cause>& causes, const kb::Kb& kb, const LogFacts& log,
                                const std::string& platform) {
  if (platform != "windows") return;
  const auto cpu = std::find_if(causes.begin(), causes.end(), [](const Cause& c) {
    return c.id == "framework.cpu_only_build" && !c.alternative;
  });
  if (cpu == causes.end()) return;
  for (const auto& [family, seen] : log.versions) {
    auto limit_row = kb::past_platform_gpu_limit(kb, family, platform, seen.version);
    if (!limit_row || !*limit_row) continue;
    Cause limit;
    limit.id = "framework.windows_native_gpu_unsupported";
    limit.confidence = 0.9;
    limit.symptom_only = false;
    limit.first_line = seen.line.line;
    limit.evidence = {seen.line};
    limit.evidence.insert(limit.evidence.end(), cpu->evidence.begin(), cpu->evidence.end());
    limit.captures = {
        {"package", family}, {"version", seen.version}, {"until", (*limit_row)->get("gpu_until")}};
    limit.signatures = {"newer_than_its_platform_limit"};
    std::erase_if(causes, [&](const Cause& c) { return c.id == limit.id; });
    causes.push_back(std::move(limit));
    return;
  }
}

// A cause the log's facts name (its versions, its device line) joins the causes a line names: it
// replaces the same cause as an alternative or a reported case, and where a line names it
// already, its evidence and captures join that one.
void add_fact_cause(std::vector<Cause>& causes, Cause cause) {
  std::erase_if(causes,
                [&](const Cause& c) { return c.id == cause.id && (c.alternative || c.similar); });
  for (auto& c : causes) {
    if (c.id != cause.id) continue;
    c.evidence.insert(c.evidence.end(), cause.evidence.begin(), cause.evidence.end());
    c.captures.insert(cause.captures.begin(), cause.captures.end());
    return;
  }
  causes.push_back(std::move(cause));
}

// The log's NVIDIA driver below what its framework build's CUDA runtime loads on (the floor of
// minor version compatibility, else the release's driver: PyTorch 2.1.0+cu121 needs 525.60.13 on
// Linux; BuildNeeds::loads_from), whatever line failed: the driver is too old for that build. On a
// platform the log does not say, it must be below Linux's and Windows' both; of several candidate
// builds, below all.
void apply_driver_below_build(std::vector<Cause>& causes, const LogFacts& log,
                              const std::vector<BuildNeeds>& builds) {
  const auto driver = log.versions.find("driver");
  if (driver == log.versions.end() || builds.empty()) return;
  std::string needed;
  const BuildNeeds* lowest = nullptr;
  for (const auto& build : builds) {
    if (build.loads_from.empty()) return;
    if (needed.empty() || version::compare(build.loads_from, needed) < 0) {
      needed = build.loads_from;
      lowest = &build;
    }
  }
  if (version::compare(driver->second.version, needed) >= 0) return;
  Cause too_old;
  too_old.id = "driver.too_old";
  too_old.confidence = 0.85;
  too_old.symptom_only = false;
  too_old.first_line = driver->second.line.line;
  too_old.evidence = {driver->second.line};
  too_old.captures = {{"found", driver->second.version},
                      {"package", lowest->framework},
                      {"version", lowest->version},
                      {"cuda", lowest->cuda},
                      {"min", needed}};
  too_old.signatures = {"driver_below_build"};
  add_fact_cause(causes, std::move(too_old));
}

// The one framework the log shows: the versions it prints, the builds a pip listing in it names,
// the modules its traceback runs. None when it shows none or several.
std::optional<std::string> log_framework(const kb::Kb& kb, const LogFacts& log) {
  std::set<std::string> families;
  for (const auto& [family, seen] : log.versions)
    if (const auto* framework = frameworks::find(family))
      families.insert(std::string(framework->family));
  for (const auto& listed : listed_builds(kb, log))
    families.insert(listed.family);
  for (const auto& module : log.modules) {
    // tensorflow_core is TensorFlow's, cupy_backends CuPy's; jaxlib is a distribution of JAX's.
    if (const auto* framework = frameworks::find(module.substr(0, module.find('_')))) {
      families.insert(std::string(framework->family));
    } else if (auto rows = kb::rows_where(kb, "python_packages", "package", module);
               rows && !rows->empty()) {
      families.insert(rows->front().get("family"));
    }
  }
  if (families.size() != 1) return std::nullopt;
  return *families.begin();
}

// The fix's `gpuvet plan` command for the log's framework and GPU: a build that runs on the GPU
// (the capability the log gives), or the CUDA build of a CPU-only one whose line names it
// ("Torch not compiled with CUDA enabled"), not another program's.
Cause with_plan_command(const Cause& c, const std::optional<std::string>& framework) {
  Cause out = c;
  const auto cc = c.captures.find("cc");
  const bool has_cc = cc != c.captures.end() && version::is_dotted(cc->second);
  if (!framework) return out;
  if (c.id == "gpu.compute_capability_unsupported") {
    out.captures["plan"] = "gpuvet plan " + *framework + (has_cc ? " --cc " + cc->second : "");
  } else if (c.id == "framework.cpu_only_build") {
    const bool named = std::any_of(c.evidence.begin(), c.evidence.end(), [&](const Evidence& e) {
      return text::to_lower(e.text).find(*framework) != std::string::npos;
    });
    if (named) out.captures["plan"] = "gpuvet plan " + *framework;
  }
  return out;
}

// A framework's CUDA runtime older than the first CUDA that compiles for the GPU it runs on
// (data/cuda_arch_support.csv: CUDA 10.2 stops at 7.5, an RTX 3060 is 8.6), or newer than the
// last: its build has no kernels of that architecture. The device line says what will fail, so it
// ranks after what a root error line names (a cuDNN not found fails first).
void apply_runtime_without_gpu_arch(std::vector<Cause>& causes, const kb::Kb& kb,
                                    const LogFacts& log) {
  if (!log.runtime_on_device) return;
  const auto& [cc, cuda, line] = *log.runtime_on_device;
  const auto range = kb::cuda_range_for_cc(kb, cc);
  // Code built for X.0 runs on every X.y GPU (CUDA's binary compatibility within a major), so a
  // runtime is too old only before the first CUDA that builds for the major's first capability:
  // CUDA 11.7 builds 8.6 code an 8.9 GPU runs.
  const auto major_range = kb::cuda_range_for_cc(kb, version::major(cc) + ".0");
  if (!range || range->from.empty() || !major_range) return;
  const std::string& first = major_range->from.empty() ? range->from : major_range->from;
  const bool older = version::compare(cuda, first) < 0;
  const bool newer = !range->to_is_newest && version::compare(version::major_minor(cuda),
                                                              version::major_minor(range->to)) > 0;
  if (!older && !newer) return;
  Cause arch;
  arch.id = "gpu.compute_capability_unsupported";
  arch.confidence = 0.8;
  arch.symptom_only = true;
  arch.first_line = line.line;
  arch.evidence = {line};
  arch.captures = {{"cc", cc}, {"cuda", cuda}};
  if (older) {
    arch.captures["min"] = first;
    arch.signatures = {"runtime_older_than_gpu"};
  } else {
    arch.captures["until"] = range->to;
    arch.signatures = {"runtime_newer_than_gpu"};
  }
  add_fact_cause(causes, std::move(arch));
}

// tensorflow with tensorflow-intel at one version is how TensorFlow installs on native Windows
// (the framework's windows_companion): one build, not two.
bool windows_companion_pair(const std::string& family,
                            const std::vector<std::pair<std::string, LogFacts::Seen>>& builds) {
  const frameworks::Framework* framework = frameworks::find(family);
  return framework && builds.size() == 2 &&
         frameworks::windows_companion_pair(*framework, builds[0].first, builds[1].first) &&
         builds[0].second.version == builds[1].second.version;
}

// Two builds of one framework in the log's pip listing (tensorflow and tensorflow-gpu,
// onnxruntime and onnxruntime-gpu) overwrite each other's files: the rule of the machine's
// check, from the same table (data/python_packages.csv).
void name_builds_listed_together(std::vector<Cause>& causes, const kb::Kb& kb,
                                 const LogFacts& log) {
  if (log.listed.size() < 2) return;
  std::map<std::string, std::vector<std::pair<std::string, LogFacts::Seen>>> by_family;
  for (const auto& listed : listed_builds(kb, log))
    by_family[listed.family].emplace_back(listed.package, listed.seen);
  for (const auto& [family, builds] : by_family) {
    if (builds.size() < 2 || windows_companion_pair(family, builds)) continue;
    Cause listed;
    listed.id = "framework.conflicting_packages";
    listed.confidence = 0.85;
    listed.symptom_only = false;
    listed.first_line = builds.front().second.line.line;
    std::vector<std::string> names;
    std::vector<std::string> listed_as;
    for (const auto& [name, seen] : builds) {
      listed.first_line = std::min(listed.first_line, seen.line.line);
      listed.evidence.push_back(seen.line);
      names.push_back(name);
      listed_as.push_back(name + " " + seen.version);
    }
    listed.captures = {{"package", text::join(listed_as, ", ")}, {"names", text::join(names, " ")}};
    listed.signatures = {"builds_listed_together"};
    std::erase_if(causes, [&](const Cause& c) { return c.id == listed.id; });
    causes.push_back(std::move(listed));
    return;
  }
}

// The toolkit major before the newest one the architecture table knows ("12" when it knows 13.x);
// empty when it knows fewer than two. Compared as versions, so a --kb table can hold any digits.
std::string previous_toolkit_major(const kb::Kb& kb) {
  std::vector<std::string> majors;
  if (auto t = kb.table("cuda_arch_support")) {
    for (size_t row = 0; row < (*t)->size(); ++row) {
      const std::string to = (*t)->cell(row, "cuda_to");
      if (version::is_dotted(to)) majors.push_back(version::major(to));
    }
  }
  std::sort(majors.begin(), majors.end(),
            [](const std::string& a, const std::string& b) { return version::compare(a, b) > 0; });
  majors.erase(std::unique(majors.begin(), majors.end(),
                           [](const std::string& a, const std::string& b) {
                             return version::compare(a, b) == 0;
                           }),
               majors.end());
  return majors.size() >= 2 ? majors[1] : std::string();
}

// Whether every toolkit of the major `since` and later starts above compute capability `cc`: an
// architecture those toolkits refuse even where the table does not know its last toolkit.
bool below_every_toolkit_since(const kb::Kb& kb, const std::string& cc, const std::string& since) {
  auto t = kb.table("cuda_arch_support");
  if (!t || !version::is_dotted(cc)) return false;
  size_t rows = 0;
  for (size_t row = 0; row < (*t)->size(); ++row) {
    const std::string from = (*t)->cell(row, "cuda_from");
    if (!version::is_dotted(from) || version::compare(version::major(from), since) < 0) continue;
    const std::string min_sm = (*t)->cell(row, "min_sm");
    if (!version::is_dotted(min_sm) || version::compare(cc, min_sm) >= 0) return false;
    ++rows;
  }
  return rows > 0;
}

// nvcc's "Unsupported gpu architecture" for one that not even the previous toolkit major compiles
// (compute_30, compute_35) is an architecture the toolkit dropped, not a toolkit too old to know a
// new GPU: named with the last toolkit that built it where the table knows it
// (data/cuda_arch_support.csv). An architecture the newest major alone dropped stays ambiguous (a
// new toolkit, or one older than the GPU).
void name_architectures_of_the_past(std::vector<Cause>& causes, const kb::Kb& kb) {
  const auto refused = [](const Cause& c) {
    return !c.alternative && !c.signatures.empty() &&
           c.signatures.front() == "nvcc_unsupported_arch" && c.captures.contains("cc");
  };
  if (std::none_of(causes.begin(), causes.end(), refused)) return;
  const std::string previous = previous_toolkit_major(kb);
  if (previous.empty()) return;
  std::optional<Cause> dropped_by_newest;
  for (auto& c : causes) {
    if (!refused(c)) continue;
    const std::string cc = c.captures.at("cc");
    auto range = kb::cuda_range_for_cc(kb, cc);
    const bool last_known = range && !range->dropped_in.empty() && version::is_dotted(range->to) &&
                            version::compare(version::major(range->to), previous) < 0;
    if (!last_known && !below_every_toolkit_since(kb, cc, previous)) {
      if (range && !range->dropped_in.empty() && !dropped_by_newest) {
        dropped_by_newest = c;
        dropped_by_newest->captures.emplace("until", range->to);
      }
      continue;
    }
    // The rule goes first among the signatures: the JSON says what named the cause, and the
    // message names the last toolkit where one is known.
    c.id = "cuda.toolkit_dropped_arch";
    c.signatures.insert(c.signatures.begin(),
                        last_known ? "nvcc_arch_of_the_past" : "nvcc_arch_dropped");
    if (last_known) c.captures.emplace("until", range->to);
  }
  // An architecture only the newest major dropped (compute_50 under CUDA 13) is refused as well by
  // a toolkit older than the GPU (compute_61 under CUDA 7.5): the log rarely tells which nvcc ran,
  // so the dropped architecture follows the first answer, as likely as its first alternative.
  const auto named_dropped = [](const Cause& c) {
    return c.id == "cuda.toolkit_dropped_arch" && !c.similar && !c.alternative;
  };
  if (!dropped_by_newest || std::any_of(causes.begin(), causes.end(), named_dropped)) return;
  // A vote of the reported cases or a place at the end of an `also` list gives way to it.
  std::erase_if(causes, [](const Cause& c) { return c.id == "cuda.toolkit_dropped_arch"; });
  Cause& dropped = *dropped_by_newest;
  dropped.id = "cuda.toolkit_dropped_arch";
  dropped.alternative = true;
  dropped.named_less_specifically = true;
  dropped.confidence *= kAlternativeShare;
  dropped.signatures.insert(dropped.signatures.begin(), "nvcc_arch_dropped_by_newest");
  causes.push_back(std::move(dropped));
}

constexpr double kProgramXidConfidence = 0.6;
constexpr double kUnsettledXidConfidence = 0.4;

struct XidReading {
  std::string xid;
  std::string cause;  // device.hardware_error, program, or empty (NVIDIA's catalog names no layer)
  std::string mnemonic;
  std::string description;
  std::string action;
  bool listed = false;
};

XidReading read_xid(const kb::Kb& kb, const std::string& xid) {
  const auto row = kb::xid_error(kb, xid);
  if (!row) return {xid, "", "", "", "", false};
  return {xid,
          row->get("cause"),
          row->get("mnemonic"),
          row->get("description"),
          row->get("immediate_action"),
          true};
}

// A fault of the card explains what the programs on it reported after; a program's own fault
// says least about the setup, and a follow-on Xid (45's cleanup after an abort, 154's recovery
// action) nothing: NVIDIA's catalog says to follow the other Xid.
int xid_weight(const XidReading& r) {
  if (r.cause == "device.hardware_error") return 4;
  if (r.action == "WORKFLOW_XID_45" || r.action == "XID_154") return 0;
  if (r.listed && r.cause.empty()) return 3;
  if (r.cause == "program") return 2;
  return 1;
}

// The Xid a line names says from NVIDIA's catalog (data/nvidia_xid_errors.csv) what failed: the
// card (its memory, links or bus), the program's own GPU work, or a part the catalog does not
// settle. A cause that another signature names as well keeps its reading.
void name_xids(std::vector<Cause>& causes, const kb::Kb& kb, const kb::Messages& m) {
  for (auto& c : causes) {
    if (c.alternative || c.signatures.size() != 1 || c.signatures.front() != "nvrm_xid") continue;
    std::optional<XidReading> worst;
    for (const auto& xid : c.xid_codes) {
      XidReading r = read_xid(kb, xid);
      if (!worst || xid_weight(r) > xid_weight(*worst)) worst = std::move(r);
    }
    if (!worst) continue;
    c.captures["status"] = worst->xid;
    if (!worst->mnemonic.empty()) c.captures["names"] = worst->mnemonic;
    if (!worst->description.empty()) c.captures["value"] = worst->description;
    const std::string action_key = "explain.xid_action." + worst->action;
    if (!worst->action.empty() && m.has(action_key)) c.captures["action"] = m.text(action_key);
    if (worst->cause == "device.hardware_error") {
      c.id = "device.hardware_error";
      c.signatures.insert(c.signatures.begin(), "nvrm_xid_hardware");
      continue;
    }
    // The program's own fault is as sure as CUDA's status for one; an Xid NVIDIA does not place
    // gives way to any line that names a cause.
    c.id = "other";
    const bool program = worst->cause == "program";
    c.confidence =
        std::min(c.confidence, program ? kProgramXidConfidence : kUnsettledXidConfidence);
    c.signatures.insert(c.signatures.begin(), !worst->listed ? "nvrm_xid_unlisted"
                                              : program      ? "nvrm_xid_program"
                                                             : "nvrm_xid_unsettled");
  }
}

// One line's message has several known causes and another line names one of them as surely
// (the loader resolving libcuda to a compat copy, beside error 803): that one says which reading
// holds. A vaguer line ("error=30 : unknown error" beside "no NVIDIA devices found") does not,
// and two causes that each list the other are two readings of one message and decide nothing.
std::set<std::string> readings_of_other_lines(const std::vector<Cause>& causes) {
  const auto named = [](const Cause& c) {
    return !c.alternative && !c.similar && !c.machine_only && !c.symptom_only;
  };
  std::set<std::string> readings;
  for (const auto& reading : causes) {
    if (!named(reading)) continue;
    for (const auto& message : causes) {
      if (named(message) && reading.confidence >= message.confidence &&
          message.other_readings.contains(reading.id) &&
          !reading.other_readings.contains(message.id)) {
        readings.insert(reading.id);
      }
    }
  }
  return readings;
}

std::map<std::string, size_t> layer_order(const kb::Kb& kb) {
  std::map<std::string, size_t> order;
  static const std::vector<std::string> layers = {"hardware", "driver",    "cuda",   "cudnn",
                                                  "python",   "framework", "runtime"};
  if (auto t = kb.table("taxonomy")) {
    for (size_t row = 0; row < (*t)->size(); ++row) {
      const auto it = std::find(layers.begin(), layers.end(), (*t)->cell(row, "layer"));
      order[(*t)->cell(row, "id")] = static_cast<size_t>(it - layers.begin());
    }
  }
  return order;
}

// cudart64_101.dll / libcudart.so.10.0 -> "10.1" / "10.0"; cudart64_110.dll (every 11.x) -> "11.x".
std::optional<std::string> cuda_of_library(const kb::Kb& kb, const std::string& lib) {
  auto t = kb.table("library_names");
  if (!t) return std::nullopt;
  std::set<std::string> versions;
  const std::string lower = text::to_lower(lib);
  for (size_t row = 0; row < (*t)->size(); ++row) {
    if (text::to_lower((*t)->cell(row, "windows_dll")) == lower ||
        text::to_lower((*t)->cell(row, "linux_soname")) == lower) {
      versions.insert((*t)->cell(row, "cuda"));
    }
  }
  if (versions.empty()) return std::nullopt;
  if (versions.size() == 1) return *versions.begin();
  const std::string major = text::split(*versions.begin(), '.').front();
  return major + ".x";
}

// cudnn64_7.dll, cudnn_ops_infer64_8.dll, libcudnn.so.8.9.2 -> the cuDNN major.
std::optional<std::string> cudnn_of_library(const std::string& lib) {
  const std::string lower = text::to_lower(lib);
  if (lower.ends_with(".dll")) {
    const size_t at = lower.rfind("64_");
    if (at == std::string::npos) return std::nullopt;
    const std::string digits = lower.substr(at + 3, lower.size() - at - 7);
    if (text::is_digits(digits)) return digits;
    return std::nullopt;
  }
  const size_t so = lower.find(".so.");
  if (so == std::string::npos) return std::nullopt;
  return text::split(lower.substr(so + 4), '.').front();
}

// "(8, 5, 0)" -> "8.5.0"; "8906" -> "8.9.6" and "90100" -> "9.1.0" (CUDNN_VERSION is
// major*1000+minor*100+patch before 9.0, major*10000+minor*100+patch from 9.0:
// shared/reference/tensorflow_facts.md §9); anything else as it is.
std::string dotted_cudnn_version(const std::string& value) {
  std::string digits_and_dots;
  if (value.starts_with("(")) {
    for (char ch : value) {
      if (std::isdigit(static_cast<unsigned char>(ch))) digits_and_dots += ch;
      if (ch == ',') digits_and_dots += '.';
    }
    return digits_and_dots.empty() ? value : digits_and_dots;
  }
  if (!text::is_digits(value) || value.size() < 4 || value.size() > 6) return value;
  const long v = std::stol(value);
  const long major = v >= 90000 ? v / 10000 : v / 1000;
  const long rest = v >= 90000 ? v % 10000 : v % 1000;
  return fmt::format("{}.{}.{}", major, rest / 100, rest % 100);
}

const std::vector<std::string>& capture_names() {
  static const std::vector<std::string> names = {
      "lib",     "cuda",   "cudnn",    "loaded",   "compiled", "found",  "symbol",
      "cc",      "min",    "package",  "other",    "ordinal",  "status", "dll",
      "version", "until",  "required", "names",    "log",      "plan",   "variable",
      "value",   "action", "affected", "fixed_in", "last_good"};
  return names;
}

bool captured(const Cause& c, const std::string& name) {
  const auto it = c.captures.find(name);
  return it != c.captures.end() && !it->second.empty();
}

// "explain.<part>.<id>.<signature>": the text the cause's first signature brings, where it has one.
std::optional<std::string> signature_text_key(const Cause& c, std::string_view part,
                                              const kb::Messages& m) {
  if (c.signatures.empty()) return std::nullopt;
  std::string key = fmt::format("explain.{}.{}.{}", part, c.id, c.signatures.front());
  if (!m.has(key)) return std::nullopt;
  return key;
}

// "explain.why.<id>", or a text that says more: the signature's own (an "other" cause, a DLL that
// names no runtime), or the cause's text for a log that lacks one of its captures
// ("explain.why.<id>.without_other": no other CUDA on the log's search path; ".without_lib": a
// message that names no library, ".without_cuda": a library no table maps to its CUDA,
// ".without_cc": one that names no compute capability, and so on, so no "unknown" in the text;
// the first capture of this order the log lacks and a text exists for decides).
std::string message_key(const Cause& c, std::string_view part, const kb::Messages& m) {
  if (auto specific = signature_text_key(c, part, m)) return *specific;
  std::string key = fmt::format("explain.{}.{}", part, c.id);
  for (const char* capture : {"lib", "cuda", "cudnn", "compiled", "other", "cc", "symbol",
                              "package", "log", "plan", "version", "fixed_in"}) {
    const std::string without = key + ".without_" + capture;
    if (!captured(c, capture) && m.has(without)) return without;
  }
  return key;
}

kb::MessageArgs args_of(const Cause& c, const kb::Messages& m) {
  kb::MessageArgs args;
  for (const auto& name : capture_names())
    args.emplace_back(name,
                      captured(c, name) ? c.captures.at(name) : m.text("report.unknown_value"));
  return args;
}

std::vector<std::string> absent_captures(const Cause& c) {
  std::vector<std::string> absent;
  for (const auto& name : capture_names())
    if (!captured(c, name)) absent.push_back(name);
  return absent;
}

// The cause's text for its part, without the parentheses about what the log did not say.
std::string explanation_text(const Cause& c, std::string_view part, const kb::Messages& m) {
  return m.text_without(message_key(c, part, m), args_of(c, m), absent_captures(c));
}

// What each informing line the log holds means: one text per signature, after the cause's own.
std::string informational_text(const Cause& c, const kb::Messages& m) {
  std::string text = m.text(fmt::format("explain.why.{}", c.id));
  for (const auto& signature : c.signatures)
    text += " " + m.text(fmt::format("explain.why.{}.{}", c.id, signature));
  return text;
}

// What the known bug that a line names does, from its signature's own text.
std::string bug_text(const Cause& c, const kb::Messages& m) {
  std::string text;
  for (const auto& signature : c.signatures) {
    const std::string key = fmt::format("explain.bug.{}", signature);
    if (!m.has(key)) continue;
    text = " " + m.text(key);
    break;
  }
  if (const auto release = c.captures.find("release"); release != c.captures.end())
    text += " " + m.text("explain.bug.release_not_known", {{"release", release->second}});
  return text;
}

// Lines that only inform are the answer only when nothing else is: beside any other cause, the
// log's, the machine's or one the log's lines resemble, they say nothing about it. A log that
// shows a failure without an error word ("GPU available: False") is compared with reported
// cases, and TensorFlow's start-up notes around it must not outrank what it resembles.
void keep_informational_alone(std::vector<Cause>& causes) {
  const bool others = std::any_of(causes.begin(), causes.end(),
                                  [](const Cause& c) { return c.id != kInformationalCause; });
  if (others) std::erase_if(causes, [](const Cause& c) { return c.id == kInformationalCause; });
}

// Frameworks name the device on "capability" lines (TensorFlow, PyTorch, llama.cpp) or after
// "name: " (TensorFlow 1): two plain searches, no regex.
constexpr std::string_view kCapabilityMarker = "apability";
constexpr std::string_view kNameMarker = "name: ";
constexpr size_t kLongestDeviceMarker = std::max(kCapabilityMarker.size(), kNameMarker.size());

size_t first_device_marker(std::string_view text) {
  return std::min(text.find(kCapabilityMarker), text.find(kNameMarker));
}

// The capability of the first of the log's device lines the GPU tables resolve.
std::optional<std::string> device_capability(const std::vector<std::string>& lines,
                                             const kb::Kb& kb) {
  for (const auto& line : lines) {
    if (auto gpu = kb::find_gpu(kb, line); gpu && !gpu->compute_capability.empty())
      return gpu->compute_capability;
  }
  return std::nullopt;
}

}  // namespace

namespace {

bool is_host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}

bool is_user_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

size_t skip_while(std::string_view line, size_t at, bool (*accept)(char)) {
  while (at < line.size() && accept(line[at]))
    ++at;
  return at;
}

// bash's default prompts: Debian's "user@host:~/dir$ ", Red Hat's "[user@host dir]$ ", after a
// conda or venv "(name) ".
std::optional<std::string_view> prompt_host(std::string_view line) {
  size_t at = 0;
  if (line.starts_with("(")) {
    const size_t close = line.find(") ");
    if (close == std::string_view::npos || close > 64) return std::nullopt;
    at = close + 2;
  }
  const bool bracket = at < line.size() && line[at] == '[';
  if (bracket) ++at;
  const size_t user_end = skip_while(line, at, is_user_char);
  if (user_end == at || user_end >= line.size() || line[user_end] != '@') return std::nullopt;
  const size_t host_begin = user_end + 1;
  const size_t host_end = skip_while(line, host_begin, is_host_char);
  if (host_end == host_begin || host_end + 1 >= line.size()) return std::nullopt;
  const char after = line[host_end];
  const char dir = line[host_end + 1];
  if (bracket ? after != ' ' : after != ':' || (dir != '~' && dir != '/')) return std::nullopt;
  const size_t end = line.find_first_of("$#", host_end);
  if (end == std::string_view::npos || (bracket && line[end - 1] != ']')) return std::nullopt;
  return line.substr(host_begin, host_end - host_begin);
}

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

bool is_program_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
         c == '/';
}

// syslog's and journalctl's short format: "Jan 08 19:28:33 host program[pid]: ".
std::optional<std::string_view> journal_host(std::string_view line) {
  constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  if (line.size() < 20 || line[3] != ' ') return std::nullopt;
  const size_t month = kMonths.find(line.substr(0, 3));
  if (month == std::string_view::npos || month % 3 != 0) return std::nullopt;
  size_t at = line[4] == ' ' ? 5 : 4;
  const size_t day_end = skip_while(line, at, is_digit);
  if (day_end == at || day_end - at > 2 || day_end + 10 > line.size()) return std::nullopt;
  const std::string_view time = line.substr(day_end + 1, 8);
  if (line[day_end] != ' ' || time[2] != ':' || time[5] != ':' ||
      skip_while(time, 0, [](char c) { return is_digit(c) || c == ':'; }) != 8 ||
      line[day_end + 9] != ' ') {
    return std::nullopt;
  }
  const size_t host_begin = day_end + 10;
  const size_t host_end = skip_while(line, host_begin, is_host_char);
  if (host_end == host_begin || host_end >= line.size() || line[host_end] != ' ')
    return std::nullopt;
  const size_t program_end = skip_while(line, host_end + 1, is_program_char);
  if (program_end == host_end + 1) return std::nullopt;
  size_t colon = program_end;
  if (colon < line.size() && line[colon] == '[') {
    colon = skip_while(line, colon + 1, is_digit);
    if (colon >= line.size() || line[colon] != ']') return std::nullopt;
    ++colon;
  }
  if (colon >= line.size() || line[colon] != ':') return std::nullopt;
  return line.substr(host_begin, host_end - host_begin);
}

}  // namespace

std::optional<std::string_view> host_of_line(std::string_view line) {
  if (auto host = prompt_host(line)) return host;
  return journal_host(line);
}

std::optional<std::string> missing_library(const Cause& cause) {
  if (!kLibraryMissing.contains(cause.id) || cause.unloaded_library.empty()) return std::nullopt;
  return cause.unloaded_library;
}

std::string log_platform(const LogFacts& log) {
  if (log.platforms.contains("wsl")) return "wsl";
  return log.platforms.size() == 1 ? *log.platforms.begin() : "";
}

bool same_platform(const std::string& log_platform, const std::string& machine_platform) {
  return log_platform.empty() || machine_platform.empty() || log_platform == machine_platform;
}

size_t Collector::first_candidate(std::string_view text) const {
  // Every line of the head, so that a message wrapped over two of them can be joined.
  if (head_bytes_ < kWrappedHeadBytes) return 0;
  const size_t signature = signatures_.first_candidate(text);
  if (log_facts_.device_lines.size() >= kMaxDeviceLines) return signature;
  // Only up to the signature's candidate (and a marker that starts before it): the reader asks
  // again after it, and a search to the end of the chunk on every call would read each chunk
  // once per delivered line.
  const std::string_view before =
      signature == std::string_view::npos
          ? text
          : text.substr(0, std::min(text.size(), signature + kLongestDeviceMarker));
  return std::min(signature, first_device_marker(before));
}

namespace {

// "0079" is Xid 79.
std::string without_leading_zeros(const std::string& digits) {
  const size_t first = digits.find_first_not_of('0');
  return first == std::string::npos ? "0" : digits.substr(first);
}

// Alternatives of one pattern name their groups lib, lib2 …: one capture per name, the one that
// took part in the match. A library or version at the end of a sentence ("Could not load library
// libcudnn_cnn_infer.so.8. Error: …") loses the sentence's period: no name or version ends in one.
std::map<std::string, std::string> captures_by_name(
    const std::map<std::string, std::string>& captures) {
  std::map<std::string, std::string> out;
  for (auto [name, value] : captures) {
    while (!value.empty() && std::string_view(".,;:").find(value.back()) != std::string_view::npos)
      value.pop_back();
    if (value.empty()) continue;
    std::string key = name;
    while (!key.empty() && std::isdigit(static_cast<unsigned char>(key.back())))
      key.pop_back();
    out.emplace(std::move(key), value);
  }
  return out;
}

}  // namespace

void Collector::record(Cause& cause, const Signature& sig, size_t line_number,
                       std::string_view line,
                       const std::map<std::string, std::string>& captures) const {
  if (std::find(cause.signatures.begin(), cause.signatures.end(), sig.id) ==
      cause.signatures.end()) {
    cause.signatures.push_back(sig.id);
  }
  if (cause.evidence.size() < kMaxEvidence &&
      (cause.evidence.empty() || cause.evidence.back().line != line_number)) {
    // A pasted line can be huge; the evidence keeps its start.
    cause.evidence.push_back({line_number, std::string(line.substr(0, 500))});
  }
  for (auto& [name, value] : captures_by_name(captures)) {
    if (sig.id == "nvrm_xid" && name == "status" && cause.xid_codes.size() < kMaxXidCodes)
      cause.xid_codes.insert(without_leading_zeros(value));
    cause.captures.emplace(name, std::move(value));
  }
  if (cause.unloaded_library.empty() && kLibraryMissing.contains(sig.cause)) {
    if (const auto lib = cause.captures.find("lib"); lib != cause.captures.end())
      cause.unloaded_library = unloaded_library(cause.id, lib->second);
  }
}

bool Collector::on_line(size_t line_number, std::string_view written) {
  // What the line says inside the wrapping that carried it (a Docker or journal record, a
  // quoted reply, a web page's entities): the signatures and the reported cases know that.
  const std::optional<std::string> unwrapped = unwrapped_message(written);
  const std::string_view line = unwrapped ? std::string_view(*unwrapped) : written;
  if (log_facts_.device_lines.size() < kMaxDeviceLines &&
      first_device_marker(line) != std::string_view::npos)
    log_facts_.device_lines.emplace_back(line.substr(0, 500));
  const std::set<size_t> hits = match(line_number, line);
  bool joined = false;
  if (head_bytes_ < kWrappedHeadBytes) {
    std::set<size_t> said = match_wrapped(line_number, line, written.size(), hits);
    said.insert(hits.begin(), hits.end());
    joined = follow_wrap(line_number, written, unwrapped.has_value(), said);
    record_host(line_number, written);  // the journal's prefix names the host
  }
  head_bytes_ += line.size() + 1;
  if (similar_ && !joined) keep_for_similar(line);
  return true;
}

void Collector::record_host(size_t line_number, std::string_view line) {
  auto& kept = log_facts_.hosts;
  if (kept.size() >= kMaxLogEnvironments) return;
  const auto host = host_of_line(line);
  if (!host || std::any_of(kept.begin(), kept.end(),
                           [&](const LogFacts::Seen& seen) { return seen.version == *host; })) {
    return;
  }
  kept.push_back({std::string(*host), {line_number, std::string(line.substr(0, 500))}});
}

void Collector::keep_for_similar(std::string_view line) {
  text_bytes_ += line.size() + 1;
  if (text_bytes_ <= kShortLogBytes && !is_harmless_line(line)) {
    short_text_.append(line).push_back('\n');
    if (names_gpu_stack(line) && !is_tensorflow_info(line)) gpu_text_.append(line).push_back('\n');
  }
  if (error_text_.size() + line.size() < kMaxErrorTextBytes && is_error_line(line))
    error_text_.append(line).push_back('\n');
}

void Collector::add_similar(std::vector<Cause>& causes) const {
  // A short log without an error line (a paste of "False" after is_available()) is compared by
  // its lines that name the GPU stack (whole when none does: the program's other output would
  // only blur it), but then only a close neighbour is worth naming.
  const bool whole = error_text_.empty() && text_bytes_ <= kShortLogBytes;
  const std::string& short_text = gpu_text_.empty() ? short_text_ : gpu_text_;
  const auto votes = similar_->vote(whole ? short_text : error_text_,
                                    whole ? kShortLogMinSimilarity : 0.0, exclude_url_);
  size_t added = 0;
  for (const auto& v : votes) {
    if (added == kMaxSimilarCauses) break;
    const bool named =
        std::any_of(causes.begin(), causes.end(), [&](const Cause& c) { return c.id == v.cause; });
    if (named) continue;
    Cause c;
    c.id = v.cause;
    // Below every signature: a resemblance, not a message recognised.
    c.confidence = 0.5 * v.share;
    c.symptom_only = false;
    c.similar = true;
    c.similar_votes = v.votes;
    c.reports = v.reports;
    c.first_line = std::numeric_limits<size_t>::max();
    c.device_lines = log_facts_.device_lines;
    causes.push_back(std::move(c));
    ++added;
  }
}

std::set<size_t> Collector::match_wrapped(size_t line_number, std::string_view line,
                                          size_t written_width, const std::set<size_t>& hits) {
  std::set<size_t> joined;
  const std::string_view second = text::trim(line);
  if (!previous_.empty() && previous_number_ + 1 == line_number && !second.empty() &&
      line.size() <= kWrappedLineBytes) {
    // Only what neither half says alone: a message the wrap had cut. Wrapped at a space
    // ("find \n registered") or inside a word ("CuD \n NN library").
    std::set<size_t> already = previous_hits_;
    already.insert(hits.begin(), hits.end());
    const std::string unspaced = previous_ + std::string(second);
    joined = match(previous_number_, previous_ + " " + std::string(second), already);
    already.insert(joined.begin(), joined.end());
    const auto more = match(previous_number_, unspaced, already);
    joined.insert(more.begin(), more.end());
    already.insert(more.begin(), more.end());
    if (previous_console_cut_)
      complete_cut_captures(unspaced, already, previous_number_, line_number);
  }
  previous_.clear();
  if (line.size() <= kWrappedLineBytes) previous_ = std::string(text::trim(line));
  previous_number_ = line_number;
  previous_hits_ = hits;
  previous_console_cut_ = written_width == line.size() && is_console_width(line.size());
  return joined;
}

namespace {

// Rows of a table drawn in text (nvidia-smi's "| ... |" and "+---+") are as wide as each other
// too, but each starts and ends with a rule; a terminal's cut falls anywhere in a message.
bool framed(std::string_view line) {
  const auto rule = [](char c) { return std::ispunct(static_cast<unsigned char>(c)) != 0; };
  return !line.empty() && rule(line.front()) && rule(line.back());
}
bool same_frame(std::string_view a, std::string_view b) {
  return framed(a) && framed(b);
}

}  // namespace

bool Collector::follow_wrap(size_t line_number, std::string_view written, bool wrapped,
                            const std::set<size_t>& hits) {
  // A line with its own wrapping (a journal's or a CI runner's time) starts a line of its own.
  const bool continues = run_.pieces > 0 && run_.last_line + 1 == line_number && !wrapped &&
                         !written.empty() && written.size() <= run_.width &&
                         run_.pieces < kMaxWrapPieces &&
                         !same_frame(std::string_view(run_.text).substr(0, run_.width), written);
  if (continues) {
    run_.text.append(written);
    run_.hits.insert(hits.begin(), hits.end());
    ++run_.pieces;
    run_.last_line = line_number;
    // As wide as the first, it may go on; what the pieces say so far is matched now, so a run
    // at the end of the log or of its head is not lost.
    if (written.size() == run_.width) {
      if (run_.pieces >= 3) {
        const auto said = match(run_.first_line, message_of(run_.text), run_.hits);
        run_.hits.insert(said.begin(), said.end());
      }
      return false;
    }
  }
  const bool joined = end_run();
  run_ = {};
  if (!continues && is_console_width(written.size())) {
    run_.text = std::string(written);
    run_.width = written.size();
    run_.first_line = run_.last_line = line_number;
    run_.pieces = 1;
    run_.hits = hits;
    run_.error_text_size = error_text_.size();
    run_.short_text_size = short_text_.size();
    run_.gpu_text_size = gpu_text_.size();
    run_.text_bytes = text_bytes_;
  }
  return joined && continues;
}

bool Collector::end_run() {
  // Two pieces were matched as a pair (match_wrapped); the reported cases compare them whole
  // where the cut fell inside a word, which halves would miss. Not a word's end before a
  // capital: PyTorch's own message breaks "…used to compile" and "PyTorch (11.7)" at 80.
  const auto byte = [&](size_t at) { return static_cast<unsigned char>(run_.text[at]); };
  const bool cut_word = run_.pieces == 2 && std::isalnum(byte(run_.width - 1)) &&
                        std::isalnum(byte(run_.width)) &&
                        !(std::islower(byte(run_.width - 1)) && std::isupper(byte(run_.width)));
  if (run_.pieces < 3 && !cut_word) return false;
  const std::string message = message_of(run_.text);
  if (run_.pieces >= 3) {
    match(run_.first_line, message, run_.hits);
    complete_cut_captures(message, run_.hits, run_.first_line, run_.last_line);
  }
  if (!similar_) return true;
  error_text_.resize(run_.error_text_size);
  short_text_.resize(run_.short_text_size);
  gpu_text_.resize(run_.gpu_text_size);
  text_bytes_ = run_.text_bytes;
  keep_for_similar(message);
  return true;
}

// A piece or a pair of pieces matched a signature whose capture the console's cut shortened
// ("jaxlib==0.4.7+cuda11.cu"): the whole line, matched again, completes it. Only a capture the
// whole line's one begins with is a shortened one, and only in a cause these pieces showed.
void Collector::complete_cut_captures(const std::string& message, const std::set<size_t>& hits,
                                      size_t first_line, size_t last_line) {
  for (const auto& hit : signatures_.match(message)) {
    const Signature& sig = signatures_.all()[hit.signature];
    if (sig.fact || !hits.count(hit.signature)) continue;
    const auto found = by_cause_.find(sig.cause);
    if (found == by_cause_.end()) continue;
    Cause& cause = found->second;
    const bool shown_here =
        std::any_of(cause.evidence.begin(), cause.evidence.end(),
                    [&](const Evidence& e) { return e.line >= first_line && e.line <= last_line; });
    if (!shown_here) continue;
    for (auto& [name, whole] : captures_by_name(hit.captures)) {
      const auto kept = cause.captures.find(name);
      if (kept == cause.captures.end() || kept->second.size() >= whole.size() ||
          !whole.starts_with(kept->second)) {
        continue;
      }
      kept->second = whole;
      if (name == "lib" && kLibraryMissing.contains(sig.cause))
        cause.unloaded_library = unloaded_library(cause.id, whole);
    }
  }
}

std::set<size_t> Collector::match(size_t line_number, std::string_view line,
                                  const std::set<size_t>& already) {
  auto hits = signatures_.match(line);
  // A line that only informs names no cause, whatever else its words match: TensorFlow's
  // allocator note says "ran out of memory" and "this is not a failure".
  const auto informs = [&](const SignatureHit& hit) {
    return signatures_.all()[hit.signature].cause == kInformationalCause;
  };
  if (std::any_of(hits.begin(), hits.end(), informs)) {
    std::erase_if(hits, [&](const SignatureHit& hit) {
      return !informs(hit) && !signatures_.all()[hit.signature].fact;
    });
  }
  // Of the signatures one line matches, the most specific (the highest weight) names the cause;
  // the others' causes become alternatives ("No matching distribution found for
  // jaxlib==0.4.7+cuda11" is JAX's missing Windows GPU build, not the Python version). A line
  // joined from pieces is one line with them: what a piece matched alone counts here too.
  double best = 0;
  for (const auto& hit : hits) {
    const Signature& sig = signatures_.all()[hit.signature];
    if (!sig.fact) best = std::max(best, sig.weight);
  }
  hits.erase(std::remove_if(hits.begin(), hits.end(),
                            [&](const auto& hit) { return already.count(hit.signature) > 0; }),
             hits.end());
  std::set<size_t> matched;
  for (const auto& hit : hits)
    matched.insert(hit.signature);
  for (const auto& hit : hits) {
    const Signature& sig = signatures_.all()[hit.signature];
    if (sig.fact) {
      record_fact(sig, line_number, line, hit.captures);
    } else if (sig.weight < best) {
      add_alternative(sig.cause, sig, kAlternativeShare, line_number, line, hit.captures);
      alternatives_[sig.cause].named_less_specifically = true;
    } else {
      Cause& cause = by_cause_[sig.cause];
      if (cause.id.empty()) {
        cause.id = sig.cause;
        cause.first_line = line_number;
      }
      cause.confidence = std::max(cause.confidence, sig.weight);
      cause.symptom_only = cause.symptom_only && sig.symptom;
      cause.other_readings.insert(sig.also.begin(), sig.also.end());
      record(cause, sig, line_number, line, hit.captures);
    }
    // The causes behind the same message in other threads, each less likely than the last.
    double share = kAlternativeShare;
    for (const auto& other : sig.also) {
      add_alternative(other, sig, share, line_number, line, hit.captures);
      share *= kAlternativeShare;
    }
  }
  return matched;
}

void Collector::record_fact(const Signature& sig, size_t line_number, std::string_view line,
                            const std::map<std::string, std::string>& all_captures) {
  const auto captures = captures_by_name(all_captures);
  const auto seen_here = [&](std::string value) {
    return LogFacts::Seen{std::move(value), {line_number, std::string(line.substr(0, 500))}};
  };
  if (sig.cause.starts_with("platform.")) {
    log_facts_.platforms.insert(sig.cause.substr(9));
  } else if (sig.cause.starts_with("version.")) {
    const auto version = captures.find("version");
    if (version == captures.end()) return;
    const std::string family = sig.cause.substr(8);
    log_facts_.versions.emplace(
        family,
        seen_here(family == "cudnn" ? dotted_cudnn_version(version->second) : version->second));
  } else if (sig.cause == "framework.module") {
    const auto module = captures.find("module");
    if (module == captures.end()) return;
    log_facts_.modules.insert(text::to_lower(module->second));
  } else if (sig.cause == "runtime.on_device") {
    const auto cc = captures.find("cc");
    const auto cuda = captures.find("runtime");
    if (cc == captures.end() || cuda == captures.end() || log_facts_.runtime_on_device) return;
    log_facts_.runtime_on_device = {cc->second, cuda->second, seen_here("").line};
  } else if (sig.cause == "gpu.named") {
    if (log_facts_.device_lines.size() < kMaxDeviceLines)
      log_facts_.device_lines.emplace_back(line.substr(0, 500));
  } else if (sig.cause == "path.site_packages") {
    const auto dir = captures.find("dir");
    auto& kept = log_facts_.site_packages;
    if (dir == captures.end() || kept.size() >= kMaxLogEnvironments ||
        std::any_of(kept.begin(), kept.end(),
                    [&](const LogFacts::Seen& seen) { return seen.version == dir->second; })) {
      return;
    }
    kept.push_back(seen_here(dir->second));
  } else if (sig.cause == "package.installed") {
    const auto names = captures.find("names");
    const auto status = captures.find("status");
    const bool removed = status != captures.end() && !status->second.empty();
    if (names != captures.end()) record_installed(names->second, removed, line_number, line);
  } else if (sig.cause == "package.listed") {
    const auto package = captures.find("package");
    const auto version = captures.find("version");
    if (package == captures.end() || version == captures.end()) return;
    // PEP 503 names, as data/python_packages.csv spells them.
    log_facts_.listed.emplace(python::normalize_name(package->second), seen_here(version->second));
  }
}

// pip's "Successfully installed onnxruntime-1.23.2 onnxruntime-gpu-1.23.2" (and, later in the
// log, "Successfully uninstalled onnxruntime-1.23.2"): each word is a name and a version as a
// dist-info directory writes them.
void Collector::record_installed(std::string_view words, bool removed, size_t line_number,
                                 std::string_view line) {
  for (const auto& word : text::split(words, ' ')) {
    const auto id = python::split_name_version(word);
    if (!id) continue;
    const std::string name = python::normalize_name(id->name);
    if (removed) {
      log_facts_.listed.erase(name);
      continue;
    }
    log_facts_.listed.insert_or_assign(
        name, LogFacts::Seen{id->version, {line_number, std::string(line.substr(0, 500))}});
  }
}

void Collector::add_alternative(const std::string& id, const Signature& sig, double share,
                                size_t line_number, std::string_view line,
                                const std::map<std::string, std::string>& captures) {
  Cause& alternative = alternatives_[id];
  if (alternative.id.empty()) {
    alternative.id = id;
    alternative.first_line = line_number;
    alternative.alternative = true;
  }
  alternative.confidence = std::max(alternative.confidence, sig.weight * share);
  alternative.symptom_only = alternative.symptom_only && sig.symptom;
  record(alternative, sig, line_number, line, captures);
}

std::vector<Cause> Collector::causes() const {
  std::vector<Cause> out;
  for (const auto& [id, cause] : by_cause_) {
    out.push_back(cause);
    out.back().device_lines = log_facts_.device_lines;
  }
  // A cause the log names outranks the same cause as another message's alternative.
  for (const auto& [id, cause] : alternatives_) {
    if (by_cause_.contains(id)) continue;
    out.push_back(cause);
    out.back().device_lines = log_facts_.device_lines;
  }
  // A line that only informs explains a log only where no line reads like an error it does not
  // know: such a line's cause is elsewhere, and no answer is better than "nothing is wrong". The
  // error lines are those kept for the reported cases, so a Collector without them (the tests'
  // signatures-only explain) does not apply this rule.
  if (!error_text_.empty())
    std::erase_if(out, [](const Cause& c) { return c.id == kInformationalCause; });
  if (similar_) add_similar(out);
  return out;
}

std::vector<Cause> reason(std::vector<Cause> causes, const kb::Kb& kb, const kb::Messages& m,
                          const std::optional<MachineFindings>& machine, const LogFacts& log) {
  // What reported cases resemble is no line of the log: the reasoning about what its lines say
  // (which library, which CUDA, what else they name) is done without them.
  std::vector<Cause> similar;
  for (auto& c : causes)
    if (c.similar) similar.push_back(std::move(c));
  std::erase_if(causes, [](const Cause& c) { return c.similar; });
  // Every cause carries the same device lines: resolve them once.
  const std::optional<std::string> device_cc =
      causes.empty() ? std::nullopt : device_capability(causes.front().device_lines, kb);
  for (auto& c : causes) {
    // Another message's library is said in a cause's own text only where it is of the kind that
    // text means (a line asking for libcudart.so.11.0 names no compiled extension); a
    // signature's own text was written for its captures.
    if (const auto lib = c.captures.find("lib"); lib != c.captures.end() &&
                                                 !library_fits_cause(c.id, lib->second) &&
                                                 !signature_text_key(c, "why", m)) {
      c.captures.erase(lib);
    }
    // Interpretation: the library asked for names the CUDA or cuDNN it belongs to.
    if (const auto lib = c.captures.find("lib"); lib != c.captures.end()) {
      if (c.id.starts_with("cuda.")) {
        if (auto cuda = cuda_of_library(kb, lib->second)) c.captures.emplace("cuda", *cuda);
      } else if (c.id.starts_with("cudnn.")) {
        if (auto cudnn = cudnn_of_library(lib->second)) c.captures.emplace("cudnn", *cudnn);
      }
    }
    // Versions as frameworks print them, dotted: PyTorch's (8, 5, 0), and cuDNN's integer
    // CUDNN_VERSION (8906 is 8.9.6; from 9.0 90100 is 9.1.0).
    if (c.id.starts_with("cudnn.")) {
      for (const char* key : {"loaded", "compiled"}) {
        if (auto it = c.captures.find(key); it != c.captures.end())
          it->second = dotted_cudnn_version(it->second);
      }
    }
    // "sm_86" as a capability: 8.6.
    if (auto it = c.captures.find("cc"); it != c.captures.end() && text::is_digits(it->second) &&
                                         it->second.size() >= 2 && it->second.size() <= 3) {
      it->second.insert(it->second.size() - 1, ".");
    }
    // The device the log names, when no signature said its capability.
    if (device_cc) c.captures.emplace("cc", *device_cc);
    // TensorFlow appends LD_LIBRARY_PATH to "Could not load" lines: a toolkit of another CUDA
    // there means the runtime asked for is of the wrong version; one of the same CUDA, that the
    // toolkit lacks its runtime.
    const auto other = c.captures.find("other");
    const auto cuda = c.captures.find("cuda");
    if (family_of(c.id) == "cuda.runtime_missing" && other != c.captures.end() &&
        cuda != c.captures.end()) {
      c.id =
          same_cuda(cuda->second, other->second) ? "cuda.runtime_missing" : "cuda.version_mismatch";
    }
  }
  name_architectures_of_the_past(causes, kb);
  name_xids(causes, kb, m);
  // A CUDA runtime and cuDNN both missing: one cause (nothing installed, or not on the search
  // path) explains both lines better than a CUDA of another version next to a missing cuDNN.
  swap_when_cudnn_missing_too(causes);
  // Of one family the facts decide which it is: no CUDA at all, or one of another version.
  if (machine && machine->ranks) {
    for (auto& c : causes) {
      if (const Finding* finding = finding_of(c.id, machine)) {
        c.id = finding->id;
      } else if (const auto* loads = library_on_machine(c, machine);
                 loads && !*loads && family_of(c.id) == "cuda.runtime_missing") {
        decide_cuda_family(c, *machine);
      }
    }
  }
  // Two signatures may have led to one cause after interpretation: merge them.
  std::map<std::string, Cause> merged;
  for (auto& c : causes) {
    auto [it, inserted] = merged.emplace(c.id, c);
    if (inserted) continue;
    Cause& into = it->second;
    into.confidence = std::max(into.confidence, c.confidence);
    into.symptom_only = into.symptom_only && c.symptom_only;
    into.alternative = into.alternative && c.alternative;
    into.named_less_specifically = into.named_less_specifically || c.named_less_specifically;
    into.first_line = std::min(into.first_line, c.first_line);
    for (auto& e : c.evidence) {
      const bool known = std::any_of(into.evidence.begin(), into.evidence.end(),
                                     [&](const Evidence& x) { return x.line == e.line; });
      if (!known && into.evidence.size() < kMaxEvidence) into.evidence.push_back(std::move(e));
    }
    for (auto& [k, v] : c.captures)
      into.captures.emplace(k, v);
    into.xid_codes.insert(c.xid_codes.begin(), c.xid_codes.end());
    if (into.unloaded_library.empty()) into.unloaded_library = c.unloaded_library;
  }
  causes.clear();
  for (auto& [id, c] : merged)
    causes.push_back(std::move(c));
  apply_known_release_bugs(causes, kb, log, m, machine);
  const std::string platform = log_platform(log);
  apply_windows_native_limit(causes, kb, log, platform);
  apply_runtime_without_gpu_arch(causes, kb, log);
  const auto builds = build_candidates(kb, log, platform);
  apply_driver_below_build(causes, log, builds);
  name_builds_listed_together(causes, kb, log);
  apply_log_platform(causes, kb, platform);
  apply_log_platform(similar, kb, platform);
  apply_platform_without_cuda(causes, kb, platform);
  for (auto& c : similar) {
    const bool named = std::any_of(causes.begin(), causes.end(),
                                   [&](const Cause& other) { return other.id == c.id; });
    // A reported case's cause this catalog has no words for is not shown either.
    if (!named && m.has(fmt::format("explain.why.{}", c.id))) causes.push_back(std::move(c));
  }

  if (machine && machine->ranks) add_machine_findings(causes, machine->findings, m);
  keep_informational_alone(causes);
  const auto framework = log_framework(kb, log);
  for (auto& c : causes) {
    const Finding* finding = finding_of(c.id, machine);
    c.why = c.id == kInformationalCause ? informational_text(c, m) : explanation_text(c, "why", m);
    if (is_known_bug_cause(c.id)) {
      c.why += bug_text(c, m);
      if (const Finding* installed = known_bug_on_machine(c, machine)) {
        c.why += " " + m.text("explain.confirmed", {{"title", installed->title}});
        if (!installed->evidence.empty()) {
          c.why += " " + m.text("explain.confirmed_evidence",
                                {{"evidence", installed->evidence.front()}});
        }
      }
    }
    // A known bug's text says itself when the log's release leaves it one reading of the line.
    if (c.alternative && !captured(c, "affected")) {
      c.why += " " + m.text(c.named_less_specifically ? "explain.alternative.less_specific"
                                                      : "explain.alternative");
    }
    if (c.similar) {
      // Ranked by the classifier, a cause may have no case among the nearest few.
      c.why += " " + (c.similar_votes
                          ? m.text("explain.similar", {{"count", std::to_string(c.similar_votes)}})
                          : m.text("explain.similar_words"));
    }
    if (c.off_platform) {
      c.why += " " + m.text("explain.off_platform",
                            {{"platform", m.text("explain.platform." + platform)}});
    }
    c.fix.clear();
    if (finding && !machine->ranks) {
      // The log may come from another machine: the checks' finding is said, and decides nothing.
      if (finding->id == c.id)
        c.why += " " + m.text("explain.also_on_this_machine", {{"title", finding->title}});
    } else if (finding) {
      c.confirmed_by_facts = true;
      c.confidence = std::min(0.99, c.confidence + 0.1);
      c.why += " " + m.text(c.machine_only ? "explain.machine_only" : "explain.confirmed",
                            {{"title", finding->title}});
      // The fact that decided it (the GPU code a library holds, the version a file says) is
      // what the user can check; the finding's first evidence line is that fact.
      if (!finding->evidence.empty()) {
        c.why +=
            " " + m.text("explain.confirmed_evidence", {{"evidence", finding->evidence.front()}});
      }
      c.fix = finding->fix;
    } else if (const auto* loads = library_on_machine(c, machine)) {
      // The checks look only at the libraries of the frameworks they know; the loader's own
      // answer for the one the log names speaks for any program. Where it finds the library, the
      // program's search path differed or it came since: the log's cause held for that run, so
      // it is left undecided, with where it is now.
      if (!*loads) {
        c.confirmed_by_facts = true;
        c.confidence = std::min(0.99, c.confidence + 0.1);
      }
      c.why += " " + library_words(c, *loads, *machine, m);
    } else if (machine && machine->ranks && kDecidable.contains(c.id) && !missing_library(c)) {
      c.confirmed_by_facts = false;
      c.confidence *= 0.6;
      c.why += " " + m.text("explain.contradicted");
    }
    // The build the log names says exactly which CUDA and cuDNN; the generic fix only what the
    // library's name does.
    const auto needs = build_for(c, builds);
    const std::string generic = needs ? build_fix(c.id, *needs, m)
                                      : explanation_text(with_plan_command(c, framework), "fix", m);
    if (std::find(c.fix.begin(), c.fix.end(), generic) == c.fix.end()) c.fix.push_back(generic);
    std::sort(c.evidence.begin(), c.evidence.end(),
              [](const Evidence& a, const Evidence& b) { return a.line < b.line; });
  }
  const auto readings = readings_of_other_lines(causes);
  const auto order = layer_order(kb);
  const auto layer = [&](const Cause& c) {
    const auto it = order.find(c.id);
    return it == order.end() ? order.size() : it->second;
  };
  std::stable_sort(causes.begin(), causes.end(), [&](const Cause& a, const Cause& b) {
    const bool a_out = a.confirmed_by_facts == false;
    const bool b_out = b.confirmed_by_facts == false;
    if (a_out != b_out) return b_out;
    // What the facts show outranks what they cannot decide.
    const bool a_shown = a.confirmed_by_facts == true && !a.machine_only;
    const bool b_shown = b.confirmed_by_facts == true && !b.machine_only;
    if (a_shown != b_shown) return a_shown;
    // What only the checks find comes after what a line of the log names on this platform, and
    // before what threads with the same message or reported cases suggest.
    if (a.machine_only != b.machine_only) {
      const Cause& other = a.machine_only ? b : a;
      const bool named = !other.similar && !other.alternative && !other.off_platform;
      return a.machine_only != named;
    }
    // What a line of the log names outranks what resembles reported cases.
    if (a.similar != b.similar) return b.similar;
    if (a.off_platform != b.off_platform) return b.off_platform;
    // Reported cases by their share of the vote.
    if (a.similar && b.similar && a.confidence != b.confidence) return a.confidence > b.confidence;
    if (a.alternative != b.alternative) return b.alternative;
    // Alternatives in the order their signatures list them.
    if (a.alternative && a.confidence != b.confidence) return a.confidence > b.confidence;
    if (a.symptom_only != b.symptom_only) return b.symptom_only;
    if (readings.contains(a.id) != readings.contains(b.id)) return readings.contains(a.id);
    if (layer(a) != layer(b)) return layer(a) < layer(b);
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    return a.first_line < b.first_line;
  });
  return causes;
}

}  // namespace gpuvet::explain
