#include "report/report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/text.hpp"

namespace gpuvet::report {

namespace {
std::string value_or_unknown(const std::optional<std::string>& value, const kb::Messages& m) {
  return value ? *value : m.text("report.unknown_value");
}

std::string describe_cuda_build(const FrameworkFact& f, const kb::Messages& m) {
  if (f.rocm) return m.text("report.framework.rocm", {{"rocm", *f.rocm}});
  if (f.gpu_build == false) return m.text("report.framework.cpu");
  if (f.gpu_build != true) return m.text("report.framework.unknown");
  if (!f.cuda) return m.text("report.framework.gpu_unknown");
  if (!f.cudnn) return m.text("report.framework.cuda", {{"cuda", *f.cuda}});
  return m.text("report.framework.cuda_cudnn", {{"cuda", *f.cuda}, {"cudnn", *f.cudnn}});
}

std::string list_or_none(const std::vector<std::string>& items, const kb::Messages& m) {
  return items.empty() ? m.text("report.framework.no_code") : text::join(items, " ");
}

// The build, and the GPU code its libraries carry: the union over its files, which a build makes
// with one architecture list.
std::string describe_build(const FrameworkFact& f, const kb::Messages& m) {
  std::string build = describe_cuda_build(f, m);
  std::vector<std::string> sass, ptx;
  auto add = [](std::vector<std::string>& to, const std::vector<std::string>& from) {
    for (const auto& a : from) {
      if (std::find(to.begin(), to.end(), a) == to.end()) to.push_back(a);
    }
  };
  for (const auto& code : f.gpu_code) {
    if (code.error) {
      return m.text("report.framework.gpu_code_unreadable",
                    {{"build", build}, {"error", *code.error}});
    }
    add(sass, code.sass);
    add(ptx, code.ptx);
  }
  if (f.gpu_code.empty()) return build;
  return m.text("report.framework.gpu_code",
                {{"build", build}, {"sass", list_or_none(sass, m)}, {"ptx", list_or_none(ptx, m)}});
}
}  // namespace

std::string describe_os(const Facts& facts, const kb::Messages& messages) {
  const OsFacts& os = facts.os;
  std::vector<std::string> parts;
  std::string name = os.name.value_or(os.family);
  if (os.family == "windows" && os.release) name += " " + *os.release;
  if (os.family == "windows" && os.version) name += " (" + *os.version + ")";
  parts.push_back(name);
  if (os.wsl) parts.push_back("WSL2");
  if (os.arch) parts.push_back(*os.arch);
  if (os.container)
    parts.push_back(messages.text("report.container", {{"container", *os.container}}));
  if (os.remote_session) parts.push_back(messages.text("report.remote_session"));
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : " · ") + p;
  return out;
}

namespace {

std::vector<FactLine> hardware_lines(const Facts& facts, const kb::Messages& m) {
  std::vector<FactLine> lines;
  for (const auto& gpu : facts.gpus) {
    const std::string memory =
        gpu.memory_mib ? m.text("report.memory_mib", {{"mib", std::to_string(*gpu.memory_mib)}})
                       : m.text("report.unknown_value");
    std::string line = m.text("report.gpu", {{"index", std::to_string(gpu.index)},
                                             {"name", value_or_unknown(gpu.name, m)},
                                             {"cc", value_or_unknown(gpu.compute_capability, m)},
                                             {"memory", memory}});
    // Windows' driver model: WDDM (a display device), TCC or MCDM (compute only).
    if (gpu.driver_model) line += " · " + *gpu.driver_model;
    lines.push_back({std::move(line)});
  }
  if (!facts.gpus.empty()) return lines;
  // No driver answered: the GPUs the bus shows, named from their PCI ids.
  for (const auto& gpu : facts.hardware.pci_gpus) {
    lines.push_back(
        {m.text("report.pci_gpu", {{"name", value_or_unknown(gpu.name, m)},
                                   {"id", gpu.pci_id},
                                   {"cc", value_or_unknown(gpu.compute_capability, m)}})});
  }
  return lines;
}

std::vector<FactLine> driver_lines(const Facts& facts, const kb::Messages& m) {
  if (!facts.driver || !facts.driver->installed) return {};
  if (!*facts.driver->installed) return {{m.text("report.driver.missing"), false}};
  return {{m.text("report.driver.installed",
                  {{"version", value_or_unknown(facts.driver->version, m)},
                   {"cuda", value_or_unknown(facts.driver->cuda_driver_version, m)}})}};
}

std::vector<FactLine> cudnn_lines(const Facts& facts, const kb::Messages& m) {
  std::vector<FactLine> lines;
  for (const auto& c : facts.cudnn) {
    const auto& library = c.loaded_version ? c.loaded_version : c.library_version;
    if (c.header_library_agree == false) {
      lines.push_back(
          {m.text("report.cudnn_disagree",
                  {{"header", *c.header_version}, {"library", *library}, {"location", c.location}}),
           false});
      continue;
    }
    lines.push_back({m.text(
        "report.cudnn", {{"version", value_or_unknown(c.version, m)}, {"location", c.location}})});
  }
  return lines;
}

std::vector<FactLine> framework_lines(const Facts& facts, const kb::Messages& m) {
  std::vector<FactLine> lines;
  if (!facts.python_envs.empty() &&
      std::all_of(facts.python_envs.begin(), facts.python_envs.end(),
                  [](const PythonEnvFact& env) { return env.frameworks.empty(); })) {
    lines.push_back(
        {m.text("report.no_framework", {{"count", std::to_string(facts.python_envs.size())}}),
         false});
  }
  for (const auto& env : facts.python_envs) {
    for (const auto& f : env.frameworks) {
      lines.push_back({m.text("report.framework", {{"name", f.package.empty() ? f.name : f.package},
                                                   {"version", value_or_unknown(f.version, m)},
                                                   {"build", describe_build(f, m)},
                                                   {"env", env.path}}),
                       f.gpu_build != false, env.path});
    }
  }
  return lines;
}

}  // namespace

