// Windows twin of dynlib_posix.cpp: LoadLibraryExW, with every name and path crossing as UTF-16.
#include <windows.h>

#include <cstdint>
#include <string>

#include "core/win32_text.hpp"
#include "platform/dynlib.hpp"

namespace gpuvet::platform {

namespace {

// Switches off the loader's dialog boxes on this thread while it lives: a missing dependency
// must come back as an error code, never as a box that waits for a click. The loader's error
// code survives the switch back.
class QuietLoader {
 public:
  QuietLoader() { SetThreadErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &previous_); }
  QuietLoader(const QuietLoader&) = delete;
  QuietLoader& operator=(const QuietLoader&) = delete;
  ~QuietLoader() {
    const DWORD error = GetLastError();
    SetThreadErrorMode(previous_, nullptr);
    SetLastError(error);
  }

 private:
  DWORD previous_ = 0;
};

bool is_bare_name(const std::string& name) {
  return name.find_first_of("/\\") == std::string::npos;
}

// LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR accepts only absolute paths (ERROR_INVALID_PARAMETER else).
std::wstring absolute(const std::wstring& path) {
  std::wstring full(MAX_PATH, L'\0');
  while (true) {
    const DWORD n =
        GetFullPathNameW(path.c_str(), static_cast<DWORD>(full.size()), full.data(), nullptr);
    if (n == 0) return path;
    if (n < full.size()) {
      full.resize(n);
      return full;
    }
    full.resize(n);  // too small: n is the size needed, with its terminating NUL
  }
}

HMODULE load(const std::string& name) {
  const QuietLoader quiet;
  // A bare name: the standard search order, the one the frameworks' own loads get.
  if (is_bare_name(name)) return LoadLibraryExW(win32::widen(name).c_str(), nullptr, 0);
  // A path: its dependencies are searched in its own folder first, like the driver's and
  // cuDNN's sub-libraries next to it.
  const std::wstring path = absolute(win32::native_path(name));
  HMODULE module = LoadLibraryExW(
      path.c_str(), nullptr, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
  // Windows 7 without KB2533623 knows no LOAD_LIBRARY_SEARCH_* flags.
  if (!module && GetLastError() == ERROR_INVALID_PARAMETER) {
    module = LoadLibraryExW(path.c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH);
  }
  return module;
}

}  // namespace

Result<DynamicLibrary> DynamicLibrary::open(const std::string& name) {
  HMODULE module = load(name);
  if (!module) return make_error(name + ": " + win32::error_text(GetLastError()));
  return DynamicLibrary(module);
}

void* DynamicLibrary::symbol(const char* name) const {
  if (!handle_) return nullptr;
  const FARPROC proc = GetProcAddress(static_cast<HMODULE>(handle_), name);
  // Through an integer: GCC warns (-Wcast-function-type) on a direct function-to-object cast.
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(proc));
}

std::optional<std::string> DynamicLibrary::path() const {
  if (!handle_) return std::nullopt;
  const std::wstring name = win32::module_file_name(handle_);
  if (name.empty()) return std::nullopt;
  return win32::portable_path(name);
}

}  // namespace gpuvet::platform
