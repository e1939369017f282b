#include "explain/same_machine.hpp"

#include <algorithm>
#include <set>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "kb/queries.hpp"
#include "python/metadata.hpp"
#include "resolve/which.hpp"
#include "system/system.hpp"

namespace gpuvet::explain {

namespace {

void add_once(std::vector<std::string>& values, const std::optional<std::string>& value) {
  if (value && !value->empty() && std::find(values.begin(), values.end(), *value) == values.end())
    values.push_back(*value);
}

// The names the GPU tables give a GPU named in `text` (a log's device line, a machine's GPU name),
// best match first: "NVIDIA GeForce RTX 3060" and "GeForce RTX 3060" are one GPU.
std::vector<std::string> gpu_names(const kb::Kb& kb, std::string_view text) {
  std::vector<std::string> names;
  const auto match = kb::find_gpu(kb, text);
  if (!match) return names;
  for (const auto& row : match->rows)
    add_once(names, row.get("name"));
  return names;
}

std::string joined(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values)
    out += (out.empty() ? "" : ", ") + v;
  return out;
}

MachineClue clue(bool same, const std::string& what, const char* how, kb::MessageArgs args) {
  return {same, "explain.facts.clue." + what + "." + how, std::move(args)};
}

// The machine's GPUs as a driver, the PCI bus or Windows names them.
struct MachineGpus {
  bool known = false;               // something looked: NVML, the PCI bus, Windows' adapters
  std::vector<std::string> names;   // as the GPU tables name them
  std::vector<std::string> labels;  // as the machine does
};

MachineGpus machine_gpus(const Facts& facts, const kb::Kb& kb) {
  MachineGpus out;
  out.known =
      !facts.gpus.empty() || facts.hardware.pci_scanned || !facts.hardware.display_adapters.empty();
  const auto add = [&](const std::optional<std::string>& name,
                       const std::optional<std::string>& id) {
    const std::optional<std::string>& asked = name ? name : id;
    if (!asked || asked->empty()) return;
    for (const auto& n : gpu_names(kb, *asked))
      add_once(out.names, n);
    add_once(out.labels, asked);
  };
  for (const auto& gpu : facts.gpus)
    add(gpu.name, gpu.pci_id);
  for (const auto& gpu : facts.hardware.pci_gpus)
    add(gpu.name, gpu.pci_id);
  for (const auto& adapter : facts.hardware.display_adapters) {
    const bool nvidia = adapter.provider == "NVIDIA" ||
                        (adapter.name && adapter.name->find("NVIDIA") != std::string::npos);
    if (nvidia) add(adapter.name, adapter.pci_id);
  }
  return out;
}

void compare_gpus(const LogFacts& log, const Facts& facts, const kb::Kb& kb,
                  std::vector<MachineClue>& clues) {
  std::optional<MachineGpus> machine;
  for (const auto& line : log.device_lines) {
    const auto names = gpu_names(kb, line);
    if (names.empty()) continue;
    if (!machine) machine = machine_gpus(facts, kb);
    if (!machine->known) return;
    const std::string& gpu = names.front();
    const bool same = std::find_first_of(names.begin(), names.end(), machine->names.begin(),
                                         machine->names.end()) != names.end();
    if (same) {
      clues.push_back(clue(true, "gpu", "same", {{"gpu", gpu}}));
    } else if (machine->labels.empty()) {
      clues.push_back(clue(false, "gpu", "absent", {{"gpu", gpu}}));
    } else {
      clues.push_back(
          clue(false, "gpu", "other", {{"gpu", gpu}, {"machine", joined(machine->labels)}}));
    }
  }
}

// Whether two versions agree in their first `parts` parts, compared as numbers: 535.104.05 and
// 535.104.5 do.
bool same_version(std::string_view a, std::string_view b, size_t parts) {
  return version::compare(version::prefix(a, parts), version::prefix(b, parts)) == 0;
}

// A framework's public version, without its local part: 2.1.0+cu121 is 2.1.0.
std::string public_version(std::string_view v) {
  return std::string(v.substr(0, v.find('+')));
}

// The log's version of `what` against the machine's, agreeing in their first `parts` parts.
MachineClue version_clue(const std::string& what, kb::MessageArgs args, const std::string& version,
                         const std::vector<std::string>& machine, size_t parts) {
  const bool same = std::any_of(machine.begin(), machine.end(), [&](const std::string& m) {
    return same_version(version, m, parts);
  });
  if (!same) args.emplace_back("machine", joined(machine));
  return clue(same, what, same ? "same" : "other", std::move(args));
}

void compare_driver(const LogFacts& log, const Facts& facts, std::vector<MachineClue>& clues) {
  const auto seen = log.versions.find("driver");
  if (seen == log.versions.end()) return;
  std::vector<std::string> versions;
  if (facts.driver) {
    add_once(versions, facts.driver->version);
    add_once(versions, facts.driver->kernel_module_version);
  }
  for (const auto& adapter : facts.hardware.display_adapters)
    add_once(versions, adapter.nvidia_driver);
  const std::string& v = seen->second.version;
  if (versions.empty()) {
    if (facts.driver && facts.driver->installed == false)
      clues.push_back(clue(false, "driver", "absent", {{"version", v}}));
    return;
  }
  clues.push_back(version_clue("driver", {{"version", v}}, v, versions, 2));
}

// The public versions of the machine's frameworks `which` picks, each once.
template <typename Which>
std::vector<std::string> framework_versions(const Facts& facts, Which which) {
  std::vector<std::string> versions;
  for (const auto& env : facts.python_envs) {
    for (const auto& fw : env.frameworks) {
      if (fw.version && which(fw)) add_once(versions, public_version(*fw.version));
    }
  }
  return versions;
}

MachineClue framework_clue(const std::string& name, const std::string& version,
                           const std::vector<std::string>& machine) {
  kb::MessageArgs args = {{"framework", name}, {"version", version}};
  if (machine.empty()) return clue(false, "framework", "absent", args);
  return version_clue("framework", args, public_version(version), machine, 3);
}

void compare_frameworks(const LogFacts& log, const Facts& facts, std::vector<MachineClue>& clues) {
  if (facts.python_envs.empty()) return;  // no Python looked at: nothing to compare
  // A version the log prints: the machine has that framework at that version, or not at all.
  for (const auto& [family, seen] : log.versions) {
    const frameworks::Framework* framework = frameworks::find(family);
    if (!framework) continue;  // the driver's, cuDNN's
    const auto machine = framework_versions(
        facts, [&](const FrameworkFact& fw) { return fw.name == framework->family; });
    clues.push_back(framework_clue(std::string(framework->display_name), seen.version, machine));
  }
  // A pip listing's frameworks, where the machine has that distribution (torch==2.1.0 is both).
  for (const auto& [package, seen] : log.listed) {
    if (log.versions.contains(package)) continue;
    const auto machine = framework_versions(facts, [&](const FrameworkFact& fw) {
      return python::normalize_name(fw.package) == package;
    });
    if (!machine.empty()) clues.push_back(framework_clue(package, seen.version, machine));
  }
}

// Every cuDNN the machine has: installed, loaded, pip wheels, conda packages. Not the one a
// framework was built with: that says nothing of what is installed, and would make another
// machine's log look like this one's.
std::vector<std::string> machine_cudnn(const Facts& facts) {
  std::vector<std::string> versions;
  for (const auto& c : facts.cudnn) {
    add_once(versions, c.loaded_version);
    add_once(versions, c.version);
    add_once(versions, c.library_version);
  }
  for (const auto& env : facts.python_envs) {
    for (const auto& wheel : env.nvidia_wheels)
      if (wheel.component == "cudnn") add_once(versions, wheel.version);
    for (const auto& pkg : env.conda_packages)
      if (pkg.name == "cudnn") add_once(versions, pkg.version);
  }
  return versions;
}

void compare_cudnn(const LogFacts& log, const Facts& facts, std::vector<MachineClue>& clues) {
  const auto seen = log.versions.find("cudnn");
  if (seen == log.versions.end()) return;
  const std::string& v = seen->second.version;
  const auto versions = machine_cudnn(facts);
  if (versions.empty()) {
    clues.push_back(clue(false, "cudnn", "absent", {{"version", v}}));
    return;
  }
  clues.push_back(version_clue("cudnn", {{"version", v}}, v, versions, 2));
}

// A directory as facts and logs may both write it: a Windows one (a drive letter) in one case,
// and either slash, once, where a Python repr doubles the backslash.
std::string comparable_path(std::string_view path) {
  return paths::comparison_key(path, path.size() > 1 && path[1] == ':');
}

// Where every machine of one distribution or image keeps its Python (/usr/lib/python3/
// dist-packages, a Docker image's /opt/conda, C:/Program Files): that one has it too tells
// nothing; that it lacks it still tells another machine.
bool shared_location(std::string_view dir) {
  for (const std::string_view prefix :
       {"/usr/", "/opt/conda/", "c:/program files", "c:/programdata/", "c:/python"}) {
    if (dir.starts_with(prefix)) return true;
  }
  return false;
}

void compare_environments(const LogFacts& log, const Facts& facts, const sys::System* system,
                          std::vector<MachineClue>& clues) {
  std::set<std::string> known;
  for (const auto& env : facts.python_envs)
    for (const auto& dir : env.site_packages)
      known.insert(comparable_path(dir));
  for (const auto& seen : log.site_packages) {
    if (seen.version.starts_with("~")) continue;  // whose home, the log does not say
    const std::string dir = comparable_path(seen.version);
    bool same = known.contains(dir);
    if (!same && system) {
      const auto info = system->file_info(dir);
      same = info && info->kind == sys::FileKind::directory;
    }
    if (same && shared_location(dir)) continue;
    clues.push_back(clue(same, "python", same ? "same" : "other", {{"path", dir}}));
  }
}

}  // namespace