std::vector<FactLine> layer_fact_lines(const Facts& facts, Layer layer, const kb::Messages& m) {
  std::vector<FactLine> lines;
  switch (layer) {
    case Layer::hardware:
      return hardware_lines(facts, m);
    case Layer::driver:
      return driver_lines(facts, m);
    case Layer::cuda:
      for (const auto& t : facts.cuda_toolkits) {
        lines.push_back({m.text("report.cuda_toolkit",
                                {{"version", value_or_unknown(t.version, m)}, {"root", t.root}})});
      }
      break;
    case Layer::cudnn:
      return cudnn_lines(facts, m);
    case Layer::python:
      for (const auto& env : facts.python_envs) {
        lines.push_back(
            {m.text("report.python_env",
                    {{"kind", env.kind},
                     {"python", value_or_unknown(env.python, m)},
                     {"path", env.path},
                     {"active", env.active ? m.text("report.python_env.active") : ""}})});
      }
      break;
    case Layer::framework:
      return framework_lines(facts, m);
    case Layer::runtime:
      break;
  }
  return lines;
}

std::string empty_layer_text(const Facts& facts, Layer layer, const kb::Messages& m) {
  const std::string key = fmt::format("report.searched.{}", to_string(layer));
  if (facts.os.family == "windows" && m.has(key + ".windows")) return m.text(key + ".windows");
  return m.has(key) ? m.text(key) : m.text("report.unknown");
}

// Causes before what follows from them; among causes, those that explain an error (or are one)
// first, lowest layer first.
std::vector<const Finding*> findings_to_fix(const std::vector<Finding>& findings) {
  const auto is_problem = [](const Finding& f) {
    return f.severity == Severity::error || f.severity == Severity::warning;
  };
  const auto worst_of = [&](const Finding& root) {
    Severity worst = root.severity;
    for (const auto& f : findings) {
      if (f.follows_from == root.id && f.severity > worst) worst = f.severity;
    }
    return worst;
  };
  std::vector<const Finding*> roots;
  std::vector<const Finding*> followers;
  for (const auto& f : findings) {
    if (!is_problem(f)) continue;
    (f.follows_from ? followers : roots).push_back(&f);
  }
  std::stable_sort(roots.begin(), roots.end(), [&](const Finding* a, const Finding* b) {
    const Severity wa = worst_of(*a);
    const Severity wb = worst_of(*b);
    if (wa != wb) return wa > wb;
    return a->layer < b->layer;
  });
  std::stable_sort(followers.begin(), followers.end(), [](const Finding* a, const Finding* b) {
    if (a->severity != b->severity) return a->severity > b->severity;
    return a->layer < b->layer;
  });
  roots.insert(roots.end(), followers.begin(), followers.end());
  return roots;
}

std::string chain_of(const Finding& root, const std::vector<Finding>& findings) {
  std::vector<std::string> followers;
  for (const auto& f : findings) {
    if (f.follows_from == root.id &&
        std::find(followers.begin(), followers.end(), f.id) == followers.end()) {
      followers.push_back(f.id);
    }
  }
  return followers.empty() ? root.id : root.id + " → " + text::join(followers, ", ");
}

}  // namespace gpuvet::report
