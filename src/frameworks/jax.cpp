// JAX: jaxlib (CPU, or an older CUDA build with a +cudaNN label), and the jax-cudaNN-plugin /
// -pjrt pair that the jax[cudaNN] extra installs.
#include <algorithm>

#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "frameworks/installed_files.hpp"
#include "frameworks/kb_rows.hpp"
#include "frameworks/registry.hpp"
#include "kb/queries.hpp"

namespace gpuvet::frameworks {

namespace {

void read_installed(const InstalledDistribution& d, FrameworkFact& f) {
  if (d.role != "build") return;  // a plugin's name says it all
  if (auto declared = python::parse_jaxlib_label(python::local_version_label(d.version))) {
    apply(declared, f, "package version");
  } else if (f.declared_by != "package name") {
    // A jaxlib without a CUDA label is the CPU build; CUDA comes from a plugin.
    f.gpu_build = false;
    f.declared_by = "package version";
  }
}

// data/framework_min_cc rows are per wheel variant: jax-cuda12.
std::string min_cc_family(const FrameworkFact& f) {
  return f.cuda ? "jax-cuda" + version::major(*f.cuda) : "jax";
}

// "pip install "jax[cuda12_pip]==0.4.20" -f URL": the quoted requirement, and the find-links page.
void read_install_command(const std::string& command, Build& b) {
  const size_t open = command.find('"');
  const size_t close = open == std::string::npos ? open : command.find('"', open + 1);
  if (close != std::string::npos) b.package_spec = command.substr(open + 1, close - open - 1);
  const size_t links = command.find(" -f ");
  if (links != std::string::npos) {
    b.index_option = "-f";
    b.index_url = std::string(text::trim(command.substr(links + 4)));
  }
}

// Every pinned release per CUDA wheel variant (data/jax_releases.csv), newest first.
Result<std::vector<Build>> builds(const kb::Kb& kb) {
  auto rows = kb::rows_if(kb, "jax_releases", [](const kb::Row&) { return true; });
  if (!rows) return rows.error();
  std::vector<Build> out;
  for (const auto& row : *rows) {
    Build b;
    b.framework = "jax";
    b.platform = "linux";
    b.version = row.get("jax_version");
    b.cuda = non_empty(row.get("cuda"));
    b.cudnn = non_empty(version::prefix(row.get("cudnn"), 2));
    b.python_min = non_empty(row.get("python_min"));
    b.python_max = non_empty(row.get("python_max"));
    b.variant = row.get("variant");
    b.min_cc = non_empty(row.get("min_cc"));
    b.min_driver_override = non_empty(row.get("min_driver_linux"));
    b.package = "jax[" + b.variant + "]";
    read_install_command(row.get("install"), b);
    b.wheels_bring_cuda = true;
    b.sources.push_back("jax_releases: " + row.get("source"));
    out.push_back(std::move(b));
  }
  std::stable_sort(out.begin(), out.end(), [](const Build& a, const Build& b) {
    return version::compare(a.version, b.version) > 0;
  });
  return out;
}

// The documented form: pip install -U "jax[cuda12]==V" (older releases: a find-links page).
Result<InstallSpec> install(const Build& b, const kb::Kb&, const kb::Messages&) {
  InstallSpec spec;
  spec.package_spec = b.package_spec.empty() ? b.package : b.package_spec;
  spec.index_option = b.index_option;
  if (!b.index_url.empty()) spec.index_url = b.index_url;
  spec.upgrade = true;
  return spec;
}

std::string verify_command(const Build&) {
  return "python -c \"import jax; print(jax.devices())\"";
}

std::vector<Note> plan_notes(const Build&, std::string_view platform) {
  std::vector<Note> notes = {{"plan.note.jax_ld_library_path", {}}};
  if (platform == "wsl2") notes.push_back({"plan.note.jax_wsl_experimental", {}});
  return notes;
}

}  // namespace

const Framework& jax() {
  static const Framework framework = [] {
    Framework f;
    f.family = "jax";
    f.display_name = "JAX";
    f.short_name = "jax";
    f.read_installed = read_installed;
    f.plugin_replaces_build = true;
    // jax-cuda12-pjrt 0.4.30's RECORD (tests/fixtures/python/jax).
    f.linux_modules = {"jax_plugins/xla_cuda12/xla_cuda_plugin.so"};
    // The plugin's own precompiled kernels are listed; XLA compiles the model's kernels for the
    // GPU at run time (with ptxas), so they do not decide which GPUs run JAX.
    f.linux_gpu_code = {"jax_plugins/xla_cuda12/xla_cuda_plugin.so"};
    f.compiles_kernels_at_run_time = true;
    // JAX compiles every kernel with XLA, which needs libdevice.
    f.libdevice = Libdevice::always;
    f.min_cc_family = min_cc_family;
    f.kb_table = "jax_releases";
    f.kb_version_column = "jax_version";
    f.builds = builds;
    f.install = install;
    f.verify_command = verify_command;
    f.plan_notes = plan_notes;
    return f;
  }();
  return framework;
}

}  // namespace gpuvet::frameworks
