#pragma once
// The deep-learning frameworks gpuvet knows, as plug-ins: one file per framework declares how to
// read its build from installed files (never importing it), which libraries it loads and how,
// and how `plan` chooses and installs its builds. Everything else in gpuvet asks this registry;
// no other folder compares framework names. Adding a framework: docs/frameworks.md.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "facts/facts.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "system/system.hpp"

namespace gpuvet::frameworks {

// One framework build on one platform, as the knowledge base describes it.
struct Build {
  std::string framework;
  std::string platform;  // linux | windows: the KB's platform (WSL2 runs the linux builds)
  std::string version;   // "2.1.0", or a series "2.1" when the KB names only "2.1.x"
  bool series = false;
  std::optional<std::string> python_min;
  std::optional<std::string> python_max;
  std::optional<std::string> cuda;  // X.Y the build is made for
  // CuPy's cupy-cuda11x runs on any CUDA of a range (11.2 to 11.8); cuda is then the newest.
  bool cuda_range = false;
  std::optional<std::string> cudnn;
  std::string variant;                             // torch: cu121; jax: cuda12; paddle: cu118
  std::optional<std::string> min_cc;               // the build's own minimum, when the KB knows it
  std::vector<std::string> arch_list;              // torch: "8.6", "12.0+PTX" ...
  std::optional<std::string> min_driver_override;  // jax: the wheel's own driver minimum
  std::string package;                             // tensorflow-gpu, tensorflow[and-cuda] ...
  std::string package_spec;                        // when the table gives it: pip's requirement
  std::string index_option;                        // when the table gives it: -i, -f ...
  std::string index_url;
  bool wheels_bring_cuda = false;
  bool pypi_default = false;  // the variant a plain `pip install torch==V` gets
  std::vector<std::string> sources;
};

// What pip installs for a build: the requirement and where from.
struct InstallSpec {
  std::string package_spec;              // tensorflow-gpu==2.1.0, "torch==2.1.*" ...
  std::string index_option;              // "--index-url", "--extra-index-url", "-i", "-f", ""
  std::optional<std::string> index_url;  // the package index or find-links page
  bool upgrade = false;                  // pip install -U (JAX's documented form)
  std::vector<std::string> notes;        // in the user's language
  std::vector<std::string> sources;      // KB rows used
};

// A note of the plan, as a message key and its arguments.
struct Note {
  std::string key;
  kb::MessageArgs args;
};

// What a reader of installed files gets: the distribution and where it is.
struct InstalledDistribution {
  const sys::System& system;
  const PythonEnvFact& env;  // its NVIDIA wheels are known already
  std::string site;          // the site-packages directory holding it
  std::string name;          // normalised distribution name
  std::string version;
  std::string role;  // build | plugin (data/python_packages.csv)
};

// How XLA-based builds use libdevice (nvvm/libdevice/libdevice.10.bc) at run time.
enum class Libdevice {
  unused,
  jit_only,  // only what it JIT-compiles needs it: a missing libdevice is a warning
  always,    // every kernel is compiled by XLA: a missing libdevice is an error
};

struct Framework {
  std::string_view family;        // the name in facts, JSON and on the command line
  std::string_view display_name;  // TensorFlow, PyTorch ...
  // Other spellings accepted on the command line (package names are accepted from the KB).
  std::vector<std::string_view> aliases;
  std::string_view short_name;  // for environment names the plan creates: tf-2.10.0

  // ---- installed builds -----------------------------------------------------------------------
  // Reads what the installed files declare (version, CUDA, cuDNN, GPU build) into f, which holds
  // what the distribution's name says. nullptr: the name is all there is.
  void (*read_installed)(const InstalledDistribution& dist, FrameworkFact& f) = nullptr;
  // Conda-only builds: whether the build's own files in site-packages say more than the build
  // string (read with read_installed).
  bool conda_reads_files = false;
  // A plugin distribution that stands for its GPU build (jax-cuda12-plugin): the build
  // distributions of the family are then not the ones that run on the GPU.
  bool plugin_replaces_build = false;
  // A distribution the family's main package requires on native Windows at the same version
  // (tensorflow -> tensorflow-intel): the two are one build, not two.
  std::string_view windows_companion;
  // A distribution of the family that data/python_packages.csv does not list, recognised by its
  // name (cupy-cuda102): the CUDA its name declares; nullopt for a name not of the family.
  std::optional<std::string> (*unlisted_gpu_package)(std::string_view name) = nullptr;
  // Its version names the CUDA variant as a local tag, cu and the CUDA's digits (PyTorch's
  // 2.1.0+cu121), each variant from an index of its own: a bare version does not say which.
  bool variant_in_local_version = false;

