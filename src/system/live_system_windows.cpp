// The live System on Windows. Read-only: nothing here writes, and only run_program executes.
// Every path and string crosses into the Win32 API as UTF-16 through win32_text.hpp; only the
// W functions are called, so a user profile named "张伟" reads like any other.
#include <windows.h>

#include <setupapi.h>
// INITGUID makes devguid.h define GUID_DEVCLASS_DISPLAY here (selectany, so another file doing
// the same does not clash) instead of needing libuuid at link time.
#include <initguid.h>

#include <devguid.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cwchar>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text.hpp"
#include "core/win32_text.hpp"
#include "platform/child_process.hpp"
#include "system/cpu_features.hpp"
#include "system/elf_reader.hpp"
#include "system/live_common.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {

namespace {

// ---- Owned handles ---------------------------------------------------------------------------

// A Win32 handle of some kind, released when the object goes away. Traits name the type, how it is
// released and which values mean "none" (INVALID_HANDLE_VALUE for files, null for others).
template <typename Traits>
class Owned {
 public:
  using Value = typename Traits::Value;
  Owned() = default;
  explicit Owned(Value value) : value_(value) {}
  ~Owned() {
    if (valid()) Traits::release(value_);
  }
  Owned(Owned&& other) noexcept : value_(std::exchange(other.value_, Traits::none())) {}
  Owned& operator=(Owned&& other) noexcept {
    std::swap(value_, other.value_);
    return *this;
  }

  bool valid() const { return Traits::valid(value_); }
  Value get() const { return value_; }
  // For APIs that hand the handle back through an out parameter (RegOpenKeyExW).
  Value* out() { return &value_; }

