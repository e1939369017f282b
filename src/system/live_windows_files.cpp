// The live System on Windows: files. Information about a path (links followed as on POSIX),
// directory listings, reads of regular files only, and the ELF and PE version readers.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/win32_text.hpp"
#include "system/elf_reader.hpp"
#include "system/gpu_code_reader.hpp"
#include "system/live_common.hpp"
#include "system/live_windows_internal.hpp"

namespace gpuvet::sys::windows {

// "<path>: <why>" for the calling thread's last Win32 error, like strerror on POSIX.
std::string last_error(const std::string& path) {
  return fmt::format("{}: {}", path, win32::error_text(GetLastError()));
}

// A string the API wrote into a buffer that may or may not carry its terminating NUL(s).
std::wstring up_to_nul(const wchar_t* chars, size_t count) {
  const std::wstring_view view(chars, count);
  return std::wstring(view.substr(0, view.find(L'\0')));
}

namespace {

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
  if (is_device_path(path)) return not_a_regular_file(path);
  File file(CreateFileW(win32::native_path(path).c_str(), GENERIC_READ,
                        FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                        OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
  if (!file.valid()) return make_error(last_error(path));
  BY_HANDLE_FILE_INFORMATION info{};
  if (GetFileType(file.get()) != FILE_TYPE_DISK || !GetFileInformationByHandle(file.get(), &info) ||
      (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
    return not_a_regular_file(path);
  }
  return file;
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

// A directory with nothing in it (a drive's empty root has not even "." and ".."), or nullopt
// when the path is missing or not a directory.
std::optional<std::vector<DirEntry>> empty_if_directory(const System& system,
                                                        const std::string& path, DWORD error) {
  if (error != ERROR_FILE_NOT_FOUND || !system.is_directory(path)) return std::nullopt;
  return std::vector<DirEntry>{};
}

// One entry of a listing. The entry's own attributes spare an open per file; only links are
// followed, and a dangling one reads as `other`, as on POSIX.
DirEntry dir_entry(const std::wstring& child, const WIN32_FIND_DATAW& data) {
  DirEntry entry{win32::narrow(data.cFileName), kind_of(data.dwFileAttributes)};
  // For a reparse point, FindFirstFile puts its tag in dwReserved0.
  if (is_link_tag(data.dwFileAttributes, data.dwReserved0)) {
    entry.is_link = true;
    const auto target = resolve_link(child);
    entry.kind = target ? kind_of(target->info.dwFileAttributes) : FileKind::other;
  }
  return entry;
}

Error no_version_resource(const std::string& path) {
  const DWORD error = GetLastError();
  // The resource-not-found family: a PE file without a VERSIONINFO.
  if (error == ERROR_RESOURCE_DATA_NOT_FOUND || error == ERROR_RESOURCE_TYPE_NOT_FOUND ||
      error == ERROR_RESOURCE_NAME_NOT_FOUND || error == ERROR_RESOURCE_LANG_NOT_FOUND) {
    return make_error(fmt::format("{}: no version resource", path));
  }
  return make_error(fmt::format("{}: {}", path, win32::error_text(error)));
}

std::string four_part(DWORD most, DWORD least) {
  return fmt::format("{}.{}.{}.{}", HIWORD(most), LOWORD(most), HIWORD(least), LOWORD(least));
}

}  // namespace

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

// What the path is. A link (a name surrogate) reads as its target, with link_target set.
std::optional<FileInfo> ask_file_info(const std::string& path) {
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

// The entries of a directory without "." and "..", sorted by name.
std::optional<std::vector<DirEntry>> ask_list_dir(const System& system, const std::string& path) {
  std::wstring directory = win32::native_path(path);
  if (directory.empty()) return std::nullopt;
  if (directory.back() != L'\\') directory += L'\\';
  WIN32_FIND_DATAW data{};
  // Basic info skips the 8.3 short names; large fetch asks the file system for bigger batches
  // (site-packages hold thousands of entries).
  const Find find(FindFirstFileExW((directory + L"*").c_str(), FindExInfoBasic, &data,
                                   FindExSearchNameMatch, nullptr, FIND_FIRST_EX_LARGE_FETCH));
  if (!find.valid()) return empty_if_directory(system, path, GetLastError());
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

namespace {

// A reader of binary headers (ELF, fat binaries) over a regular file read at offsets; errors name
// the file.
template <typename Answer>
Result<Answer> read_binary(const std::string& path, Result<Answer> (*reader)(const ByteSource&)) {
  auto file = open_regular(path);
  if (!file) return file.error();
  LARGE_INTEGER size{};
  if (!GetFileSizeEx(file->get(), &size)) return make_error(last_error(path));
  const HandleByteSource source(file->get(), static_cast<std::uint64_t>(size.QuadPart));
  auto answer = reader(source);
  if (!answer) return unreadable_binary(answer.error(), path);
  return answer;
}

}  // namespace

// ELF files on a Windows machine are rare (WSL distributions, copied Linux wheels), but the
// reader is the same as on Linux.
Result<ElfInfo> read_elf_info(const std::string& path) {
  return read_binary(path, read_elf_dynamic);
}

Result<GpuCode> read_gpu_code_of(const std::string& path) {
  return read_binary(path, read_gpu_code);
}

// The fixed part of the version resource: the numbers Explorer shows, never the free-text
// strings, which vendors fill inconsistently.
Result<PeVersion> read_pe_version(const std::string& path) {
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

}  // namespace gpuvet::sys::windows
