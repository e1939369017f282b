#include <windows.h>

#include <fmt/format.h>

#include "core/win32_text.hpp"

namespace gpuvet::win32 {

std::wstring widen(std::string_view utf8) {
  if (utf8.empty()) return {};
  const int size = static_cast<int>(utf8.size());
  const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), size, nullptr, 0);
  std::wstring out(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), size, out.data(), n);
  return out;
}

std::string narrow(std::wstring_view utf16) {
  if (utf16.empty()) return {};
  const int size = static_cast<int>(utf16.size());
  const int n = WideCharToMultiByte(CP_UTF8, 0, utf16.data(), size, nullptr, 0, nullptr, nullptr);
  std::string out(static_cast<size_t>(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, utf16.data(), size, out.data(), n, nullptr, nullptr);
  return out;
}

std::wstring native_path(std::string_view utf8) {
  std::wstring path = widen(utf8);
  for (auto& c : path)
    if (c == L'/') c = L'\\';
  return path;
}

std::string portable_path(std::wstring_view native) {
  constexpr std::wstring_view kLongPrefix = L"\\\\?\\";
  if (native.substr(0, kLongPrefix.size()) == kLongPrefix) native.remove_prefix(kLongPrefix.size());
  std::string path = narrow(native);
  for (auto& c : path)
    if (c == '\\') c = '/';
  return path;
}

std::wstring module_file_name(void* module) {
  constexpr size_t kMaxPathUnits = 32768;  // the longest path Windows has
  std::wstring name(MAX_PATH, L'\0');
  // GetModuleFileNameW truncates silently: a result that fills the buffer asks for a larger one.
  while (name.size() <= kMaxPathUnits) {
    const DWORD n = GetModuleFileNameW(static_cast<HMODULE>(module), name.data(),
                                       static_cast<DWORD>(name.size()));
    if (n == 0) return {};
    if (n < name.size()) {
      name.resize(n);
      return name;
    }
    name.resize(name.size() * 2);
  }
  return {};
}

std::string error_text(unsigned long code) {
  wchar_t* buffer = nullptr;
  const DWORD n = FormatMessageW(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, code, 0, reinterpret_cast<wchar_t*>(&buffer), 0, nullptr);
  std::string text = n ? narrow(std::wstring_view(buffer, n)) : std::string();
  if (buffer) LocalFree(buffer);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  if (text.empty()) return fmt::format("Windows error {}", code);
  return fmt::format("{} ({})", text, code);
}

}  // namespace gpuvet::win32
