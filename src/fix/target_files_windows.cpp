#include <windows.h>

#include <random>
#include <vector>

#include "core/new_file.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/win32_text.hpp"
#include "fix/target_files.hpp"

namespace gpuvet::fix {

namespace {

Error failure(const std::string& what, DWORD code) {
  return Error{what + ": " + win32::error_text(code)};
}

std::wstring wide(const std::string& path) {
  return win32::native_path(path);
}

std::optional<std::pair<HKEY, std::wstring>> split_key(const std::string& key) {
  const size_t cut = key.find('/');
  const std::string root = text::to_lower(key.substr(0, cut));
  HKEY hive = nullptr;
  if (root == "hklm") hive = HKEY_LOCAL_MACHINE;
  if (root == "hkcu") hive = HKEY_CURRENT_USER;
  if (!hive || cut == std::string::npos) return std::nullopt;
  return std::pair{hive, win32::native_path(key.substr(cut + 1))};
}

}  // namespace

Result<TargetState> inspect_target(const std::string& path) {
  TargetState state;
  const DWORD attributes = GetFileAttributesW(wide(path).c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) {
    const DWORD error = GetLastError();
    if (error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND) return state;
    return failure(path, error);
  }
  state.exists = true;
  state.is_link = (attributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
  state.is_regular = !state.is_link && (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
  return state;
}

Result<std::string> read_target(const std::string& path, size_t max_bytes) {
  auto state = inspect_target(path);
  if (!state) return state.error();
  if (state->is_link) return Error{path + ": is a symbolic link or junction"};
  if (!state->is_regular) return Error{path + ": not a regular file"};
  HANDLE file = CreateFileW(wide(path).c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE,
                            nullptr, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (file == INVALID_HANDLE_VALUE) return failure(path, GetLastError());
  std::string bytes;
  std::vector<char> buffer(1 << 16);
  while (true) {
    DWORD got = 0;
    if (!ReadFile(file, buffer.data(), static_cast<DWORD>(buffer.size()), &got, nullptr)) {
      const DWORD error = GetLastError();
      CloseHandle(file);
      return failure(path, error);
    }
    if (got == 0) break;
    bytes.append(buffer.data(), got);
    if (bytes.size() > max_bytes) {
      CloseHandle(file);
      return Error{path + ": larger than " + std::to_string(max_bytes) + " bytes"};
    }
  }
  CloseHandle(file);
  return bytes;
}

// ReplaceFileW keeps the replaced file's ACL, attributes and creation time: the "mode" of a
// Windows file.
Result<bool> replace_target(const std::string& path, std::string_view bytes,
                            std::optional<std::uint32_t>) {
  auto state = inspect_target(path);
  if (!state) return state.error();
  if (state->is_link)
    return Error{path + ": is a symbolic link; gpuvet does not write through one"};
  if (state->exists && !state->is_regular) return Error{path + ": not a regular file"};
  std::random_device seed;
  const std::string temporary =
      path + ".gpuvet-" + std::to_string(GetCurrentProcessId()) + "-" + std::to_string(seed());
  if (auto written = write_new_file(temporary, bytes, false); !written) return written;
  const BOOL replaced = state->exists
                            ? ReplaceFileW(wide(path).c_str(), wide(temporary).c_str(), nullptr,
                                           REPLACEFILE_IGNORE_MERGE_ERRORS, nullptr, nullptr)
                            : MoveFileExW(wide(temporary).c_str(), wide(path).c_str(), 0);
  if (!replaced) {
    const DWORD error = GetLastError();
    DeleteFileW(wide(temporary).c_str());
    return failure(path, error);
  }
  return true;
}

Result<bool> replace_with_link(const std::string& path, const std::string&) {
  return Error{path + ": gpuvet makes no symbolic links on Windows"};
}

std::optional<std::string> link_of(const std::string&) {
  return std::nullopt;
}

Result<bool> move_target(const std::string& from, const std::string& to) {
  auto target = inspect_target(to);
  if (!target) return target.error();
  if (target->exists) return Error{to + ": already exists"};
  // Without MOVEFILE_REPLACE_EXISTING; MOVEFILE_COPY_ALLOWED copies across volumes and removes
  // the original only once the copy succeeded.
  if (!MoveFileExW(wide(from).c_str(), wide(to).c_str(),
                   MOVEFILE_COPY_ALLOWED | MOVEFILE_WRITE_THROUGH)) {
    return failure(from, GetLastError());
  }
  return true;
}

Result<bool> make_private_directories(const std::string& path) {
  std::string partial;
  for (const auto& part : text::split(paths::normalize(path), '/')) {
    if (part.empty()) continue;
    partial = partial.empty() ? part : partial + "/" + part;
    if (partial.size() == 2 && partial[1] == ':') continue;  // "C:"
    if (!CreateDirectoryW(wide(partial).c_str(), nullptr) &&
        GetLastError() != ERROR_ALREADY_EXISTS) {
      return failure(partial, GetLastError());
    }
  }
  return true;
}

Result<bool> make_parent_directories(const std::string& path) {
  return make_private_directories(paths::parent(path));  // ACLs inherit from the parent
}

bool may_write_beside(const std::string& path) {
  std::random_device seed;
  const std::string probe =
      paths::join(paths::parent(path), ".gpuvet-probe-" + std::to_string(seed()));
  HANDLE file = CreateFileW(wide(probe).c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                            FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, nullptr);
  if (file == INVALID_HANDLE_VALUE) return false;
  CloseHandle(file);
  return true;
}

bool running_as_admin() {
  HANDLE token = nullptr;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) return false;
  TOKEN_ELEVATION elevation{};
  DWORD size = 0;
  const bool elevated =
      GetTokenInformation(token, TokenElevation, &elevation, sizeof elevation, &size) &&
      elevation.TokenIsElevated != 0;
  CloseHandle(token);
  return elevated;
}

Result<std::optional<RegistryData>> read_registry_text(const std::string& key,
                                                       const std::string& name) {
  const auto split = split_key(key);
  if (!split) return Error{key + ": not a registry key gpuvet knows"};
  HKEY handle = nullptr;
  LONG status = RegOpenKeyExW(split->first, split->second.c_str(), 0,
                              KEY_QUERY_VALUE | KEY_WOW64_64KEY, &handle);
  if (status == ERROR_FILE_NOT_FOUND) return std::optional<RegistryData>();
  if (status != ERROR_SUCCESS) return failure(key, static_cast<DWORD>(status));
  DWORD type = 0;
  DWORD size = 0;
  const std::wstring value = win32::widen(name);
  status = RegQueryValueExW(handle, value.c_str(), nullptr, &type, nullptr, &size);
  std::vector<BYTE> data(size + sizeof(wchar_t));
  if (status == ERROR_SUCCESS) {
    status = RegQueryValueExW(handle, value.c_str(), nullptr, &type, data.data(), &size);
  }
  RegCloseKey(handle);
  if (status == ERROR_FILE_NOT_FOUND) return std::optional<RegistryData>();
  if (status != ERROR_SUCCESS) return failure(key + "/" + name, static_cast<DWORD>(status));
  if (type != REG_SZ && type != REG_EXPAND_SZ) {
    return Error{key + "/" + name + ": not a text value; gpuvet leaves it alone"};
  }
  std::wstring text(reinterpret_cast<const wchar_t*>(data.data()), size / sizeof(wchar_t));
  while (!text.empty() && text.back() == L'\0')
    text.pop_back();
  return std::optional<RegistryData>(
      RegistryData{type == REG_EXPAND_SZ ? "REG_EXPAND_SZ" : "REG_SZ", win32::narrow(text)});
}

Result<bool> write_registry_text(const std::string& key, const std::string& name,
                                 const std::optional<RegistryData>& value) {
  const auto split = split_key(key);
  if (!split) return Error{key + ": not a registry key gpuvet knows"};
  HKEY handle = nullptr;
  LONG status = RegCreateKeyExW(split->first, split->second.c_str(), 0, nullptr, 0,
                                KEY_SET_VALUE | KEY_WOW64_64KEY, nullptr, &handle, nullptr);
  if (status != ERROR_SUCCESS) return failure(key, static_cast<DWORD>(status));
  const std::wstring wide_name = win32::widen(name);
  if (!value) {
    status = RegDeleteValueW(handle, wide_name.c_str());
    if (status == ERROR_FILE_NOT_FOUND) status = ERROR_SUCCESS;
  } else {
    const std::wstring data = win32::widen(value->data);
    const DWORD type = value->type == "REG_EXPAND_SZ" ? REG_EXPAND_SZ : REG_SZ;
    status = RegSetValueExW(handle, wide_name.c_str(), 0, type,
                            reinterpret_cast<const BYTE*>(data.c_str()),
                            static_cast<DWORD>((data.size() + 1) * sizeof(wchar_t)));
  }
  RegCloseKey(handle);
  if (status != ERROR_SUCCESS) return failure(key + "/" + name, static_cast<DWORD>(status));
  return true;
}

// Explorer reads the saved environment again on WM_SETTINGCHANGE "Environment"; a hung window
// must not hold gpuvet, hence the timeout.
void announce_environment_change() {
  DWORD_PTR result = 0;
  SendMessageTimeoutW(HWND_BROADCAST, WM_SETTINGCHANGE, 0, reinterpret_cast<LPARAM>(L"Environment"),
                      SMTO_ABORTIFHUNG, 5000, &result);
}

}  // namespace gpuvet::fix
