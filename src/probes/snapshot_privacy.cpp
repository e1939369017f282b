#include "probes/snapshot_privacy.hpp"

#include <nlohmann/json.hpp>
#include <variant>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "probes/probes.hpp"
#include "python/metadata.hpp"

namespace gpuvet::probes {

namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// .condarc: the python probe reads envs_dirs only (python::condarc_envs_dirs); channels, proxy
// servers and upload tokens stay home.
std::string condarc(const std::string& text) {
  std::string out;
  const auto dirs = python::condarc_envs_dirs(text);
  if (dirs.empty()) return out;
  out = "envs_dirs:\n";
  for (const auto& dir : dirs)
    out += "  - " + dir + "\n";
  return out;
}

// conda-meta/<record>.json: the probe takes the channel's name (python::conda_channel), and the
// name, version and build from the file name.
std::string conda_record(const std::string& text) {
  const auto channel = python::conda_channel(text);
  if (!channel) return "{}";
  return nlohmann::json{{"channel", *channel}}.dump();
}

// Core metadata: the probe reads Name and Version (python::parse_core_metadata); URLs, authors
// and the long description are not kept.
std::string core_metadata(const std::string& text) {
  const auto nv = python::parse_core_metadata(text);
  if (!nv) return "";
  return "Name: " + nv->name + "\nVersion: " + nv->version + "\n\n";
}

// pyvenv.cfg: the Python version (python::pyvenv_python_version) and what says which interpreter
// the venv belongs to; not `command` (the whole command line that made it).
std::string pyvenv_cfg(const std::string& text) {
  std::string out;
  for (const auto& [key, value] : python::parse_cfg(text)) {
    for (const char* kept : {"home", "version", "version_info", "include-system-site-packages",
                             "implementation", "virtualenv", "uv"}) {
      if (key == kept) out += key + " = " + value + "\n";
    }
  }
  return out;
}

bool is_environment_key(const std::string& key) {
  return text::to_lower(key).ends_with("/environment");
}

void scrub_json(nlohmann::json& j, const PrivacyOptions& options) {
  const auto scrub = [&](const std::string& s) {
    return redact::redact_user(redact::scrub_text(s), options.users);
  };
  if (j.is_string()) {
    j = scrub(j.get<std::string>());
  } else if (j.is_array()) {
    for (auto& item : j)
      scrub_json(item, options);
  } else if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [key, value] : j.items()) {
      // A member whose name says credential (a registry value, a key of a JSON file) goes whole.
      if (value.is_string() && redact::is_secret_name(key) && value != redact::kRedacted) {
        value = redact::kRedacted;
      }
      scrub_json(value, options);
      out[scrub(key)] = std::move(value);
    }
    j = std::move(out);
  }
}

// /proc/self/mountinfo: the driver probe asks only whether driver libraries are mounted and the
// os probe how large /dev/shm is; the other lines name the user's volumes.
std::string driver_mounts(const std::string& text) {
  std::string out;
  for (const auto& line : text::split(text, '\n')) {
    const auto points = mount_points(line);
    if (!points.empty() && (is_driver_mount(points.front()) || points.front() == "/dev/shm")) {
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace

std::string keep_what_probes_read(const std::string& path, const std::string& text,
                                  const std::string& condarc_path,
                                  const std::string& slurm_conf_path) {
  const std::string name = base_name(path);
  const std::string parent = base_name(paths::parent(path));
  if (name == ".condarc" || name == "condarc" ||
      (!condarc_path.empty() && text::to_lower(path) == text::to_lower(condarc_path))) {
    return condarc(text);
  }
  if (parent == "conda-meta" && name.ends_with(".json")) return conda_record(text);
  if ((name == "METADATA" && parent.ends_with(".dist-info")) ||
      (name == "PKG-INFO" && parent.ends_with(".egg-info")) || name.ends_with(".egg-info")) {
    return core_metadata(text);
  }
  if (name == "pyvenv.cfg") return pyvenv_cfg(text);
  if (name == "mountinfo" && path.starts_with("/proc/")) return driver_mounts(text);
  if (name == "gres.conf") return slurm_parameters_read(text, true);
  if (name == "slurm.conf" || (!slurm_conf_path.empty() && path == slurm_conf_path)) {
    return slurm_parameters_read(text, false);
  }
  return text;
}

sys::Snapshot private_snapshot(const sys::Snapshot& recorded, const PrivacyOptions& options) {
  sys::Snapshot s = recorded;
  std::string condarc_path;
  if (const auto it = s.env.find("CONDARC"); it != s.env.end()) {
    condarc_path = paths::normalize(it->second);
  }
  std::string slurm_conf_path;
  if (const auto it = s.env.find("SLURM_CONF"); it != s.env.end()) slurm_conf_path = it->second;
  for (auto& [path, entry] : s.files) {
    if (entry.text)
      entry.text = keep_what_probes_read(path, *entry.text, condarc_path, slurm_conf_path);
  }
  // The Environment keys hold the user's saved variables: the probes read Path only.
  for (auto& [key, values] : s.registry) {
    if (!is_environment_key(key)) continue;
    for (auto& [name, value] : values) {
      if (!redact::is_kept(name) && std::holds_alternative<std::string>(value)) {
        value = std::string(redact::kRedacted);
      }
    }
  }
  s.env = redact::environment(s.env);
  // --redact-user hides who and where: the machine's name goes with the user's (a fleet report
  // then names the node after its file).
  if (!options.users.empty()) s.host.hostname.reset();
  nlohmann::json doc = sys::snapshot_to_json(s);
  scrub_json(doc, options);
  auto scrubbed = sys::snapshot_from_json(doc);
  // The net never makes a valid document invalid; should it, nothing unscrubbed is returned.
  if (!scrubbed) {
    sys::Snapshot empty;
    empty.taken_at = s.taken_at;
    empty.host = s.host;
    return empty;
  }
  return *scrubbed;
}

}  // namespace gpuvet::probes
