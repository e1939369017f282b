// The os probe: family, distribution or Windows edition, kernel, architecture, WSL, container.
#include <cstdint>
#include <limits>
#include <optional>
#include <variant>

#include "core/text.hpp"
#include "probes/probes.hpp"

namespace gpuvet::probes {

namespace {

std::string unquote(std::string_view value) {
  value = text::trim(value);
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    std::string out;
    const bool double_quoted = value.front() == '"';
    for (size_t i = 1; i + 1 < value.size(); ++i) {
      if (double_quoted && value[i] == '\\' && i + 2 < value.size()) ++i;
      out.push_back(value[i]);
    }
    return out;
  }
  return std::string(value);
}

std::optional<std::string> lookup(const std::vector<std::pair<std::string, std::string>>& pairs,
                                  std::string_view key) {
  for (const auto& [k, v] : pairs) {
    if (k == key && !v.empty()) return v;
  }
  return std::nullopt;
}

void read_linux_release(const sys::System& system, OsFacts& os) {
  // os-release(5): /etc/os-release first, /usr/lib/os-release as the fallback.
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    const auto content = system.read_text(path);
    if (!content) continue;
    const auto pairs = parse_os_release(*content);
    os.name = lookup(pairs, "PRETTY_NAME");
    if (!os.name) os.name = lookup(pairs, "NAME");
    os.version = lookup(pairs, "VERSION_ID");
    os.release = lookup(pairs, "VERSION_CODENAME");
    return;
  }
}

bool detect_wsl(const sys::System& system, const sys::HostInfo& host) {
  if (host.wsl || system.env("WSL_DISTRO_NAME")) return true;
  // WSL kernels carry "microsoft" in their release ("5.15.90.1-microsoft-standard-WSL2").
  const auto release = system.read_text("/proc/sys/kernel/osrelease");
  return release && text::contains_icase(*release, "microsoft");
}

// "65536k" and the like: a number with tmpfs's optional k, m or g.
std::optional<std::int64_t> tmpfs_size(std::string_view value) {
  std::int64_t unit = 1;
  if (!value.empty()) {
    const char suffix = static_cast<char>(value.back() | 0x20);
    if (suffix == 'k' || suffix == 'm' || suffix == 'g') {
      unit = suffix == 'k' ? 1024 : suffix == 'm' ? 1024 * 1024 : 1024 * 1024 * 1024;
      value.remove_suffix(1);
    }
  }
  if (value.empty() || value.size() > 15) return std::nullopt;
  std::int64_t number = 0;
  for (const char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    number = number * 10 + (c - '0');
  }
  if (number > std::numeric_limits<std::int64_t>::max() / unit) return std::nullopt;
  return number * unit;
}