namespace {

// A prompt shows the name up to its first dot (bash's \h); names compare without case.
std::string first_label(std::string_view host) {
  return text::to_lower(host.substr(0, host.find('.')));
}

// Names that tell no machine from another: an installer's or live image's default, which many
// machines keep, or a container's id, which the host running gpuvet does not share.
bool says_nothing(const std::string& label) {
  static const std::set<std::string> kDefaults = {
      "localhost", "ubuntu",  "debian", "raspberrypi", "kali",      "archlinux", "pop-os",
      "nixos",     "linux",   "fedora", "manjaro",     "centos",    "rocky",     "almalinux",
      "opensuse",  "archiso", "mint",   "linuxmint",   "elementary"};
  const bool container_id =
      label.size() >= 12 && std::all_of(label.begin(), label.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c)) != 0;
      });
  return container_id || kDefaults.contains(label);
}

void compare_hosts(const LogFacts& log, const Facts& facts, std::vector<MachineClue>& clues) {
  if (!facts.os.hostname || facts.os.hostname->empty()) return;
  const std::string machine = first_label(*facts.os.hostname);
  for (const auto& seen : log.hosts) {
    const std::string host = first_label(seen.version);
    if (says_nothing(host)) continue;
    clues.push_back(clue(host == machine, "host", host == machine ? "same" : "other",
                         {{"host", seen.version}, {"machine", *facts.os.hostname}}));
  }
}

}  // namespace

