// CuPy: the cupy-cudaNNx / cupy-cudaNNN wheels, the cupy source package and conda's cupy.
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
  const auto by_name = f.cuda;
  apply(read_declaration(d.system, paths::join(d.site, "cupy/.data/_wheel.json"),
                         python::parse_cupy_wheel_json),
        f, "cupy/.data/_wheel.json");
  if (!f.cuda) f.cuda = by_name;
}

// cupy-cuda12x: CUDA 12; cupy-cuda102: CUDA 10.2 (https://docs.cupy.dev/en/stable/install.html).
std::optional<std::string> unlisted_gpu_package(std::string_view name) {
  if (!name.starts_with("cupy-cuda")) return std::nullopt;
  const std::string tag(name.substr(9));
  if (tag.size() >= 3 && tag.back() == 'x' && text::is_digits(tag.substr(0, tag.size() - 1))) {
    return tag.substr(0, tag.size() - 1);
  }
  return python::cuda_from_cu_tag("cu" + tag);
}

// The CUDA a wheel row plans with: the newest the range names ("11.8" of 11.2..11.8), or its first
// release when the range is open ("12.x": any CUDA 12).
std::optional<std::string> planned_cuda(const kb::Row& row) {
  const std::string& to = row.get("cuda_to");
  if (!to.empty() && version::is_dotted(to)) return version::major_minor(to);
  const std::string& from = row.get("cuda_from");
  if (!from.empty() && version::is_dotted(from)) return version::major_minor(from);
  return std::nullopt;
}

// cupy_builds names the wheel's CUDA range, not one CUDA; the wheel is the variant
// (cupy-cuda12x -> cuda12x, cupy-cuda13x[ctk] -> cuda13x-ctk).
void finish_build(const kb::Row& row, Build& b) {
  b.cuda = planned_cuda(row);
  b.cuda_range = row.get("cuda_from") != row.get("cuda_to");
  const std::string name = b.package.substr(0, b.package.find('['));
  b.variant = variant_with_extras(name.starts_with("cupy-") ? name.substr(5) : name, b.package);
}

Result<std::vector<Build>> builds(const kb::Kb& kb) {
  return builds_from_table(kb, "cupy_builds", "cupy", "platforms", finish_build);
}

std::string verify_command(const Build&) {
  return "python -c \"import cupy; print(cupy.cuda.runtime.getDeviceCount()); "
         "cupy.show_config()\"";
}

}  // namespace

const Framework& cupy() {
  static const Framework framework = [] {
    Framework f;
    f.family = "cupy";
    f.display_name = "CuPy";
    f.short_name = "cupy";
    f.read_installed = read_installed;
    f.unlisted_gpu_package = unlisted_gpu_package;
    f.kb_table = "cupy_builds";
    f.builds = builds;
    f.verify_command = verify_command;
    return f;
  }();
  return framework;
}

}  // namespace gpuvet::frameworks
