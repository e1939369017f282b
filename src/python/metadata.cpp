#include "python/metadata.hpp"

#include <algorithm>
#include <cctype>

#include "core/text.hpp"
#include "core/version.hpp"

namespace gpuvet::python {

namespace {

bool is_separator(char c) {
  return c == '-' || c == '_' || c == '.';
}

bool is_version_start(std::string_view s) {
  return !s.empty() && std::isdigit(static_cast<unsigned char>(s.front()));
}

std::string unquote(std::string_view value) {
  value = text::trim(value);
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  return std::string(value);
}

}  // namespace

std::string normalize_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_separator = false;
  for (const char c : name) {
    if (is_separator(c)) {
      if (!in_separator) out.push_back('-');
      in_separator = true;
      continue;
    }
    in_separator = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::optional<NameVersion> parse_core_metadata(std::string_view text) {
  std::optional<std::string> name;
  std::optional<std::string> version;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the headers end at the first blank line
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || line.front() == ' ' || line.front() == '\t') continue;
    const std::string key = text::to_lower(line.substr(0, colon));
    const std::string_view value = text::trim(line.substr(colon + 1));
    if (key == "name" && !name && !value.empty()) name = std::string(value);
    if (key == "version" && !version && !value.empty()) version = std::string(value);
    if (name && version) break;
  }
  if (!name || !version) return std::nullopt;
  return NameVersion{*name, *version};
}

std::optional<DistDirName> parse_dist_dir_name(std::string_view entry) {
  DistDirName out;
  std::string_view stem;
  if (entry.ends_with(".dist-info")) {
    stem = entry.substr(0, entry.size() - 10);
  } else if (entry.ends_with(".egg-info")) {
    stem = entry.substr(0, entry.size() - 9);
    out.kind = DistKind::egg_info;
  } else {
    return std::nullopt;
  }
  auto id = split_name_version(stem);
  if (!id) return std::nullopt;
  // egg-info: "<version>-py3.11" or "<version>-py3.11-linux-x86_64".
  if (const size_t py = id->version.find("-py"); py != std::string::npos) {
    id->version.resize(py);
  }
  if (id->version.empty()) return std::nullopt;
  out.id = std::move(*id);
  return out;
}

std::optional<NameVersion> split_name_version(std::string_view stem) {
  // The name ends at the first '-' followed by a digit: wheel-era names have no '-', older
  // egg-info names and pip's output may ("dbus-python-1.2.0", "onnxruntime-gpu-1.23.2").
  size_t dash = stem.find('-');
  while (dash != std::string_view::npos && !is_version_start(stem.substr(dash + 1))) {
    dash = stem.find('-', dash + 1);
  }
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == stem.size()) {
    return std::nullopt;
  }
  return NameVersion{std::string(stem.substr(0, dash)), std::string(stem.substr(dash + 1))};
}

std::optional<CondaRecordName> parse_conda_record_name(std::string_view file_name) {
  if (!file_name.ends_with(".json")) return std::nullopt;
  const std::string_view stem = file_name.substr(0, file_name.size() - 5);
  const size_t build_dash = stem.rfind('-');
  if (build_dash == std::string_view::npos || build_dash == 0) return std::nullopt;
  const size_t version_dash = stem.rfind('-', build_dash - 1);
  if (version_dash == std::string_view::npos || version_dash == 0) return std::nullopt;
  CondaRecordName out{std::string(stem.substr(0, version_dash)),
                      std::string(stem.substr(version_dash + 1, build_dash - version_dash - 1)),
                      std::string(stem.substr(build_dash + 1))};
  if (out.version.empty() || out.build.empty()) return std::nullopt;
  return out;
}

