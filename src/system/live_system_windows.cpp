// The live System on Windows. Read-only: nothing here writes, and only run_program executes.
// Every path and string crosses into the Win32 API as UTF-16 through win32_text.hpp; only the
// W functions are called, so a user profile named "张伟" reads like any other. The registry,
// files and display adapters are read in live_windows_*.cpp (live_windows_internal.hpp).
#include <windows.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cwchar>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/text.hpp"
#include "core/win32_text.hpp"
#include "platform/child_process.hpp"
#include "system/cpu_features.hpp"
#include "system/live_common.hpp"
#include "system/live_windows_internal.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {

namespace {

using windows::Key;
using windows::open_key;
using windows::read_subkeys;
using windows::read_values;
using windows::string_value;

// ---- Host ----------------------------------------------------------------------------------

// RtlGetVersion tells the true version; GetVersionExW answers 6.2 to any program without a
// compatibility manifest.
std::optional<RTL_OSVERSIONINFOW> true_version() {
  using RtlGetVersionFn = LONG(WINAPI*)(PRTL_OSVERSIONINFOW);
  const HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  if (!ntdll) return std::nullopt;
  // Through void(*)(): the one function pointer type GCC lets any other convert from and to.
  const auto generic = reinterpret_cast<void (*)()>(GetProcAddress(ntdll, "RtlGetVersion"));
  const auto rtl_get_version = reinterpret_cast<RtlGetVersionFn>(generic);
  if (!rtl_get_version) return std::nullopt;
  RTL_OSVERSIONINFOW version{};
  version.dwOSVersionInfoSize = sizeof version;
  if (rtl_get_version(&version) != 0) return std::nullopt;
  return version;
}

// A DWORD of the registry, as Windows 10 and later write CurrentMajorVersionNumber.
std::optional<std::int64_t> number_value(const RegistryValues& values, const std::string& name) {
  const auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  const auto* number = std::get_if<std::int64_t>(&it->second);
  return number ? std::optional<std::int64_t>(*number) : std::nullopt;
}

std::optional<std::string> native_arch() {
  SYSTEM_INFO info{};
  GetNativeSystemInfo(&info);
  switch (info.wProcessorArchitecture) {
    case PROCESSOR_ARCHITECTURE_AMD64:
      return "x86_64";
    case PROCESSOR_ARCHITECTURE_ARM64:
      return "arm64";
    case PROCESSOR_ARCHITECTURE_INTEL:
      return "x86";
    default:
      return std::nullopt;
  }
}

std::optional<std::string> host_name() {
  DWORD size = 0;
  GetComputerNameExW(ComputerNameDnsHostname, nullptr, &size);
  if (size == 0) return std::nullopt;
  std::wstring buffer(size, L'\0');
  if (!GetComputerNameExW(ComputerNameDnsHostname, buffer.data(), &size)) return std::nullopt;
  buffer.resize(size);
  if (buffer.empty()) return std::nullopt;
  return win32::narrow(buffer);
}

std::optional<std::string> current_directory() {
  const DWORD size = GetCurrentDirectoryW(0, nullptr);
  if (size == 0) return std::nullopt;
  std::wstring buffer(size, L'\0');
  const DWORD n = GetCurrentDirectoryW(size, buffer.data());
  if (n == 0 || n >= size) return std::nullopt;
  buffer.resize(n);
  return win32::portable_path(buffer);
}

void describe_version(HostInfo& h) {
  const Key key = open_key("HKLM/SOFTWARE/Microsoft/Windows NT/CurrentVersion");
  const RegistryValues values = key.valid() ? read_values(key.get()) : RegistryValues{};
  const auto version = true_version();
  if (version) {
    h.os_version = fmt::format("{}.{}.{}", version->dwMajorVersion, version->dwMinorVersion,
                               version->dwBuildNumber);
  } else if (const auto build = string_value(values, "CurrentBuild");
             build && !build->empty() && text::is_digits(*build)) {
    // Without RtlGetVersion: the numbers Windows 10 and later keep in the registry.
    const auto major = number_value(values, "CurrentMajorVersionNumber");
    const auto minor = number_value(values, "CurrentMinorVersionNumber");
    if (major && minor) h.os_version = fmt::format("{}.{}.{}", *major, *minor, *build);
  }
  // ProductName as Windows wrote it: Windows 11 still writes "Windows 10 ..." there. The os
  // probe names the release from the build (data/windows_releases.csv), so a snapshot keeps
  // what the machine said.
  h.os_name = string_value(values, "ProductName");
  h.os_release = string_value(values, "DisplayVersion");
  if (!h.os_release) h.os_release = string_value(values, "ReleaseId");
}

// ---- The System ----------------------------------------------------------------------------

class LiveWindowsSystem final : public System {
 public:
  explicit LiveWindowsSystem(const LiveOptions& options) : native_(options) {}

