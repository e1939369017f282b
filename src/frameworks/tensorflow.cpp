// TensorFlow: tensorflow, tensorflow-gpu, tensorflow-cpu, tensorflow-intel, tf-nightly*.
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "frameworks/installed_files.hpp"
#include "frameworks/kb_rows.hpp"
#include "frameworks/registry.hpp"
#include "kb/queries.hpp"

namespace gpuvet::frameworks {

namespace {

bool older(const std::string& a, const std::string& b) {
  return version::compare(a, b) < 0;
}

// build_info.py; TensorFlow 2.0 and 2.1 kept their modules in tensorflow_core/.
void read_installed(const InstalledDistribution& d, FrameworkFact& f) {
  for (const char* file : {"tensorflow/python/platform/build_info.py",
                           "tensorflow_core/python/platform/build_info.py"}) {
    const auto declared =
        read_declaration(d.system, paths::join(d.site, file), python::parse_tensorflow_build_info);
    if (!declared) continue;
    apply(declared, f, file);
    f.location = d.site;
    return;
  }
}

// TensorFlow 2.14 and later bring CUDA and cuDNN as pip wheels with [and-cuda]
// (shared/reference/tensorflow_facts.md §3); Linux and WSL2 only.
std::optional<Note> missing_library_fix(const FrameworkFact& f, bool windows) {
  if (windows || !f.version || version::compare(version::prefix(*f.version, 2), "2.14") < 0) {
    return std::nullopt;
  }
  return Note{"compat.lib.missing_fix_and_cuda",
              {{"version", text::split(*f.version, '+').front()}}};
}

Result<std::vector<Build>> builds(const kb::Kb& kb) {
  auto rows = kb::rows_if(kb, "tensorflow_builds", [](const kb::Row& r) {
    return r.get("platform") == "linux" || r.get("platform") == "windows";
  });
  if (!rows) return rows.error();
  auto min_cc_rows = kb::rows_where(kb, "framework_min_cc", "family", "tensorflow");
  if (!min_cc_rows) return min_cc_rows.error();
  std::vector<Build> out;
  for (const auto& row : *rows) {
    Build b;
    b.framework = "tensorflow";
    b.platform = row.get("platform");
    b.version = row.get("version");
    b.python_min = non_empty(row.get("python_min"));
    b.python_max = non_empty(row.get("python_max"));
    // TensorFlow's Windows table writes CUDA 10.0 as "10" (its Linux table as "10.0").
    b.cuda = non_empty(row.get("cuda"));
    if (b.cuda) b.cuda = version::major_minor(*b.cuda);
    b.cudnn = non_empty(row.get("cudnn"));
    b.sources.push_back("tensorflow_builds: " + row.get("source"));
    auto package = package_row(kb, "tensorflow", b.platform, b.version);
    if (!package) return package.error();
    if (*package) {
      b.package = (*package)->get("package");
      b.wheels_bring_cuda = (*package)->get("wheels_bring_cuda") == "yes";
      b.sources.push_back("framework_packages: " + (*package)->get("source"));
    }
    for (const auto& cc : *min_cc_rows) {
      if (kb::version_in_range(version::prefix(b.version, 2), cc.get("version_from"),
                               cc.get("version_to"))) {
        b.min_cc = non_empty(cc.get("min_cc"));
        b.sources.push_back("framework_min_cc: " + cc.get("source"));
        break;
      }
    }
    out.push_back(std::move(b));
  }
  return out;
}

std::string verify_command(const Build& b) {
  return older(b.version, "2.1")
             ? "python -c \"import tensorflow as tf; print(tf.test.is_gpu_available())\""
             : "python -c \"import tensorflow as tf; "
               "print(tf.config.list_physical_devices('GPU'))\"";
}

std::vector<Note> plan_notes(const Build& b, std::string_view) {
  if (b.package == "tensorflow-gpu" && !older(b.version, "2.1")) {
    return {{"plan.note.tensorflow_same_package", {{"version", b.version}}}};
  }
  return {};
}

}  // namespace

const Framework& tensorflow() {
  static const Framework framework = [] {
    Framework f;
    f.family = "tensorflow";
    f.display_name = "TensorFlow";
    f.short_name = "tf";
    f.read_installed = read_installed;
    f.conda_reads_files = true;
    // tensorflow/python/platform/self_check.py: on Windows `tensorflow` requires
    // `tensorflow-intel` at the same version.
    f.windows_companion = "tensorflow-intel";
    f.linux_modules = {"tensorflow/libtensorflow_framework.so.2",
                       "tensorflow_core/libtensorflow_framework.so.2"};
    // Its kernels live in the Python extension (tensorflow_core/ in 2.0 and 2.1) and, in later
    // wheels, in libtensorflow_cc.so.2 beside it; every one present is read.
    f.linux_gpu_code = {"tensorflow/python/_pywrap_tensorflow_internal.so",
                        "tensorflow_core/python/_pywrap_tensorflow_internal.so",
                        "tensorflow/libtensorflow_cc.so.2",
                        "tensorflow/libtensorflow_framework.so.2"};
    f.windows_gpu_code = {"tensorflow/python/_pywrap_tensorflow_internal.pyd",
                          "tensorflow_core/python/_pywrap_tensorflow_internal.pyd"};
    f.opens_cuda_by_name = true;
    f.windows_loads_dlls_by_name = true;
    f.libdevice = Libdevice::jit_only;
    f.missing_library_fix = missing_library_fix;
    f.kb_table = "tensorflow_builds";
    f.kb_version_column = "version";
    f.tested_cudnn_column = "cudnn";
    f.builds = builds;
    f.verify_command = verify_command;
    f.plan_notes = plan_notes;
    return f;
  }();
  return framework;
}

}  // namespace gpuvet::frameworks
