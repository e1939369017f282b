// A Slurm node's GPU configuration: slurm.conf's NodeName line for this host (its Gres= count,
// what slurmctld expects the node to report) and gres.conf beside it (AutoDetect=, the File=
// devices slurmd opens at start). Read as slurmd reads them: '#' starts a comment, parameter names
// ignore case, NodeName=DEFAULT sets what later lines leave out (slurm.conf(5), gres.conf(5)).
#include <algorithm>
#include <charconv>
#include <map>

#include "core/hostlist.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "probes/probes.hpp"

namespace gpuvet::probes {

namespace {

// One line's parameters, names in lower case. A value is taken whole up to the next blank:
// NodeName=gpu[01-04] Gres=gpu:a100:4 CPUs=64.
using Parameters = std::map<std::string, std::string>;

std::vector<Parameters> parameter_lines(std::string_view text) {
  std::vector<Parameters> lines;
  for (std::string_view line : text::split(text, '\n')) {
    line = line.substr(0, line.find('#'));
    Parameters parameters;
    size_t at = 0;
    while (at < line.size()) {
      const size_t start = line.find_first_not_of(" \t\r", at);
      if (start == std::string_view::npos) break;
      size_t end = line.find_first_of(" \t\r", start);
      if (end == std::string_view::npos) end = line.size();
      const std::string_view word = line.substr(start, end - start);
      if (const size_t equals = word.find('='); equals != std::string_view::npos && equals > 0) {
        parameters[text::to_lower(word.substr(0, equals))] = std::string(word.substr(equals + 1));
      }
      at = end;
    }
    if (!parameters.empty()) lines.push_back(std::move(parameters));
  }
  return lines;
}

std::string value_of(const Parameters& parameters, const char* name) {
  const auto it = parameters.find(name);
  return it == parameters.end() ? std::string() : it->second;
}

// Whether a host list names the host: Slurm's node names are short host names.
bool names_host(std::string_view list, std::string_view host) {
  if (list.empty() || host.empty()) return false;
  const auto names = hostlist::expand(list);
  if (!names) return false;
  return std::any_of(names->begin(), names->end(), [&](const std::string& name) {
    return text::to_lower(name) == text::to_lower(host);
  });
}

std::string short_host(std::string_view hostname) {
  return std::string(hostname.substr(0, hostname.find('.')));
}

// The items of a Gres= value, split at commas outside parentheses: "gpu:a100:2(S:0,1),mps:100".
std::vector<std::string_view> gres_items(std::string_view gres) {
  std::vector<std::string_view> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= gres.size(); ++i) {
    if (i < gres.size() && gres[i] == '(') ++depth;
    if (i < gres.size() && gres[i] == ')' && depth > 0) --depth;
    if (i == gres.size() || (gres[i] == ',' && depth == 0)) {
      items.push_back(gres.substr(start, i - start));
      start = i + 1;
    }
  }
  return items;
}

std::optional<std::int64_t> whole_number(std::string_view digits) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || value < 0)
    return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::int64_t> gres_gpu_count(std::string_view gres) {
  std::optional<std::int64_t> total;
  for (std::string_view item : gres_items(gres)) {
    item = text::trim(item.substr(0, item.find('(')));
    const auto parts = text::split(item, ':');
    if (parts.empty() || text::to_lower(parts.front()) != "gpu") continue;
    std::int64_t count = 1;  // "gpu" and "gpu:TYPE" are one
    if (parts.size() >= 2) {
      if (const auto n = whole_number(parts.back())) {
        count = *n;
      } else if (parts.size() > 2) {
        return std::nullopt;  // "gpu:a100:4K" or a count Slurm reads some other way
      }
    }
    total = total.value_or(0) + count;
  }
  return total;
}

SlurmNodeConfig slurm_node_config(std::string_view slurm_conf, std::string_view hostname) {
  SlurmNodeConfig config;
  const std::string host = short_host(hostname);
  std::string default_gres;
  for (const auto& line : parameter_lines(slurm_conf)) {
    const std::string names = value_of(line, "nodename");
    if (names.empty()) continue;
    const auto gres = line.find("gres");
    if (text::to_lower(names) == "default") {
      if (gres != line.end()) default_gres = gres->second;
      continue;
    }
    if (!names_host(names, host) && !names_host(value_of(line, "nodehostname"), host)) continue;
    config.node = host;
    config.gpus = gres_gpu_count(gres != line.end() ? gres->second : default_gres);
  }
  return config;
}

