// The NVIDIA driver on Windows: nvcuda.dll and nvml.dll. DCH drivers put both (and
// nvidia-smi.exe) in System32, on every search path; older drivers put NVML and nvidia-smi in
// "C:\Program Files\NVIDIA Corporation\NVSMI", which is on no search path.
#include <windows.h>

#include "core/paths.hpp"
#include "core/win32_text.hpp"
#include "gpu/library_names.hpp"

namespace gpuvet::gpu {

namespace {

// An environment variable as UTF-8; empty when unset.
std::string environment(const wchar_t* name) {
  std::wstring value(256, L'\0');
  while (true) {
    const DWORD n = GetEnvironmentVariableW(name, value.data(), static_cast<DWORD>(value.size()));
    if (n == 0) return {};
    if (n < value.size()) {
      value.resize(n);
      return win32::narrow(value);
    }
    value.resize(n);  // too small: n is the size needed, with its terminating NUL
  }
}

// The NVSMI folder under the 64-bit Program Files. ProgramW6432 names it even in a 32-bit
// process, whose ProgramFiles is "Program Files (x86)".
std::vector<std::string> nvsmi_dirs() {
  std::vector<std::string> dirs;
  for (const wchar_t* variable : {L"ProgramW6432", L"ProgramFiles"}) {
    const std::string root = environment(variable);
    if (root.empty()) continue;
    std::string dir = paths::join(root, "NVIDIA Corporation/NVSMI");
    if (dirs.empty() || dirs.front() != dir) dirs.push_back(std::move(dir));
  }
  return dirs;
}

std::vector<std::string> in_nvsmi(const char* file) {
  std::vector<std::string> found;
  for (const auto& dir : nvsmi_dirs())
    found.push_back(paths::join(dir, file));
  return found;
}

}  // namespace

const char* nvml_library() {
  return "nvml.dll";
}

const char* cuda_driver_library() {
  return "nvcuda.dll";
}

std::vector<std::string> nvml_fallback_paths() {
  return in_nvsmi(nvml_library());
}

const char* nvidia_smi_program() {
  return "nvidia-smi.exe";
}

std::vector<std::string> nvidia_smi_fallback_paths() {
  return in_nvsmi(nvidia_smi_program());
}

char path_list_separator() {
  return ';';
}

std::string executable_search_path() {
  return environment(L"PATH");
}

}  // namespace gpuvet::gpu
