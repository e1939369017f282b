#include "core/legacy_text.hpp"

#include <windows.h>

#include <climits>

#include "core/win32_text.hpp"

namespace gpuvet::text {

std::optional<std::string> gbk_to_utf8(std::string_view bytes) {
  constexpr UINT kGbk = 936;
  if (bytes.empty()) return std::string();
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return std::nullopt;
  const int size = static_cast<int>(bytes.size());
  const int wide_size =
      MultiByteToWideChar(kGbk, MB_ERR_INVALID_CHARS, bytes.data(), size, nullptr, 0);
  if (wide_size <= 0) return std::nullopt;
  std::wstring wide(static_cast<size_t>(wide_size), L'\0');
  if (MultiByteToWideChar(kGbk, MB_ERR_INVALID_CHARS, bytes.data(), size, wide.data(), wide_size) !=
      wide_size) {
    return std::nullopt;
  }
  return win32::narrow(wide);
}

}  // namespace gpuvet::text
