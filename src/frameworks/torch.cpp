// PyTorch: torch from PyPI or PyTorch's own indexes, pytorch from conda.
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "frameworks/installed_files.hpp"
#include "frameworks/kb_rows.hpp"
#include "frameworks/registry.hpp"
#include "kb/queries.hpp"
#include "python/metadata.hpp"

namespace gpuvet::frameworks {

namespace {

// Bundled libraries (libcudnn.so.8.9.2 or only libcudnn.so.9), else the cuDNN wheel the build
// links against through its RPATH.
void read_cudnn(const InstalledDistribution& d, FrameworkFact& f) {
  if (f.gpu_build != true) return;
  if (const auto entries = d.system.list_dir(paths::join(d.site, "torch/lib"))) {
    std::optional<std::string> best;
    for (const auto& entry : *entries) {
      if (!entry.name.starts_with("libcudnn")) continue;
      const size_t so = entry.name.find(".so.");
      if (so == std::string::npos) continue;
      const std::string version = entry.name.substr(so + 4);
      if (!best || version.size() > best->size()) best = version;
    }
    if (best) {
      f.cudnn = python::major_minor(*best);
      return;
    }
  }
  if (const auto* w = wheel(d.env, "cudnn")) f.cudnn = python::major_minor(w->version);
}

void read_installed(const InstalledDistribution& d, FrameworkFact& f) {
  const auto declared = read_declaration(d.system, paths::join(d.site, "torch/version.py"),
                                         python::parse_torch_version);
  apply(declared, f, "torch/version.py");
  if (!declared) {
    apply(python::parse_torch_version("__version__ = '" + d.version + "'"), f, "package version");
  }
  read_cudnn(d, f);
}

// data/framework_min_cc rows are per wheel variant: torch-cu121.
std::string min_cc_family(const FrameworkFact& f) {
  if (!f.cuda) return "torch";
  return "torch-cu" + text::join(text::split(*f.cuda, '.'), "");
}

// "1.3.0 / 1.3.1" -> both; "2.1.x" -> the series 2.1; "1.8.2 (LTS)" -> 1.8.2.
std::vector<std::pair<std::string, bool>> versions_of(const std::string& cell) {
  std::vector<std::pair<std::string, bool>> out;
  for (auto item : text::split(cell, '/')) {
    item = std::string(text::trim(item.substr(0, item.find('('))));
    if (item.ends_with(".x")) {
      out.emplace_back(item.substr(0, item.size() - 2), true);
    } else if (version::is_dotted(item) && !item.empty()) {
      out.emplace_back(item, text::split(item, '.').size() < 3);
    }
  }
  return out;
}

Result<Build> variant_build(const kb::Kb& kb, const kb::Row& row, const std::string& v, bool series,
                            const std::string& tag, const std::string& platform) {
  Build b;
  b.framework = "torch";
  b.platform = platform;
  b.version = v;
  b.series = series;
  b.python_min = leading_version(row.get("python_min"));
  b.python_max = leading_version(row.get("python_max"));
  b.cuda = cuda_of_tag(tag);
  b.variant = tag;
  b.min_cc = non_empty(per_tag(row.get("min_cc_compiled"), b.variant));
  const std::string arches = per_tag(row.get("arch_list"), b.variant);
  if (!arches.empty()) b.arch_list = text::split(arches, ';');
  b.pypi_default = !row.get("default_pip_cuda").empty() &&
                   version::compare(row.get("default_pip_cuda"), *b.cuda) == 0;
  b.sources.push_back("pytorch_builds: " + row.get("source"));
  auto package = package_row(kb, "torch", platform, v);
  if (!package) return package.error();
  if (*package) {
    b.package = (*package)->get("package");
    b.wheels_bring_cuda = (*package)->get("wheels_bring_cuda") == "yes";
    b.sources.push_back("framework_packages: " + (*package)->get("source"));
  }
  return b;
}

Result<std::vector<Build>> builds(const kb::Kb& kb) {
  auto rows = kb::rows_if(kb, "pytorch_builds", [](const kb::Row&) { return true; });
  if (!rows) return rows.error();
  std::vector<Build> out;
  for (const auto& row : *rows) {
    for (const auto& [v, series] : versions_of(row.get("torch_version"))) {
      for (const auto& cell : text::split(row.get("cuda_variants"), ';')) {
        const std::string tag(text::trim(cell));
        if (!cuda_of_tag(tag)) continue;
        for (const std::string platform : {"linux", "windows"}) {
          auto b = variant_build(kb, row, v, series, tag, platform);
          if (!b) return b.error();
          out.push_back(std::move(*b));
        }
      }
    }
  }
  return out;
}

// The form of the official previous-versions page for the release (data/pytorch_install.csv).
Result<InstallSpec> install(const Build& b, const kb::Kb& kb, const kb::Messages& messages) {
  auto forms = kb::rows_if(kb, "pytorch_install", [&](const kb::Row& r) {
    return kb::version_in_range(b.version, r.get("torch_from"), r.get("torch_to"));
  });
  if (!forms) return forms.error();
  InstallSpec spec;
  const std::string pinned = b.series ? b.version + ".*" : b.version;
  spec.package_spec = "torch==" + pinned;
  if (forms->empty()) {
    spec.notes.push_back(messages.text("plan.note.torch_install_unknown"));
    return spec;
  }
  const kb::Row& form = forms->front();
  const std::string kind = form.get("form");
  const std::string index = "https://download.pytorch.org/whl/" + b.variant;
  if (kind == "index-url") {
    spec.index_option = "--index-url";
    spec.index_url = index;
  } else if (kind == "extra-index-url") {
    spec.package_spec = "torch==" + pinned + "+" + b.variant;
    spec.index_option = "--extra-index-url";
    spec.index_url = index;
  } else if (kind == "lts") {
    spec.index_option = "--extra-index-url";
    spec.index_url = "https://download.pytorch.org/whl/lts/1.8/" + b.variant;
  } else if (kind == "find-links") {
    if (!b.pypi_default) {
      spec.package_spec = "torch==" + pinned + "+" + b.variant;
      spec.index_option = "-f";
      spec.index_url = "https://download.pytorch.org/whl/torch_stable.html";
    }
  } else {
    spec.notes.push_back(messages.text(
        "plan.note.torch_download_wheel",
        {{"url", "https://download.pytorch.org/whl/" + b.variant + "/torch_stable.html"}}));
  }
  spec.sources.push_back("pytorch_install: " + form.get("source"));
  return spec;
}

std::string verify_command(const Build&) {
  return "python -c \"import torch; print(torch.cuda.is_available(), "
         "torch.cuda.get_device_name(0))\"";
}

}  // namespace

const Framework& torch() {
  static const Framework framework = [] {
    Framework f;
    f.family = "torch";
    f.display_name = "PyTorch";
    f.aliases = {"pytorch"};
    f.short_name = "torch";
    f.read_installed = read_installed;
    // PyTorch's CUDA code and, for wheels that take CUDA from PyPI, the RPATHs into nvidia/*/lib
    // (pytorch/pytorch .ci/manywheel/build_cuda.sh; shared/reference/nvidia_pip_wheels.md §4).
    f.linux_modules = {"torch/lib/libtorch_cuda.so", "torch/lib/libtorch_global_deps.so"};
    // Its kernels: libtorch_cuda (one 1+ GB library, pytorch/pytorch#69245 shows its .nv_fatbin),
    // split into _cu and _cpp halves in the 1.11-1.13 wheels; torch_cuda*.dll on Windows.
    f.linux_gpu_code = {"torch/lib/libtorch_cuda.so", "torch/lib/libtorch_cuda_cu.so",
                        "torch/lib/libtorch_cuda_cpp.so"};
    f.windows_gpu_code = {"torch/lib/torch_cuda.dll", "torch/lib/torch_cuda_cu.dll",
                          "torch/lib/torch_cuda_cpp.dll"};
    f.min_cc_family = min_cc_family;
    f.kb_table = "pytorch_builds";
    f.variant_in_local_version = true;
    f.kb_version_column = "torch_version";
    f.builds = builds;
    f.install = install;
    f.verify_command = verify_command;
    return f;
  }();
  return framework;
}

}  // namespace gpuvet::frameworks