  HostInfo host() const override {
    HostInfo h;
    h.os = "windows";
    describe_version(h);
    h.arch = native_arch();
    // A Remote Desktop session has no access to the local GPU for some drivers and APIs.
    h.remote_session = GetSystemMetrics(SM_REMOTESESSION) != 0;
    h.cwd = current_directory();
    h.cpu = live_cpu_features();
    h.hostname = host_name();
    return h;
  }

  // GetEnvironmentVariableW compares names case-insensitively, as Windows does.
  std::optional<std::string> env(std::string_view name) const override {
    if (name.empty()) return std::nullopt;
    const std::wstring wide_name = win32::widen(name);
    std::wstring value(256, L'\0');
    for (;;) {
      SetLastError(ERROR_SUCCESS);
      const DWORD n = GetEnvironmentVariableW(wide_name.c_str(), value.data(),
                                              static_cast<DWORD>(value.size()));
      if (n == 0 && GetLastError() == ERROR_ENVVAR_NOT_FOUND) return std::nullopt;
      if (n < value.size()) return win32::narrow(std::wstring_view(value.data(), n));
      value.resize(n);  // too small: n is the size needed, its NUL included
    }
  }

  std::map<std::string, std::string> environment() const override {
    std::map<std::string, std::string> all;
    wchar_t* block = GetEnvironmentStringsW();
    if (!block) return all;
    for (const wchar_t* entry = block; *entry; entry += std::wcslen(entry) + 1) {
      const std::wstring_view text(entry);
      const size_t eq = text.find(L'=');
      // "=C:=C:\\work" entries are cmd's per-drive directories, not variables.
      if (eq == std::wstring_view::npos || eq == 0) continue;
      all.emplace(win32::narrow(text.substr(0, eq)), win32::narrow(text.substr(eq + 1)));
    }
    FreeEnvironmentStringsW(block);
    return all;
  }

  std::optional<FileInfo> file_info(const std::string& path) const override {
    return file_info_cache_.get(path, [&path] { return windows::ask_file_info(path); });
  }

  std::optional<std::vector<DirEntry>> list_dir(const std::string& path) const override {
    return listing_cache_.get(path, [this, &path] { return windows::ask_list_dir(*this, path); });
  }

  Result<std::string> read_text(const std::string& path) const override {
    return whole_text(path, windows::read_prefix(path, kMaxTextBytes + 1));
  }

  Result<std::string> read_head(const std::string& path, size_t max_bytes) const override {
    return windows::read_prefix(path, std::min(max_bytes, kMaxTextBytes));
  }

  Result<ElfInfo> elf_info(const std::string& path) const override {
    return windows::read_elf_info(path);
  }

  Result<GpuCode> gpu_code(const std::string& path) const override {
    return windows::read_gpu_code_of(path);
  }

  Result<PeVersion> pe_version(const std::string& path) const override {
    return windows::read_pe_version(path);
  }

  std::optional<RegistryValues> registry_values(const std::string& key) const override {
    const Key opened = open_key(key);
    if (!opened.valid()) return std::nullopt;
    return read_values(opened.get());
  }

  std::vector<std::string> registry_subkeys(const std::string& key) const override {
    const Key opened = open_key(key);
    if (!opened.valid()) return {};
    return read_subkeys(opened.get());
  }

  // Windows has no loader cache: the DLL search order is all there is.
  std::optional<std::vector<std::string>> ld_cache_lookup(const std::string&) const override {
    return std::nullopt;
  }

  // Only existing regular files are run, with no input and a deadline.
  std::optional<ProgramOutput> run_program(const std::string& program,
                                           const std::vector<std::string>& args) const override {
    const auto info = file_info(program);
    if (!info || info->kind != FileKind::regular) return std::nullopt;
    return program_output(platform::run_child(program, args, kProgramTimeout, kMaxProgramOutput));
  }

  // Native GPU answers come from a child process (gpu/native_query.hpp), asked once.
  std::optional<DriverAnswer> driver() const override { return native_.driver(); }
  std::optional<std::vector<GpuAnswer>> gpus() const override { return native_.gpus(); }
  std::optional<LoadAnswer> load(const std::string& library) const override {
    return native_.load(library);
  }

  // Every present display adapter (SetupAPI), whatever its vendor.
  std::optional<std::vector<DisplayAdapter>> display_adapters() const override {
    return windows::present_display_adapters();
  }

 private:
  NativeAnswerCache native_;
  FileInfoCache file_info_cache_;
  DirListingCache listing_cache_;
};

}  // namespace

std::unique_ptr<System> make_live_system(const LiveOptions& options) {
  return std::make_unique<LiveWindowsSystem>(options);
}

}  // namespace gpuvet::sys