 private:
  Value value_ = Traits::none();
};

struct FileTraits {
  using Value = HANDLE;
  static Value none() { return INVALID_HANDLE_VALUE; }
  static bool valid(Value h) { return h != INVALID_HANDLE_VALUE && h != nullptr; }
  static void release(Value h) { CloseHandle(h); }
};
struct FindTraits {
  using Value = HANDLE;
  static Value none() { return INVALID_HANDLE_VALUE; }
  static bool valid(Value h) { return h != INVALID_HANDLE_VALUE && h != nullptr; }
  static void release(Value h) { FindClose(h); }
};
struct KeyTraits {
  using Value = HKEY;
  static Value none() { return nullptr; }
  // SetupDiOpenDevRegKey reports failure as INVALID_HANDLE_VALUE, RegOpenKeyExW leaves null.
  static bool valid(Value k) {
    return k != nullptr && k != static_cast<HKEY>(INVALID_HANDLE_VALUE);
  }
  static void release(Value k) { RegCloseKey(k); }
};
struct DeviceSetTraits {
  using Value = HDEVINFO;
  static Value none() { return INVALID_HANDLE_VALUE; }
  static bool valid(Value h) { return h != INVALID_HANDLE_VALUE && h != nullptr; }
  static void release(Value h) { SetupDiDestroyDeviceInfoList(h); }
};

using File = Owned<FileTraits>;
using Find = Owned<FindTraits>;
using Key = Owned<KeyTraits>;
using DeviceSet = Owned<DeviceSetTraits>;

// ---- Small helpers -------------------------------------------------------------------------

// "<path>: <why>" for the calling thread's last Win32 error, like strerror on POSIX.
std::string last_error(const std::string& path) {
  return fmt::format("{}: {}", path, win32::error_text(GetLastError()));
}

// A string the API wrote into a buffer that may or may not carry its terminating NUL(s).
std::wstring up_to_nul(const wchar_t* chars, size_t count) {
  const std::wstring_view view(chars, count);
  return std::wstring(view.substr(0, view.find(L'\0')));
}

// A handle for asking about a file or directory without reading it. Backup semantics let
// directories open; without following, the handle is that of the link itself.
File open_for_query(const std::wstring& path, bool follow_links) {
  const DWORD flags =
      FILE_FLAG_BACKUP_SEMANTICS | (follow_links ? 0 : FILE_FLAG_OPEN_REPARSE_POINT);
  return File(CreateFileW(path.c_str(), FILE_READ_ATTRIBUTES,
                          FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                          OPEN_EXISTING, flags, nullptr));
}

FileKind kind_of(DWORD attributes) {
  if (attributes & FILE_ATTRIBUTE_DIRECTORY) return FileKind::directory;
  if (attributes & FILE_ATTRIBUTE_DEVICE) return FileKind::other;
  return FileKind::regular;
}

// Reparse points are also used for cloud placeholders, deduplicated files and the Store's app
// execution aliases (WindowsApps\python.exe); those read as the file itself. Only name
// surrogates (symlinks, junctions, mount points) stand for another path, as a POSIX link does.
bool is_link_tag(DWORD attributes, DWORD tag) {
  return (attributes & FILE_ATTRIBUTE_REPARSE_POINT) && IsReparseTagNameSurrogate(tag);
}

std::optional<DWORD> reparse_tag(const std::wstring& path) {
  const File link = open_for_query(path, false);
  FILE_ATTRIBUTE_TAG_INFO info{};
  if (!link.valid() ||
      !GetFileInformationByHandleEx(link.get(), FileAttributeTagInfo, &info, sizeof info)) {
    return std::nullopt;
  }
  return info.ReparseTag;
}

// Where a link finally leads, from the handle of its target: "\\?\C:\x" -> "C:/x",
// "\\?\UNC\server\share" -> "//server/share".
std::optional<std::string> final_path(HANDLE target) {
  std::wstring buffer(MAX_PATH, L'\0');
  for (;;) {
    const DWORD n =
        GetFinalPathNameByHandleW(target, buffer.data(), static_cast<DWORD>(buffer.size()), 0);
    if (n == 0) return std::nullopt;
    if (n < buffer.size()) {
      buffer.resize(n);
      break;
    }
    buffer.resize(n);  // n counts the NUL when the buffer was too small
  }
  constexpr std::wstring_view kUnc = L"\\\\?\\UNC\\";
  if (std::wstring_view(buffer).substr(0, kUnc.size()) == kUnc) {
    buffer.replace(0, kUnc.size(), L"\\\\");
  }
  return win32::portable_path(buffer);
}

// What a link points at: its kind and size, and the path it resolves to. nullopt when the
// target is missing (a dangling link).
struct LinkTarget {
  BY_HANDLE_FILE_INFORMATION info;
  std::optional<std::string> path;
};
std::optional<LinkTarget> resolve_link(const std::wstring& path) {
  const File target = open_for_query(path, true);
  LinkTarget resolved{};
  if (!target.valid() || !GetFileInformationByHandle(target.get(), &resolved.info)) {
    return std::nullopt;
  }
  resolved.path = final_path(target.get());
  return resolved;
}

std::uint64_t combine(DWORD high, DWORD low) {
  return (std::uint64_t{high} << 32) | low;
}

// "\\?\C:\" style paths are passed on; the device namespace (\\.\pipe\x, \\.\COM1) is not a file
// system at all, and opening a pipe or port can connect to it or block.
bool is_device_path(std::string_view path) {
  return path.size() >= 4 && (path[0] == '\\' || path[0] == '/') &&
         (path[1] == '\\' || path[1] == '/') && path[2] == '.' &&
         (path[3] == '\\' || path[3] == '/');
}

// Opens a regular file for reading: sharing everything so that a file another program has open
// still reads, and checked to be a file on disk (not a directory, console, pipe or device).
Result<File> open_regular(const std::string& path) {
  if (is_device_path(path)) return make_error(fmt::format("{}: not a regular file", path));
  File file(CreateFileW(win32::native_path(path).c_str(), GENERIC_READ,
                        FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                        OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
  if (!file.valid()) return make_error(last_error(path));
  BY_HANDLE_FILE_INFORMATION info{};
  if (GetFileType(file.get()) != FILE_TYPE_DISK || !GetFileInformationByHandle(file.get(), &info) ||
      (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
    return make_error(fmt::format("{}: not a regular file", path));
  }
  return file;
}

// The first `limit` bytes of a regular file.
Result<std::string> read_prefix(const std::string& path, size_t limit) {
  auto file = open_regular(path);
  if (!file) return file.error();
  std::string content;
  char buffer[16384];
  while (content.size() < limit) {
    const auto wanted = static_cast<DWORD>(std::min(sizeof buffer, limit - content.size()));
    DWORD n = 0;
    if (!ReadFile(file->get(), buffer, wanted, &n, nullptr)) return make_error(last_error(path));
    if (n == 0) break;
    content.append(buffer, n);
  }
  return content;
}

// Byte ranges of an open file through positioned reads, so that reading the ELF headers of a
// multi-hundred-MB library costs a few small reads.
class HandleByteSource final : public PositionedByteSource {
 public:
  HandleByteSource(HANDLE file, std::uint64_t size) : PositionedByteSource(size), file_(file) {}

 private:
  std::size_t read_some(std::uint64_t offset, std::size_t length, char* out) const override {
    OVERLAPPED at{};
    at.Offset = static_cast<DWORD>(offset);
    at.OffsetHigh = static_cast<DWORD>(offset >> 32);
    const auto wanted = static_cast<DWORD>(std::min<std::size_t>(length, 1u << 30));
    DWORD n = 0;
    return ReadFile(file_, out, wanted, &n, &at) ? n : 0;
  }

  HANDLE file_;
};

// ---- Registry ------------------------------------------------------------------------------

// "HKLM/SOFTWARE/NVIDIA Corporation" -> (HKEY_LOCAL_MACHINE, L"SOFTWARE\\NVIDIA Corporation").
std::optional<std::pair<HKEY, std::wstring>> split_key(std::string_view key) {
  const size_t cut = key.find_first_of("/\\");
  const std::string root = text::to_lower(key.substr(0, cut));
  HKEY hive = nullptr;
  if (root == "hklm" || root == "hkey_local_machine") hive = HKEY_LOCAL_MACHINE;
  if (root == "hkcu" || root == "hkey_current_user") hive = HKEY_CURRENT_USER;
  if (!hive) return std::nullopt;
  std::wstring sub = cut == std::string_view::npos ? L"" : win32::native_path(key.substr(cut + 1));
  while (!sub.empty() && sub.back() == L'\\')
    sub.pop_back();
  return std::pair{hive, std::move(sub)};
}

// Always the 64-bit view, so that a 32-bit build sees what 64-bit drivers and installers wrote.
Key open_key(const std::string& key) {
  Key opened;
  const auto where = split_key(key);
  if (!where) return opened;
  if (RegOpenKeyExW(where->first, where->second.c_str(), 0, KEY_READ | KEY_WOW64_64KEY,
                    opened.out()) != ERROR_SUCCESS) {
    *opened.out() = nullptr;
  }
  return opened;
}

// A value as probes see it. Strings stay unexpanded (probes expand %VAR% themselves, against the
// environment they were given); a multi-string is joined with ';' like a Path.
std::optional<RegistryValue> decode_value(DWORD type, const std::vector<BYTE>& data) {
  const auto* chars = reinterpret_cast<const wchar_t*>(data.data());
  const size_t count = data.size() / sizeof(wchar_t);
  switch (type) {
    case REG_SZ:
    case REG_EXPAND_SZ:
      return win32::narrow(up_to_nul(chars, count));
    case REG_MULTI_SZ: {
      std::vector<std::string> parts;
      for (const auto& part : text::split(win32::narrow(std::wstring_view(chars, count)), '\0')) {
        if (!part.empty()) parts.push_back(part);
      }
      return text::join(parts, ";");
    }
    case REG_DWORD: {
      if (data.size() < sizeof(std::uint32_t)) return std::nullopt;
      std::uint32_t value = 0;
      std::memcpy(&value, data.data(), sizeof value);
      return std::int64_t{value};
    }
    case REG_QWORD: {
      if (data.size() < sizeof(std::uint64_t)) return std::nullopt;
      std::uint64_t value = 0;
      std::memcpy(&value, data.data(), sizeof value);
      return static_cast<std::int64_t>(value);
    }
    default:
      return std::nullopt;  // binary and other types say nothing a probe reads
  }
}

struct KeySizes {
  DWORD subkeys = 0, longest_subkey = 0, values = 0, longest_name = 0, largest_data = 0;
};
std::optional<KeySizes> key_sizes(HKEY key) {
  KeySizes s;
  if (RegQueryInfoKeyW(key, nullptr, nullptr, nullptr, &s.subkeys, &s.longest_subkey, nullptr,
                       &s.values, &s.longest_name, &s.largest_data, nullptr,
                       nullptr) != ERROR_SUCCESS) {
    return std::nullopt;
  }
  return s;
}

// All values of an open key. A value that grows while it is read is asked again with the new size.
RegistryValues read_values(HKEY key) {
  RegistryValues values;
  auto sizes = key_sizes(key);
  for (DWORD index = 0; sizes;) {
    std::wstring name(sizes->longest_name + 1, L'\0');
    std::vector<BYTE> data(sizes->largest_data);
    auto name_length = static_cast<DWORD>(name.size());
    auto data_size = static_cast<DWORD>(data.size());
    DWORD type = 0;
    const LSTATUS status = RegEnumValueW(key, index, name.data(), &name_length, nullptr, &type,
                                         data.data(), &data_size);
    if (status == ERROR_MORE_DATA) {
      sizes = key_sizes(key);
      continue;
    }
    if (status != ERROR_SUCCESS) break;  // ERROR_NO_MORE_ITEMS, or the key went away
    data.resize(data_size);
    if (auto value = decode_value(type, data)) {
      values.emplace(win32::narrow(std::wstring_view(name.data(), name_length)), std::move(*value));
    }
    ++index;
  }
  return values;
}

std::vector<std::string> read_subkeys(HKEY key) {
  std::vector<std::string> names;
  const auto sizes = key_sizes(key);
  if (!sizes) return names;
  std::wstring name(sizes->longest_subkey + 1, L'\0');
  for (DWORD index = 0;; ++index) {
    auto length = static_cast<DWORD>(name.size());
    if (RegEnumKeyExW(key, index, name.data(), &length, nullptr, nullptr, nullptr, nullptr) !=
        ERROR_SUCCESS) {
      break;
    }
    names.push_back(win32::narrow(std::wstring_view(name.data(), length)));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> string_value(const RegistryValues& values, const std::string& name) {
  const auto it = values.find(name);
  if (it == values.end() || !std::holds_alternative<std::string>(it->second)) return std::nullopt;
  return std::get<std::string>(it->second);
}

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

// Windows 11 still writes "Windows 10 ..." as its ProductName. Microsoft's Windows 11 release
// information (learn.microsoft.com/windows/release-health/windows11-release-information) lists
// 22000 as the first Windows 11 build, so from there on the name is corrected.
constexpr unsigned long kFirstWindows11Build = 22000;

std::string product_name(std::string name, std::optional<unsigned long> build) {
  constexpr std::string_view kWindows10 = "Windows 10";
  if (build && *build >= kFirstWindows11Build && name.starts_with(kWindows10)) {
    name.replace(0, kWindows10.size(), "Windows 11");
  }
  return name;
}

std::optional<unsigned long> parse_build(const std::optional<std::string>& build) {
  if (!build || build->empty() || !text::is_digits(*build) || build->size() > 9)
    return std::nullopt;
  return std::stoul(*build);
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
  }
  auto build = parse_build(string_value(values, "CurrentBuild"));
  if (!build && version) build = version->dwBuildNumber;
  if (auto name = string_value(values, "ProductName")) h.os_name = product_name(*name, build);
  h.os_release = string_value(values, "DisplayVersion");
  if (!h.os_release) h.os_release = string_value(values, "ReleaseId");
}

// ---- Display adapters ----------------------------------------------------------------------

// A device's registry property as UTF-8; for a multi-string (the hardware IDs) its first string.
std::optional<std::string> device_property(HDEVINFO set, SP_DEVINFO_DATA& device, DWORD property) {
  DWORD type = 0;
  DWORD size = 0;
  SetupDiGetDeviceRegistryPropertyW(set, &device, property, &type, nullptr, 0, &size);
  if (size == 0) return std::nullopt;
  std::vector<BYTE> data(size);
  if (!SetupDiGetDeviceRegistryPropertyW(set, &device, property, &type, data.data(), size, &size)) {
    return std::nullopt;
  }
  const auto* chars = reinterpret_cast<const wchar_t*>(data.data());
  std::string value = win32::narrow(up_to_nul(chars, size / sizeof(wchar_t)));
  if (value.empty()) return std::nullopt;
  return value;
}

DisplayAdapter describe_adapter(HDEVINFO set, SP_DEVINFO_DATA& device) {
  DisplayAdapter adapter;
  adapter.name = device_property(set, device, SPDRP_FRIENDLYNAME);
  if (!adapter.name) adapter.name = device_property(set, device, SPDRP_DEVICEDESC);
  adapter.pnp_id = device_property(set, device, SPDRP_HARDWAREID);
  // The driver's own key (Class\{guid}\NNNN) names its provider and version.
  const Key driver(SetupDiOpenDevRegKey(set, &device, DICS_FLAG_GLOBAL, 0, DIREG_DRV, KEY_READ));
  if (driver.valid()) {
    const RegistryValues values = read_values(driver.get());
    adapter.provider = string_value(values, "ProviderName");
    adapter.driver_version = string_value(values, "DriverVersion");
  }
  return adapter;
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
    return file_info_cache_.get(path, [&path] { return ask_file_info(path); });
  }

  static std::optional<FileInfo> ask_file_info(const std::string& path) {
    const std::wstring native = win32::native_path(path);
    WIN32_FILE_ATTRIBUTE_DATA data{};
    if (native.empty() || !GetFileAttributesExW(native.c_str(), GetFileExInfoStandard, &data)) {
      return std::nullopt;
    }
    FileInfo info;
    DWORD attributes = data.dwFileAttributes;
    std::uint64_t size = combine(data.nFileSizeHigh, data.nFileSizeLow);
    if (attributes & FILE_ATTRIBUTE_REPARSE_POINT) {
      const auto tag = reparse_tag(native);
      if (tag && is_link_tag(attributes, *tag)) {
        // A dangling link loads nothing and is treated as absent, as on POSIX.
        const auto target = resolve_link(native);
        if (!target) return std::nullopt;
        info.link_target = target->path;
        attributes = target->info.dwFileAttributes;
        size = combine(target->info.nFileSizeHigh, target->info.nFileSizeLow);
      }
    }
    info.kind = kind_of(attributes);
    if (info.kind == FileKind::regular) info.size = size;
    return info;
  }

  std::optional<std::vector<DirEntry>> list_dir(const std::string& path) const override {
    return listing_cache_.get(path, [this, &path] { return ask_list_dir(path); });
  }

  std::optional<std::vector<DirEntry>> ask_list_dir(const std::string& path) const {
    std::wstring directory = win32::native_path(path);
    if (directory.empty()) return std::nullopt;
    if (directory.back() != L'\\') directory += L'\\';
    WIN32_FIND_DATAW data{};
    // Basic info skips the 8.3 short names; large fetch asks the file system for bigger batches
    // (site-packages hold thousands of entries).
    const Find find(FindFirstFileExW((directory + L"*").c_str(), FindExInfoBasic, &data,
                                     FindExSearchNameMatch, nullptr, FIND_FIRST_EX_LARGE_FETCH));
    if (!find.valid()) return empty_if_directory(path, GetLastError());
    std::vector<DirEntry> entries;
    do {
      const std::wstring_view name(data.cFileName);
      if (name == L"." || name == L"..") continue;
      entries.push_back(dir_entry(directory + std::wstring(name), data));
    } while (FindNextFileW(find.get(), &data));
    std::sort(entries.begin(), entries.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    return entries;
  }

  Result<std::string> read_text(const std::string& path) const override {
    return whole_text(path, read_prefix(path, kMaxTextBytes + 1));
  }

  Result<std::string> read_head(const std::string& path, size_t max_bytes) const override {
    return read_prefix(path, std::min(max_bytes, kMaxTextBytes));
  }

  // ELF files on a Windows machine are rare (WSL distributions, copied Linux wheels), but the
  // reader is the same as on Linux.
  Result<ElfInfo> elf_info(const std::string& path) const override {
    auto file = open_regular(path);
    if (!file) return file.error();
    LARGE_INTEGER size{};
    if (!GetFileSizeEx(file->get(), &size)) return make_error(last_error(path));
    const HandleByteSource source(file->get(), static_cast<std::uint64_t>(size.QuadPart));
    auto info = read_elf_dynamic(source);
    if (!info) return make_error(fmt::format("{}: {}", path, info.error().message));
    return info;
  }

  // The fixed part of the version resource: the numbers Explorer shows, never the free-text
  // strings, which vendors fill inconsistently.
  Result<PeVersion> pe_version(const std::string& path) const override {
    const std::wstring native = win32::native_path(path);
    DWORD ignored = 0;
    const DWORD size = GetFileVersionInfoSizeW(native.c_str(), &ignored);
    if (size == 0) return no_version_resource(path);
    std::vector<BYTE> resource(size);
    if (!GetFileVersionInfoW(native.c_str(), 0, size, resource.data())) {
      return no_version_resource(path);
    }
    void* fixed = nullptr;
    UINT length = 0;
    if (!VerQueryValueW(resource.data(), L"\\", &fixed, &length) || !fixed ||
        length < sizeof(VS_FIXEDFILEINFO)) {
      return make_error(fmt::format("{}: no version resource", path));
    }
    const auto* info = static_cast<const VS_FIXEDFILEINFO*>(fixed);
    if (info->dwSignature != VS_FFI_SIGNATURE) {
      return make_error(fmt::format("{}: no version resource", path));
    }
    return PeVersion{four_part(info->dwFileVersionMS, info->dwFileVersionLS),
                     four_part(info->dwProductVersionMS, info->dwProductVersionLS)};
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
    return program_output(gpu::run_child(program, args, kProgramTimeout, kMaxProgramOutput));
  }

  // Native GPU answers come from a child process (gpu/native_query.hpp), asked once.
  std::optional<DriverAnswer> driver() const override { return native_.driver(); }
  std::optional<std::vector<GpuAnswer>> gpus() const override { return native_.gpus(); }
  std::optional<LoadAnswer> load(const std::string& library) const override {
    return native_.load(library);
  }

  // Every present display adapter, whatever its vendor: the basic display driver standing in for
  // a missing NVIDIA driver is an answer too. Empty when there are none; nullopt when SetupAPI
  // itself could not be asked.
  std::optional<std::vector<DisplayAdapter>> display_adapters() const override {
    const DeviceSet set(
        SetupDiGetClassDevsW(&GUID_DEVCLASS_DISPLAY, nullptr, nullptr, DIGCF_PRESENT));
    if (!set.valid()) return std::nullopt;
    std::vector<DisplayAdapter> adapters;
    SP_DEVINFO_DATA device{};
    device.cbSize = sizeof device;
    for (DWORD index = 0; SetupDiEnumDeviceInfo(set.get(), index, &device); ++index) {
      adapters.push_back(describe_adapter(set.get(), device));
    }
    return adapters;
  }

 private:
  NativeAnswerCache native_;
  FileInfoCache file_info_cache_;
  DirListingCache listing_cache_;

  // A directory with nothing in it (a drive's empty root has not even "." and ".."), or nullopt
  // when the path is missing or not a directory.
  std::optional<std::vector<DirEntry>> empty_if_directory(const std::string& path,
                                                          DWORD error) const {
    if (error != ERROR_FILE_NOT_FOUND || !is_directory(path)) return std::nullopt;
    return std::vector<DirEntry>{};
  }

  // One entry of a listing. The entry's own attributes spare an open per file; only links are
  // followed, and a dangling one reads as `other`, as on POSIX.
  static DirEntry dir_entry(const std::wstring& child, const WIN32_FIND_DATAW& data) {
    DirEntry entry{win32::narrow(data.cFileName), kind_of(data.dwFileAttributes)};
    // For a reparse point, FindFirstFile puts its tag in dwReserved0.
    if (is_link_tag(data.dwFileAttributes, data.dwReserved0)) {
      entry.is_link = true;
      const auto target = resolve_link(child);
      entry.kind = target ? kind_of(target->info.dwFileAttributes) : FileKind::other;
    }
    return entry;
  }

  static Error no_version_resource(const std::string& path) {
    const DWORD error = GetLastError();
    // The resource-not-found family: a PE file without a VERSIONINFO.
    if (error == ERROR_RESOURCE_DATA_NOT_FOUND || error == ERROR_RESOURCE_TYPE_NOT_FOUND ||
        error == ERROR_RESOURCE_NAME_NOT_FOUND || error == ERROR_RESOURCE_LANG_NOT_FOUND) {
      return make_error(fmt::format("{}: no version resource", path));
    }
    return make_error(fmt::format("{}: {}", path, win32::error_text(error)));
  }

  static std::string four_part(DWORD most, DWORD least) {
    return fmt::format("{}.{}.{}.{}", HIWORD(most), LOWORD(most), HIWORD(least), LOWORD(least));
  }
};

}  // namespace

std::unique_ptr<System> make_live_system(const LiveOptions& options) {
  return std::make_unique<LiveWindowsSystem>(options);
}

}  // namespace gpuvet::sys
