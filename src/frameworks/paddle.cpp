// PaddlePaddle: paddlepaddle (CPU) and paddlepaddle-gpu, from PyPI or Paddle's own indexes.
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

void read_installed(const InstalledDistribution& d, FrameworkFact& f) {
  apply(read_declaration(d.system, paths::join(d.site, "paddle/version/__init__.py"),
                         python::parse_paddle_version),
        f, "paddle/version/__init__.py");
  // paddlepaddle-gpu 2.5.2.post112: the CUDA 11.2 build. Paddle 1.x's suffix meant something
  // else (post97: CUDA 9 with cuDNN 7), so there its version file alone says the CUDA.
  const size_t post = d.version.find(".post");
  const bool suffix_is_cuda = version::compare(version::major(d.version), "2") >= 0;
  if (!f.cuda && post != std::string::npos && suffix_is_cuda) {
    f.cuda = python::cuda_from_cu_tag("cu" + d.version.substr(post + 5));
  }
}

// Paddle's rows name the variant (cu118, post112) and the pip requirement's template.
void finish_build(const kb::Row& row, Build& b) {
  b.variant = row.get("variant");
  b.package = "paddlepaddle-gpu";
  b.package_spec = row.get("package_spec");
}

// data/paddle_builds.csv: one row per (release range, platform, CUDA variant).
Result<std::vector<Build>> builds(const kb::Kb& kb) {
  return builds_from_table(kb, "paddle_builds", "paddle", "platform", finish_build);
}

// The table's requirement template ({version}) and Paddle's own index for the CUDA variant.
Result<InstallSpec> install(const Build& b, const kb::Kb&, const kb::Messages&) {
  InstallSpec spec = default_install(b);
  if (!b.package_spec.empty()) {
    spec.package_spec =
        text::replace_all(b.package_spec, "{version}", b.series ? b.version + ".*" : b.version);
  }
  return spec;
}

std::string verify_command(const Build&) {
  return "python -c \"import paddle; paddle.utils.run_check()\"";
}

}  // namespace

const Framework& paddle() {
  static const Framework framework = [] {
    Framework f;
    f.family = "paddle";
    f.display_name = "PaddlePaddle";
    f.aliases = {"paddlepaddle"};
    f.short_name = "paddle";
    f.read_installed = read_installed;
    // Its kernels: core_avx.so up to 2.3, libpaddle.so in fluid/ (2.4, 2.5) and base/ (2.6 on),
    // and since 3.0 the phi libraries split out of it (PaddlePaddle/Paddle#64944, #65035).
    f.linux_gpu_code = {"paddle/fluid/core_avx.so",
                        "paddle/fluid/core_noavx.so",
                        "paddle/fluid/libpaddle.so",
                        "paddle/base/libpaddle.so",
                        "paddle/libs/libphi.so",
                        "paddle/libs/libphi_gpu.so",
                        "paddle/libs/libphi_kernel_gpu.so",
                        "paddle/libs/libphi_core.so"};
    f.windows_gpu_code = {"paddle/fluid/core_avx.pyd", "paddle/fluid/libpaddle.pyd",
                          "paddle/base/libpaddle.pyd"};
    f.kb_table = "paddle_builds";
    f.builds = builds;
    f.install = install;
    f.verify_command = verify_command;
    return f;
  }();
  return framework;
}

}  // namespace gpuvet::frameworks
