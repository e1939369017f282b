// CUDA-layer checks over the toolkit facts: which toolkit wins on the search paths, and whether
// its nvcc takes the host compiler it would be given.
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

namespace {

// Whether a GCC version passes a host_config.h limit: "13.2.0" is later than "12", "5.4.0" than
// "5.3"; compared in the limit's parts only.
bool later_than(const std::string& gcc, const std::string& limit) {
  const auto limit_parts = text::split(limit, '.');
  auto gcc_parts = text::split(gcc, '.');
  if (gcc_parts.size() > limit_parts.size()) gcc_parts.resize(limit_parts.size());
  return version::compare(text::join(gcc_parts, "."), limit) > 0;
}

// The toolkits a build uses: the one whose nvcc is first on PATH, else those CUDA_HOME and its
// siblings name (PyTorch's extension builds take CUDA_HOME), else the only one with a limit; of
// those whose header gave the limit asked for (GCC's, or Visual Studio's).
template <typename Limit>
std::vector<const CudaToolkitFact*> building_toolkits(const Facts& f,
                                                      Limit CudaToolkitFact::*limit) {
  std::vector<const CudaToolkitFact*> out;
  for (const auto& t : f.cuda_toolkits)
    if (t.compiles && t.*limit) out.push_back(&t);
  if (!out.empty()) return out;
  for (const auto& t : f.cuda_toolkits) {
    const bool named =
        t.source == "CUDA_HOME" || t.source == "CUDA_PATH" || t.source == "CUDA_ROOT";
    if (named && t.*limit) out.push_back(&t);
  }
  if (!out.empty()) return out;
  for (const auto& t : f.cuda_toolkits)
    if (t.*limit) out.push_back(&t);
  if (out.size() > 1) out.clear();
  return out;
}

// The newest of the other installed GCCs (gcc-N programs) the toolkit takes: its path and N.
std::optional<std::pair<std::string, std::string>> accepted_other(const HostCompilerFact& compiler,
                                                                  const std::string& limit) {
  std::optional<std::pair<std::string, std::string>> best;
  for (const auto& path : compiler.other_gcc) {
    const std::string major = path.substr(path.find_last_of('-') + 1);
    if (text::is_digits(major) && !later_than(major, limit)) best = {path, major};
  }
  return best;
}

bool msvc_accepted(const HostCompilerFact& cl, const CudaToolkitFact& toolkit) {
  return cl.msc_ver && *cl.msc_ver >= toolkit.host_msc_min.value_or(0) &&
         *cl.msc_ver < *toolkit.host_msc_below;
}

// Windows: nvcc runs the cl.exe on Path, else a build hands it the newest Visual Studio's (CMake's
// Visual Studio generators pick the newest); the header refuses a _MSC_VER outside its range.
Result<bool> check_msvc_host(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  const HostCompilerFact* own = nullptr;  // the cl.exe on Path, else the newest installed
  for (const auto& c : f.host_compilers) {
    if (c.family != "msvc" || !c.msc_ver) continue;
    if (c.source == "PATH") {
      own = &c;
      break;
    }
    if (!own || *c.msc_ver >= *own->msc_ver) own = &c;
  }
  if (!own) return true;
  for (const CudaToolkitFact* toolkit : building_toolkits(f, &CudaToolkitFact::host_msc_below)) {
    if (msvc_accepted(*own, *toolkit)) continue;
    const HostCompilerFact* accepted = nullptr;  // the newest installed one it takes
    for (const auto& c : f.host_compilers) {
      if (c.family == "msvc" && msvc_accepted(c, *toolkit) &&
          (!accepted || *c.msc_ver > *accepted->msc_ver)) {
        accepted = &c;
      }
    }
    const std::string name = toolkit->version ? "CUDA " + *toolkit->version : toolkit->root;
    const int below = *toolkit->host_msc_below;
    const kb::MessageArgs args = {{"toolkit", name},
                                  {"msvc", *own->version},
                                  {"msc", std::to_string(*own->msc_ver)},
                                  {"min", std::to_string(toolkit->host_msc_min.value_or(0))},
                                  {"max", std::to_string(below - 1)},
                                  {"names", toolkit->host_msvc_names.value_or("")},
                                  {"path", own->path},
                                  {"root", toolkit->root}};
    auto finding = context.finding("cuda.host_compiler_unsupported", Severity::warning,
                                   "cuda.host_compiler_unsupported.title.msvc", args);
    if (!finding) return finding.error();
    finding->evidence.push_back(context.text(toolkit->host_msvc_names
                                                 ? "cuda.host_compiler_unsupported.limit.msvc.names"
                                                 : "cuda.host_compiler_unsupported.limit.msvc",
                                             args));
    finding->evidence.push_back(context.text(own->source == "PATH"
                                                 ? "cuda.host_compiler_unsupported.msvc.path"
                                                 : "cuda.host_compiler_unsupported.msvc.newest",
                                             args));
    if (accepted) {
      const std::string cl_dir = accepted->path.substr(0, accepted->path.find_last_of("/\\"));
      finding->fix.push_back(
          context.text("cuda.host_compiler_unsupported.fix.msvc.installed",
                       {{"msvc", *accepted->version}, {"path", accepted->path}, {"dir", cl_dir}}));
    } else {
      finding->fix.push_back(context.text("cuda.host_compiler_unsupported.fix.msvc.install", args));
    }
    finding->fix.push_back(context.text("cuda.host_compiler_unsupported.fix.msvc.toolkit", args));
    finding->details = {{"toolkit_root", toolkit->root},
                        {"msc_min", std::to_string(toolkit->host_msc_min.value_or(0))},
                        {"msc_below", std::to_string(below)},
                        {"msvc", *own->version},
                        {"compiler", own->path}};
    if (accepted) finding->details["accepted_msvc"] = accepted->path;
    findings.push_back(std::move(*finding));
  }
  return true;
}

}  // namespace