std::optional<std::string> detect_container(const sys::System& system, const sys::HostInfo& host) {
  if (host.container) return host.container;
  if (system.exists("/.dockerenv")) return "docker";
  if (system.exists("/run/.containerenv")) return "podman";
  // systemd's convention: container managers set $container for PID 1 and its children.
  if (const auto value = system.env("container"); value && !value->empty()) return *value;
  if (system.env("KUBERNETES_SERVICE_HOST")) return "kubernetes";
  if (const auto cgroup = system.read_text("/proc/1/cgroup")) {
    for (const char* name : {"kubepods", "docker", "containerd", "lxc"}) {
      if (cgroup->find(name) != std::string::npos) {
        return std::string(name) == "kubepods" ? "kubernetes" : name;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> shm_size_of(std::string_view mountinfo) {
  std::optional<std::int64_t> size;
  for (const auto& line : text::split(mountinfo, '\n')) {
    const auto points = mount_points(line);
    if (points.empty() || points.front() != "/dev/shm") continue;
    // After the optional fields: " - fstype source super_options".
    const size_t dash = line.find(" - ");
    const auto tail = dash == std::string::npos ? std::vector<std::string>()
                                                : text::split(line.substr(dash + 3), ' ');
    size.reset();  // a later mount over /dev/shm hides the earlier one
    if (tail.size() < 3 || tail[0] != "tmpfs") continue;
    for (const auto& option : text::split(tail[2], ',')) {
      if (option.starts_with("size=")) size = tmpfs_size(std::string_view(option).substr(5));
    }
  }
  return size;
}

std::vector<std::pair<std::string, std::string>> parse_os_release(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& raw_line : text::split(text, '\n')) {
    const std::string_view line = text::trim(raw_line);
    if (line.empty() || line.front() == '#') continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    pairs.emplace_back(std::string(text::trim(line.substr(0, eq))), unquote(line.substr(eq + 1)));
  }
  return pairs;
}

namespace {

// Microsoft, "Maximum Path Length Limitation": paths over MAX_PATH (260) work only when
// HKLM\SYSTEM\CurrentControlSet\Control\FileSystem LongPathsEnabled is 1 (REG_DWORD).
// https://learn.microsoft.com/windows/win32/fileio/maximum-file-path-limitation
std::optional<bool> long_paths_enabled(const sys::System& system) {
  const auto values = system.registry_values("HKLM/SYSTEM/CurrentControlSet/Control/FileSystem");
  if (!values) return std::nullopt;
  const auto it = values->find("LongPathsEnabled");
  if (it == values->end()) return false;
  const auto* number = std::get_if<std::int64_t>(&it->second);
  return number && *number == 1;
}

// Microsoft, "Enable memory integrity": memory integrity (hypervisor-protected code integrity)
// is on when Enabled is 1 (REG_DWORD) under
// HKLM\SYSTEM\CurrentControlSet\Control\DeviceGuard\Scenarios\HypervisorEnforcedCodeIntegrity.
// No value: never configured, unknown.
// https://learn.microsoft.com/windows/security/hardware-security/enable-virtualization-based-protection-of-code-integrity
std::optional<bool> memory_integrity(const sys::System& system) {
  const auto values = system.registry_values(
      "HKLM/SYSTEM/CurrentControlSet/Control/DeviceGuard/Scenarios/"
      "HypervisorEnforcedCodeIntegrity");
  if (!values) return std::nullopt;
  const auto it = values->find("Enabled");
  if (it == values->end()) return std::nullopt;
  const auto* number = std::get_if<std::int64_t>(&it->second);
  return number && *number == 1;
}

// Microsoft, "Testing and debugging TDR": TdrDelay (REG_DWORD) under
// HKLM\System\CurrentControlSet\Control\GraphicsDrivers is the timeout in seconds, 2 when
// the value is not set.
// https://learn.microsoft.com/windows-hardware/drivers/display/tdr-registry-keys
std::optional<std::int64_t> tdr_delay_s(const sys::System& system) {
  constexpr std::int64_t kDefaultTdrDelay = 2;
  const auto values =
      system.registry_values("HKLM/SYSTEM/CurrentControlSet/Control/GraphicsDrivers");
  if (!values) return std::nullopt;
  const auto it = values->find("TdrDelay");
  if (it == values->end()) return kDefaultTdrDelay;
  const auto* number = std::get_if<std::int64_t>(&it->second);
  return number ? std::optional<std::int64_t>(*number) : std::nullopt;
}

// The build number of "10.0.22631" (the third part), when it is one.
std::optional<long long> build_of(const std::optional<std::string>& version) {
  if (!version) return std::nullopt;
  const auto parts = text::split(*version, '.');
  if (parts.size() < 3 || parts[2].empty() || parts[2].size() > 9 || !text::is_digits(parts[2]))
    return std::nullopt;
  return std::stoll(std::string(parts[2]));
}

// Windows 11 still writes "Windows 10 ..." as its ProductName: the name comes from the build
// (data/windows_releases.csv), and a name Windows already spells right stays.
std::optional<std::string> windows_product_name(const kb::Kb& kb, std::optional<std::string> name,
                                                const std::optional<std::string>& version) {
  const auto build = build_of(version);
  const auto table = kb.table("windows_releases");
  if (!name || !build || !table) return name;
  const kb::Table& t = **table;
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string& from = t.cell(row, "registry_name");
    const std::string& first = t.cell(row, "first_build");
    if (from.empty() || !text::is_digits(first) || first.size() > 9) continue;
    if (*build < std::stoll(first) || !name->starts_with(from)) continue;
    // "Windows 10" must end the word: "Windows 100" is not it.
    if (name->size() > from.size() && (*name)[from.size()] != ' ') continue;
    return t.cell(row, "product_name") + name->substr(from.size());
  }
  return name;
}

}  // namespace

void probe_os(const sys::System& system, const kb::Kb& kb, Facts& facts) {
  const sys::HostInfo host = system.host();
  OsFacts& os = facts.os;
  os.family = host.os;
  os.arch = host.arch;
  os.remote_session = host.remote_session;
  os.hostname = host.hostname;
  if (host.os == "windows") {
    os.name = windows_product_name(kb, host.os_name, host.os_version);
    os.version = host.os_version;
    os.release = host.os_release;
    os.wsl = false;
    os.long_paths_enabled = long_paths_enabled(system);
    os.memory_integrity = memory_integrity(system);
    os.tdr_delay_s = tdr_delay_s(system);
    return;
  }
  os.kernel = host.os_version;
  read_linux_release(system, os);
  if (!os.name) os.name = host.os_name;
  os.wsl = detect_wsl(system, host);
  os.container = detect_container(system, host);
  if (const auto mountinfo = system.read_text("/proc/self/mountinfo")) {
    os.shm_bytes = shm_size_of(*mountinfo);
  }
}

}  // namespace gpuvet::probes
