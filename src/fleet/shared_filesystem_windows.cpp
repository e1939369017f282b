#include <windows.h>

#include "core/win32_text.hpp"
#include "fleet/shared_filesystem.hpp"

namespace gpuvet::fleet {

// A UNC path or a mapped network drive.
std::optional<std::string> network_filesystem(const std::string& path) {
  const std::wstring native = win32::native_path(path);
  if (native.rfind(L"\\\\", 0) == 0) return std::string("smb");
  if (native.size() < 2 || native[1] != L':') return std::nullopt;
  const std::wstring root = native.substr(0, 2) + L"\\";
  if (GetDriveTypeW(root.c_str()) == DRIVE_REMOTE) return std::string("smb");
  return std::nullopt;
}

}  // namespace gpuvet::fleet
