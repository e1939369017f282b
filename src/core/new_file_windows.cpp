#include <windows.h>

#include <algorithm>
#include <random>

#include "core/new_file.hpp"
#include "core/win32_text.hpp"

namespace gpuvet {

namespace {

std::string failure(const std::string& path, DWORD error) {
  if (error == ERROR_FILE_EXISTS || error == ERROR_ALREADY_EXISTS) return path + ": already exists";
  if (error == ERROR_ACCESS_DENIED) return path + ": access denied";
  return path + ": cannot write it (Windows error " + std::to_string(error) + ")";
}

// CREATE_NEW fails on any existing name; FILE_FLAG_OPEN_REPARSE_POINT keeps a symbolic link or
// junction at the name from being followed to a target that CREATE_NEW would then create.
Result<bool> create(const std::wstring& wide, const std::string& path, std::string_view bytes) {
  HANDLE file = CreateFileW(wide.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                            FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (file == INVALID_HANDLE_VALUE) return make_error(failure(path, GetLastError()));
  size_t done = 0;
  while (done < bytes.size()) {
    const DWORD piece = static_cast<DWORD>(std::min<size_t>(bytes.size() - done, 1u << 30));
    DWORD written = 0;
    if (!WriteFile(file, bytes.data() + done, piece, &written, nullptr) || written == 0) {
      const DWORD error = GetLastError();
      CloseHandle(file);
      DeleteFileW(wide.c_str());
      return make_error(failure(path, error));
    }
    done += written;
  }
  CloseHandle(file);
  return true;
}

}  // namespace

Result<bool> write_new_file(const std::string& utf8_path, std::string_view bytes, bool replace) {
  const std::wstring wide = win32::widen(utf8_path);
  if (!replace) return create(wide, utf8_path, bytes);
  std::random_device seed;
  const std::string temporary =
      utf8_path + ".gpuvet-" + std::to_string(GetCurrentProcessId()) + "-" + std::to_string(seed());
  const std::wstring wide_temporary = win32::widen(temporary);
  if (auto created = create(wide_temporary, temporary, bytes); !created) return created.error();
  // Renaming replaces the directory entry: a link at the name is replaced, not its target.
  if (!MoveFileExW(wide_temporary.c_str(), wide.c_str(), MOVEFILE_REPLACE_EXISTING)) {
    const DWORD error = GetLastError();
    DeleteFileW(wide_temporary.c_str());
    return make_error(failure(utf8_path, error));
  }
  return true;
}

}  // namespace gpuvet
