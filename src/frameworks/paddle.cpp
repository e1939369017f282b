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
  // paddlepaddle-gpu 2.5.2.post112: the CUDA 11.2 build.
  if (const size_t post = d.version.find(".post"); !f.cuda && post != std::string::npos) {
    f.cuda = python::cuda_from_cu_tag("cu" + d.version.substr(post + 5));
  }
}

Build build_of(const kb::Row& row, const std::string& platform, const std::string& release,
               bool series) {
  Build b;
  b.framework = "paddle";
  b.platform = platform;
  b.version = release;
  b.series = series;
  b.python_min = non_empty(row.get("python_min"));
  b.python_max = non_empty(row.get("python_max"));
  b.cuda = non_empty(row.get("cuda"));
  b.cudnn = non_empty(row.get("cudnn"));
  b.variant = row.get("variant");
  b.min_cc = non_empty(row.get("min_cc"));
  b.package = "paddlepaddle-gpu";
  b.package_spec = row.get("package_spec");
  b.index_option = row.get("index_option");
  b.index_url = row.get("index_url");
  b.wheels_bring_cuda = row.get("wheels_bring_cuda") == "yes";
  b.sources.push_back("paddle_builds: " + row.get("source"));
  return b;
}

// data/paddle_builds.csv: one row per (release range, platform, CUDA variant).
Result<std::vector<Build>> builds(const kb::Kb& kb) {
  auto rows = kb::rows_if(kb, "paddle_builds", [](const kb::Row&) { return true; });
  if (!rows) return rows.error();
  std::vector<Build> out;
  for (const auto& row : *rows) {
    for (const auto& [release, series] :
         releases_in(row.get("version_from"), row.get("version_to"))) {
      for (const auto& platform : platforms_of(row.get("platform")))
        out.push_back(build_of(row, platform, release, series));
    }
  }
  return out;
}

// The table's requirement template ({version}) and Paddle's own index for the CUDA variant.
Result<InstallSpec> install(const Build& b, const kb::Kb&, const kb::Messages&) {
  InstallSpec spec;
  std::string version = b.series ? b.version + ".*" : b.version;
  spec.package_spec = b.package_spec.empty()
                          ? b.package + "==" + version
                          : text::replace_all(b.package_spec, "{version}", version);
  spec.index_option = b.index_option;
  if (!b.index_url.empty()) spec.index_url = b.index_url;
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
    f.kb_table = "paddle_builds";
    f.builds = builds;
    f.install = install;
    f.verify_command = verify_command;
    return f;
  }();
  return framework;
}

}  // namespace gpuvet::frameworks