std::vector<MachineClue> compare_with_machine(const LogFacts& log, const Facts& facts,
                                              const kb::Kb& kb, const sys::System* system) {
  std::vector<MachineClue> clues;
  compare_gpus(log, facts, kb, clues);
  compare_driver(log, facts, clues);
  compare_frameworks(log, facts, clues);
  compare_cudnn(log, facts, clues);
  compare_environments(log, facts, system, clues);
  compare_hosts(log, facts, clues);
  return clues;
}

FactsForLog facts_for_log(const LogFacts& log, const Facts& facts, std::vector<Finding> findings,
                          const kb::Kb& kb, const kb::Messages& m, const sys::System* system,
                          bool said_same) {
  FactsForLog out;
  out.use.log_platform = log_platform(log);
  out.use.machine_platform = facts.os.wsl ? "wsl" : facts.os.family;
  if (!same_platform(out.use.log_platform, out.use.machine_platform)) {
    out.use.state = FactsUse::State::other_machine;
    out.use.note =
        m.text(said_same ? "explain.facts.said_same_other_platform" : "explain.facts.other_machine",
               {{"log", m.text("explain.platform." + out.use.log_platform)},
                {"machine", m.text("explain.platform." + out.use.machine_platform)}});
    return out;
  }
  const auto clues = compare_with_machine(log, facts, kb, system);
  const auto other =
      std::find_if(clues.begin(), clues.end(), [](const MachineClue& c) { return !c.same; });
  if (other != clues.end() && !said_same) {
    out.use.state = FactsUse::State::other_machine;
    out.use.note =
        m.text("explain.facts.other_machine_clue", {{"clue", m.text(other->key, other->args)}});
    return out;
  }
  out.machine = MachineFindings{std::move(findings), out.use.machine_platform};
  for (const auto& toolkit : facts.cuda_toolkits)
    if (toolkit.version) out.machine->cuda_installs.emplace_back(*toolkit.version, toolkit.root);
  if (clues.empty() && !said_same) {
    out.use.state = FactsUse::State::unknown_machine;
    out.use.note = m.text("explain.facts.unknown_machine");
    out.machine->ranks = false;
    return out;
  }
  out.use.state = FactsUse::State::used;
  if (other != clues.end()) {
    // The user ran it here: the machine has changed since, which may be why.
    out.use.note =
        m.text("explain.facts.said_same_changed", {{"clue", m.text(other->key, other->args)}});
  } else if (clues.empty()) {
    out.use.note = m.text("explain.facts.said_same");
  } else {
    out.use.note = m.text("explain.facts.same_machine",
                          {{"clue", m.text(clues.front().key, clues.front().args)}});
  }
  return out;
}