// nvcc refuses a GCC newer than its toolkit's include/crt/host_config.h allows (#error --
// unsupported GNU version!), or on Windows a Visual Studio outside its range: every CUDA
// extension build on the machine fails before compiling.
Result<bool> check_host_compiler(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (f.host_compilers.empty()) return true;
  if (f.os.family == "windows") return check_msvc_host(context, findings);
  const HostCompilerFact& own = f.host_compilers.front();
  if (own.source != "NVCC_CCBIN" && own.source != "PATH") return true;
  if (own.family != "gcc" || !own.version) return true;
  for (const CudaToolkitFact* toolkit : building_toolkits(f, &CudaToolkitFact::host_gcc_max)) {
    const std::string& limit = *toolkit->host_gcc_max;
    if (!later_than(*own.version, limit)) continue;
    // A build that hands nvcc CC's or CUDAHOSTCXX's compiler, where that one is accepted, works.
    std::vector<const HostCompilerFact*> handed;
    for (size_t i = 1; i < f.host_compilers.size(); ++i) {
      const auto& other = f.host_compilers[i];
      if (other.family == "gcc" && other.version && !later_than(*other.version, limit)) {
        handed.push_back(&other);
      }
    }
    const std::string name = toolkit->version ? "CUDA " + *toolkit->version : toolkit->root;
    const kb::MessageArgs args = {{"toolkit", name},
                                  {"limit", limit},
                                  {"gcc", *own.version},
                                  {"path", own.path},
                                  {"real_path", own.real_path},
                                  {"root", toolkit->root}};
    auto finding = context.finding("cuda.host_compiler_unsupported",
                                   handed.empty() ? Severity::warning : Severity::info,
                                   handed.empty() ? "cuda.host_compiler_unsupported.title"
                                                  : "cuda.host_compiler_unsupported.title.handed",
                                   args);
    if (!finding) return finding.error();
    finding->evidence.push_back(context.text("cuda.host_compiler_unsupported.limit", args));
    finding->evidence.push_back(context.text(own.source == "NVCC_CCBIN"
                                                 ? "cuda.host_compiler_unsupported.ccbin"
                                                 : "cuda.host_compiler_unsupported.default",
                                             args));
    for (const auto* other : handed) {
      finding->evidence.push_back(
          context.text("cuda.host_compiler_unsupported.handed." + other->source,
                       {{"path", other->path}, {"gcc", *other->version}}));
    }
    const auto installed = accepted_other(own, limit);
    if (installed) {
      finding->fix.push_back(
          context.text("cuda.host_compiler_unsupported.fix.installed",
                       {{"n", installed->second}, {"path", installed->first}, {"toolkit", name}}));
    } else {
      finding->fix.push_back(context.text("cuda.host_compiler_unsupported.fix.install", args));
    }
    finding->fix.push_back(context.text("cuda.host_compiler_unsupported.fix.toolkit", args));
    finding->details = {{"toolkit_root", toolkit->root},
                        {"gcc_max", limit},
                        {"gcc", *own.version},
                        {"compiler", own.path}};
    if (installed) finding->details["accepted_gcc"] = installed->first;
    findings.push_back(std::move(*finding));
  }
  return true;
}