GresNodeConfig gres_node_config(std::string_view gres_conf, std::string_view hostname) {
  GresNodeConfig config;
  const std::string node = short_host(hostname);
  std::optional<std::string> global_autodetect;
  for (const auto& line : parameter_lines(gres_conf)) {
    const std::string names = value_of(line, "nodename");
    if (!names.empty() && !names_host(names, node)) continue;
    if (const auto autodetect = line.find("autodetect"); autodetect != line.end()) {
      // A node's own AutoDetect= outranks the file-wide one, wherever either stands.
      (names.empty() ? global_autodetect : config.autodetect) = text::to_lower(autodetect->second);
    }
    if (text::to_lower(value_of(line, "name")) != "gpu") continue;
    const std::string files = value_of(line, "file");
    if (files.empty()) continue;
    if (auto expanded = hostlist::expand(files)) {
      config.gpu_files.insert(config.gpu_files.end(), expanded->begin(), expanded->end());
    } else {
      config.gpu_files.push_back(files);  // as written: slurmd cannot open it either
    }
  }
  if (!config.autodetect) config.autodetect = global_autodetect;
  return config;
}

std::string slurm_parameters_read(std::string_view text, bool gres_conf) {
  static const std::vector<std::string> slurm_keys = {"nodename", "nodehostname", "gres"};
  static const std::vector<std::string> gres_keys = {"nodename", "name",  "type",
                                                     "file",     "count", "autodetect"};
  const auto& keys = gres_conf ? gres_keys : slurm_keys;
  std::string out;
  for (const auto& line : parameter_lines(text)) {
    if (!gres_conf && !line.count("nodename")) continue;
    std::string kept;
    for (const auto& key : keys) {
      if (const auto it = line.find(key); it != line.end())
        kept += (kept.empty() ? "" : " ") + key + "=" + it->second;
    }
    if (!kept.empty()) out += kept + "\n";
  }
  return out;
}

const std::vector<std::string>& slurm_conf_paths() {
  // Slurm's default (--sysconfdir=/etc/slurm in the distributions' packages), Debian's and
  // Ubuntu's before Slurm 21 (/etc/slurm-llnl), and a build from source (/usr/local/etc).
  static const std::vector<std::string> paths = {
      "/etc/slurm/slurm.conf", "/etc/slurm-llnl/slurm.conf", "/usr/local/etc/slurm.conf"};
  return paths;
}

void probe_slurm(const sys::System& system, const kb::Kb& /*kb*/, Facts& facts) {
  if (facts.os.family != "linux") return;
  std::vector<std::string> candidates;
  if (const auto configured = system.env("SLURM_CONF"); configured && !configured->empty()) {
    candidates.push_back(*configured);
  }
  const auto& usual = slurm_conf_paths();
  candidates.insert(candidates.end(), usual.begin(), usual.end());
  for (const auto& path : candidates) {
    const auto conf = system.read_text(path);
    if (!conf) continue;
    SlurmFacts slurm;
    slurm.conf = path;
    slurm.in_job = system.env("SLURM_JOB_ID").has_value();
    const auto node = slurm_node_config(*conf, facts.os.hostname.value_or(""));
    slurm.node = node.node;
    slurm.configured_gpus = node.gpus;
    // gres.conf always lies beside slurm.conf.
    const std::string gres_path = paths::join(paths::parent(path), "gres.conf");
    if (const auto gres = system.read_text(gres_path)) {
      slurm.gres_conf = gres_path;
      const auto gres_node =
          gres_node_config(*gres, node.node.value_or(facts.os.hostname.value_or("")));
      slurm.autodetect = gres_node.autodetect;
      slurm.gpu_files = gres_node.gpu_files;
      for (const auto& file : slurm.gpu_files) {
        if (!system.file_info(file)) slurm.missing_gpu_files.push_back(file);
      }
    }
    facts.slurm = std::move(slurm);
    return;
  }
}

}  // namespace gpuvet::probes