namespace {

// Whether the machine's loader would be asked for this name: DLLs on Windows, sonames elsewhere.
bool platform_library(const std::string& name, const std::string& platform) {
  const bool dll = text::to_lower(name).ends_with(".dll");
  return platform == "windows" ? dll : !dll;
}

bool same_library_name(const std::string& a, const std::string& b, bool windows) {
  return windows ? text::to_lower(a) == text::to_lower(b) : a == b;
}

// What the checks' lookups of this name found. Unknown when none looked it up, or when two
// disagree (one framework's RPATH finds it, another's does not): the log may be either's.
struct Looked {
  bool known = false;
  std::optional<std::string> loads;
};

Looked library_in_facts(const Facts& facts, const std::string& name, bool windows) {
  std::vector<const LibraryFact*> seen;
  for (const auto& lib : facts.libraries)
    if (same_library_name(lib.name, name, windows)) seen.push_back(&lib);
  for (const auto& env : facts.python_envs)
    for (const auto& fw : env.frameworks)
      for (const auto& lib : fw.libraries)
        if (same_library_name(lib.name, name, windows)) seen.push_back(&lib);
  if (seen.empty()) return {};
  const bool found = seen.front()->resolved.has_value();
  for (const LibraryFact* lib : seen)
    if (lib->resolved.has_value() != found) return {};
  return {true, seen.front()->resolved};
}

Looked library_by_loader(const sys::System& system, const std::string& name) {
  resolve::WhichRequest request;
  request.names = {name};
  const auto report = resolve::which(system, request);
  if (!report || report->results.empty()) return {};
  const auto& result = report->results.front();
  return {true, result.real_path ? result.real_path : result.resolved};
}

}  // namespace

void look_up_libraries(MachineFindings& machine, const std::vector<Cause>& causes,
                       const Facts& facts, const sys::System* live) {
  const bool windows = machine.platform == "windows";
  for (const auto& c : causes) {
    const auto name = missing_library(c);
    if (!name || machine.libraries.contains(*name) || !platform_library(*name, machine.platform))
      continue;
    Looked looked = library_in_facts(facts, *name, windows);
    if (!looked.known && live) looked = library_by_loader(*live, *name);
    if (looked.known) machine.libraries.emplace(*name, looked.loads);
  }
}

}  // namespace gpuvet::explain
