// The registry: every framework plug-in, listed once.
#include "frameworks/registry.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "core/version.hpp"
#include "kb/messages.hpp"
#include "kb/queries.hpp"
#include "python/metadata.hpp"

namespace gpuvet::frameworks {

const std::vector<const Framework*>& all() {
  static const std::vector<const Framework*> registry = {
      &tensorflow(), &torch(), &jax(), &cupy(), &paddle(), &onnxruntime(),
  };
  return registry;
}

const Framework* find(std::string_view name) {
  const std::string lower = text::to_lower(text::trim(name));
  for (const Framework* f : all()) {
    if (f->family == lower) return f;
    for (const auto alias : f->aliases) {
      if (alias == lower) return f;
    }
  }
  return nullptr;
}

bool windows_companion_pair(const Framework& framework, std::string_view a, std::string_view b) {
  if (framework.windows_companion.empty()) return false;
  return (a == framework.family && b == framework.windows_companion) ||
         (b == framework.family && a == framework.windows_companion);
}

const Framework* of(const FrameworkFact& f) {
  return find(f.name);
}

std::string family_list() {
  std::vector<std::string> names;
  for (const Framework* f : all())
    names.emplace_back(f->family);
  return text::join(names, ", ");
}

namespace {

// A pip distribution the knowledge base files under a family: tensorflow-gpu, paddlepaddle-gpu.
const Framework* by_distribution(std::string_view name, const kb::Kb& kb) {
  const std::string normalised = python::normalize_name(name);
  auto rows = kb::rows_if(kb, "python_packages", [&](const kb::Row& r) {
    return r.get("ecosystem") == "pip" && r.get("package") == normalised;
  });
  if (rows && !rows->empty()) return find(rows->front().get("family"));
  for (const Framework* f : all()) {
    if (f->unlisted_gpu_package && f->unlisted_gpu_package(normalised)) return f;
  }
  return nullptr;
}

}  // namespace

Result<Spec> parse_spec(std::string_view text, const kb::Kb& kb) {
  const size_t eq = text.find("==");
  const std::string name(text::trim(text.substr(0, eq)));
  Spec spec;
  spec.framework = find(name);
  if (!spec.framework) spec.framework = by_distribution(name, kb);
  if (!spec.framework) {
    return kb::catalog_error("plan.error.unknown_framework",
                             {{"name", text::to_lower(name)}, {"known", family_list()}});
  }
  if (eq != std::string_view::npos) {
    const std::string v(text::trim(text.substr(eq + 2)));
    if (!version::is_dotted(v) || v.empty()) {
      return make_error(
          fmt::format("\"{}\" is not a version (e.g. {}==2.1)", v, spec.framework->family));
    }
    spec.version = v;
  }
  return spec;
}

InstallSpec default_install(const Build& b) {
  InstallSpec spec;
  const std::string package = b.package.empty() ? b.framework : b.package;
  spec.package_spec = package + "==" + (b.series ? b.version + ".*" : b.version);
  spec.index_option = b.index_option;
  if (!b.index_url.empty()) spec.index_url = b.index_url;
  return spec;
}

}  // namespace gpuvet::frameworks