  // ---- loading rules --------------------------------------------------------------------------
  // Linux: the build's own shared objects that link the CUDA libraries, relative to
  // site-packages; the first that exists is read (DT_NEEDED, RPATH/RUNPATH).
  std::vector<std::string_view> linux_modules;
  // Opens the CUDA runtime and cuDNN by name at run time (not DT_NEEDED): the names come from
  // the CUDA and cuDNN the build declares (data/library_names.csv, data/cudnn_releases.csv).
  bool opens_cuda_by_name = false;
  // Windows: loads its CUDA DLLs by name through the standard search (PATH included).
  bool windows_loads_dlls_by_name = false;
  Libdevice libdevice = Libdevice::unused;
  // The build's own libraries that carry its precompiled GPU code (CUDA fat binaries), relative
  // to site-packages, per platform; every one that exists is read (docs/gpu-code.md). Empty: the
  // framework compiles its kernels at run time, or nobody has looked yet.
  std::vector<std::string_view> linux_gpu_code;
  std::vector<std::string_view> windows_gpu_code;
  // Its kernels are compiled for the GPU at run time (XLA): the precompiled code its libraries
  // carry is reported but does not decide which GPUs run the build.
  bool compiles_kernels_at_run_time = false;
  // The family of data/framework_min_cc rows for a build (torch-cu121, jax-cuda12 ...).
  std::string (*min_cc_family)(const FrameworkFact& f) = nullptr;
  // Fix advice when a CUDA library it needs is missing (message key and its arguments), for
  // builds whose wheels can bring the libraries.
  std::optional<Note> (*missing_library_fix)(const FrameworkFact& f, bool windows) = nullptr;

  // ---- knowledge base ------------------------------------------------------------------------
  // The table of its builds for `gpuvet kb framework`, and the column holding the release
  // (empty: the table's version_from..version_to range, or no version at all).
  std::string_view kb_table;
  std::string_view kb_version_column;
  // The build declares only its cuDNN major (TensorFlow's build_info.py: "7", "64_8"); this column
  // of kb_table (with its "platform" column) gives the cuDNN the release's official build was
  // tested with, whose minor the loading rules compare. Empty: the declared cuDNN is all there is.
  std::string_view tested_cudnn_column;

  // ---- plan -----------------------------------------------------------------------------------
  // The builds the KB holds, on every platform. nullptr: the framework cannot be planned.
  Result<std::vector<Build>> (*builds)(const kb::Kb& kb) = nullptr;
  // The requirement and index for a build; nullptr: default_install.
  Result<InstallSpec> (*install)(const Build& b, const kb::Kb& kb,
                                 const kb::Messages& messages) = nullptr;
  // A one-line check that the framework sees the GPU, run in the new environment.
  std::string (*verify_command)(const Build& b) = nullptr;
  // Notes the plan adds for a build on a platform (linux, windows, wsl2).
  std::vector<Note> (*plan_notes)(const Build& b, std::string_view platform) = nullptr;
};

// Every framework, in a stable order (the registry in registry.cpp).
const std::vector<const Framework*>& all();
// By family or alias (case-insensitive): torch, pytorch, paddle, paddlepaddle ...
const Framework* find(std::string_view name);
// Whether distributions a and b are one framework's main package and its Windows companion
// (tensorflow, tensorflow-intel): one build on native Windows when their versions agree.
bool windows_companion_pair(const Framework& framework, std::string_view a, std::string_view b);
// The registered framework of a fact's family; nullptr for a family no longer registered.
const Framework* of(const FrameworkFact& f);

// FRAMEWORK[==VERSION] as the command line takes it: a family, an alias or a pip distribution of
// the family (tensorflow-gpu, paddlepaddle-gpu, onnxruntime-gpu); VERSION is a dotted prefix.
struct Spec {
  const Framework* framework = nullptr;
  std::optional<std::string> version;
};
Result<Spec> parse_spec(std::string_view text, const kb::Kb& kb);
// "tensorflow, torch, jax, ..." for messages.
std::string family_list();

// The install of a plug-in without its own: "<package or family>==<release>" (or "==<series>.*"),
// from the build's index when its table names one, else PyPI.
InstallSpec default_install(const Build& b);

}  // namespace gpuvet::frameworks