// ---- build.c_compiler_missing ---------------------------------------------------------------

// Triton builds a C launcher the first time torch.compile or a Triton kernel runs; without a
// compiler that fails ("Failed to find C compiler"), while eager PyTorch runs on: a warning.
Result<bool> check_triton_compiler(const CheckContext& context, std::vector<Finding>& findings) {
  const bool windows = context.facts().os.family == "windows";
  for (const auto& env : context.facts().python_envs) {
    if (!env.triton || env.triton->c_compiler) continue;
    const TritonFact& t = *env.triton;
    const kb::MessageArgs args = {{"package", t.package},
                                  {"version", t.version},
                                  {"env", env.path},
                                  {"cc", t.cc.value_or("")}};
    auto finding = context.finding("build.c_compiler_missing", Severity::warning,
                                   "build.c_compiler_missing.title", args);
    if (!finding) return finding.error();
    finding->evidence.push_back(context.text("build.c_compiler_missing.triton", args));
    std::string searched =
        windows ? "build.c_compiler_missing.path.windows" : "build.c_compiler_missing.path.linux";
    if (t.cc) searched = "build.c_compiler_missing.cc";
    finding->evidence.push_back(context.text(searched, args));
    // A CC that names no program is the one thing to mend; without CC, a compiler to install.
    const std::string install =
        windows ? "build.c_compiler_missing.fix.msvc" : "build.c_compiler_missing.fix.apt";
    const std::string point = windows ? "build.c_compiler_missing.fix.cc.windows"
                                      : "build.c_compiler_missing.fix.cc.linux";
    for (const auto& key : t.cc ? std::vector{point, install} : std::vector{install, point})
      finding->fix.push_back(context.text(key, args));
    finding->affects.push_back(env.path);
    findings.push_back(std::move(*finding));
  }
  return true;
}

// ---- driver.libcuda_unversioned_link_missing -------------------------------------------------

namespace {

// The evidence of why Triton's -lcuda finds nothing, and the first fix for it.
std::pair<std::string, std::string> libcuda_link_keys(const LibcudaLinkFact& link) {
  const std::string key = "driver.libcuda_unversioned_link_missing";
  if (link.dirs.empty()) return {key + ".not_in_cache", key + ".fix.ldconfig"};
  if (link.dirs_from == "TRITON_LIBCUDA_PATH") return {key + ".env_dir", key + ".fix.link"};
  return {key + ".no_link", key + ".fix.link"};
}

}  // namespace

// Triton links its launcher with -lcuda the first time torch.compile or a Triton kernel runs; with
// no unversioned libcuda.so where it looks that fails, while eager PyTorch runs on: a warning.
Result<bool> check_triton_libcuda(const CheckContext& context, std::vector<Finding>& findings) {
  const Facts& f = context.facts();
  if (!f.driver || !f.driver->libcuda || !f.driver->libcuda_link) return true;
  const LibcudaLinkFact& link = *f.driver->libcuda_link;
  if (!link.dirs.empty() && !link.unversioned.empty()) return true;
  std::vector<const PythonEnvFact*> envs;
  for (const auto& env : f.python_envs)
    if (env.triton && env.triton->links_lcuda.value_or(false)) envs.push_back(&env);
  if (envs.empty()) return true;
  const TritonFact& triton = *envs.front()->triton;
  const std::string libcuda = *f.driver->libcuda;
  const std::string dir = link.dirs.empty() ? paths::parent(libcuda) : link.dirs.front();
  const kb::MessageArgs args = {{"package", triton.package},
                                {"version", triton.version},
                                {"env", envs.front()->path},
                                {"libcuda", libcuda},
                                {"dir", dir},
                                {"dirs", text::join(link.dirs, ", ")}};
  const std::string key = "driver.libcuda_unversioned_link_missing";
  auto finding = context.finding(key, Severity::warning,
                                 link.dirs.empty() ? key + ".title.cache" : key + ".title", args);
  if (!finding) return finding.error();
  const auto [evidence, fix] = libcuda_link_keys(link);
  finding->evidence.push_back(context.text(key + ".triton", args));
  finding->evidence.push_back(context.text(evidence, args));
  finding->fix.push_back(context.text(fix, args));
  finding->fix.push_back(context.text(key + ".fix.env", args));
  finding->details = {{"libcuda", libcuda}, {"dirs_from", link.dirs_from}};
  for (const auto* env : envs)
    finding->affects.push_back(env->path);
  findings.push_back(std::move(*finding));
  return true;
}

}  // namespace gpuvet::checks