std::optional<std::string> conda_channel(std::string_view head) {
  const size_t key = head.find("\"channel\"");
  if (key == std::string_view::npos) return std::nullopt;
  const size_t open = head.find('"', head.find(':', key));
  if (open == std::string_view::npos) return std::nullopt;
  const size_t close = head.find('"', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  std::string channel(head.substr(open + 1, close - open - 1));
  // A private channel's URL carries credentials: "https://user:password@host/..." or anaconda.org's
  // "https://conda.anaconda.org/t/<token>/channel". The channel's name is what is left.
  if (const size_t scheme = channel.find("://"); scheme != std::string::npos) {
    const size_t authority = scheme + 3;
    const size_t path = std::min(channel.find('/', authority), channel.size());
    const size_t at = channel.rfind('@', path);
    if (at != std::string::npos && at >= authority) channel.erase(authority, at + 1 - authority);
  }
  if (const size_t t = channel.find("/t/"); t != std::string::npos) {
    const size_t token_end = channel.find('/', t + 3);
    channel.erase(t, token_end == std::string::npos ? std::string::npos : token_end - t);
  }
  if (channel.starts_with("t/")) {
    const size_t token_end = channel.find('/', 2);
    channel.erase(0, token_end == std::string::npos ? std::string::npos : token_end + 1);
  }
  for (const std::string_view prefix : {"https://conda.anaconda.org/", "http://conda.anaconda.org/",
                                        "https://repo.anaconda.com/"}) {
    if (channel.starts_with(prefix)) channel = channel.substr(prefix.size());
  }
  // The platform subdirectory is not part of the channel's name.
  for (const std::string_view subdir : {"/linux-64", "/linux-aarch64", "/linux-ppc64le", "/win-64",
                                        "/osx-64", "/osx-arm64", "/noarch"}) {
    if (channel.ends_with(subdir)) channel.resize(channel.size() - subdir.size());
  }
  if (channel.empty()) return std::nullopt;
  return channel;
}

std::map<std::string, std::string> parse_cfg(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const auto& raw : text::split(text, '\n')) {
    const std::string_view line = text::trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    out[text::to_lower(text::trim(line.substr(0, eq)))] =
        std::string(text::trim(line.substr(eq + 1)));
  }
  return out;
}

std::optional<std::string> pyvenv_python_version(const std::map<std::string, std::string>& cfg) {
  for (const char* key : {"version", "version_info"}) {
    const auto it = cfg.find(key);
    if (it == cfg.end() || !is_version_start(it->second)) continue;
    // "3.11.2.final.0" -> "3.11.2": keep the numeric parts.
    std::vector<std::string> numeric;
    for (const auto& part : text::split(it->second, '.')) {
      if (!text::is_digits(part)) break;
      numeric.push_back(part);
    }
    if (!numeric.empty()) return text::join(numeric, ".");
  }
  return std::nullopt;
}

std::optional<std::string> patchlevel_version(std::string_view header) {
  const size_t at = header.find("#define PY_VERSION");
  if (at == std::string_view::npos) return std::nullopt;
  const size_t open = header.find('"', at);
  const size_t line_end = header.find('\n', at);
  if (open == std::string_view::npos || (line_end != std::string_view::npos && open > line_end)) {
    return std::nullopt;
  }
  const size_t close = header.find('"', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  const std::string_view version = header.substr(open + 1, close - open - 1);
  if (!is_version_start(version)) return std::nullopt;
  return std::string(version);
}

std::optional<std::string> lib_dir_version(std::string_view name) {
  if (!name.starts_with("python")) return std::nullopt;
  std::string_view rest = name.substr(6);
  if (rest.ends_with("t")) rest.remove_suffix(1);  // free-threaded builds: python3.13t
  const auto parts = text::split(rest, '.');
  if (parts.size() != 2 || !text::is_digits(parts[0]) || !text::is_digits(parts[1])) {
    return std::nullopt;
  }
  return std::string(rest);
}

std::vector<std::string> condarc_envs_dirs(std::string_view text) {
  std::vector<std::string> dirs;
  bool in_list = false;
  for (const auto& raw : text::split(text, '\n')) {
    std::string line = raw;
    if (const size_t hash = line.find(" #"); hash != std::string::npos) line.resize(hash);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string_view trimmed = text::trim(line);
    if (trimmed.empty() || trimmed.front() == '#') continue;
    const bool indented = line.front() == ' ' || line.front() == '\t' || line.front() == '-';
    if (in_list && indented && trimmed.front() == '-') {
      const std::string value = unquote(trimmed.substr(1));
      if (!value.empty()) dirs.push_back(value);
      continue;
    }
    in_list = false;
    if (!trimmed.starts_with("envs_dirs")) continue;
    const size_t colon = trimmed.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view value = text::trim(trimmed.substr(colon + 1));
    if (value.empty()) {
      in_list = true;
    } else if (value.front() == '[' && value.back() == ']') {
      for (const auto& item : text::split(value.substr(1, value.size() - 2), ',')) {
        const std::string dir = unquote(item);
        if (!dir.empty()) dirs.push_back(dir);
      }
    }
  }
  return dirs;
}

std::string major_minor(std::string_view v) {
  return version::prefix(v, 2);
}

}  // namespace gpuvet::python
