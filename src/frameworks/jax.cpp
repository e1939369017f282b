// JAX: jaxlib (CPU, or an older CUDA build with a +cudaNN label), and the jax-cudaNN-plugin /
// -pjrt pair that the jax[cudaNN] extra installs.
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

Result<std::vector<Build>> builds(const kb::Kb& kb) {
  auto rows = kb::rows_if(kb, "jax_builds", [](const kb::Row&) { return true; });
  if (!rows) return rows.error();
  std::vector<Build> out;
  for (const auto& row : *rows) {
    Build b;
    b.framework = "jax";
    b.platform = "linux";
    b.version = "";  // the current release: the KB has no per-version table
    b.cuda = non_empty(row.get("cuda"));
    b.cudnn = non_empty(row.get("cudnn"));
    b.variant = row.get("variant");
    b.min_cc = non_empty(row.get("min_cc"));
    b.min_driver_override = non_empty(row.get("min_driver_linux"));
    b.package = row.get("package");
    b.wheels_bring_cuda = true;
    b.sources.push_back("jax_builds: " + row.get("source"));
    out.push_back(std::move(b));
  }
  return out;
}

// The documented form: pip install -U "jax[cuda12]".
Result<InstallSpec> install(const Build& b, const kb::Kb&, const kb::Messages&) {
  InstallSpec spec;
  spec.package_spec = b.package;
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
    // JAX compiles every kernel with XLA, which needs libdevice.
    f.libdevice = Libdevice::always;
    f.min_cc_family = min_cc_family;
    f.kb_table = "jax_builds";
    f.builds = builds;
    f.versioned_builds = false;
    f.python_range_expected = false;
    f.install = install;
    f.verify_command = verify_command;
    f.plan_notes = plan_notes;
    return f;
  }();
  return framework;
}

}  // namespace gpuvet::frameworks
