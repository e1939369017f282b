#pragma once
// Windows only (win32_text_windows.cpp): the edges where gpuvet's UTF-8, '/'-separated strings meet
// the UTF-16 of the Win32 API. Never build a Windows path from std::string bytes: that would read
// them in the ANSI code page and break every non-ASCII user name.
#include <string>
#include <string_view>

namespace gpuvet::win32 {

// UTF-8 -> UTF-16; invalid bytes become U+FFFD.
std::wstring widen(std::string_view utf8);
// UTF-16 -> UTF-8; a lone surrogate becomes U+FFFD.
std::string narrow(std::wstring_view utf16);
// "C:/Users/张伟/x" -> L"C:\\Users\\张伟\\x".
std::wstring native_path(std::string_view utf8);
// L"C:\\Users\\x" -> "C:/Users/x"; the "\\\\?\\" prefix of long paths is dropped.
std::string portable_path(std::wstring_view native);
// The file a loaded module (nullptr: this program's .exe) came from, whatever its length; empty
// when Windows does not say.
std::wstring module_file_name(void* module);
// FormatMessageW's text for a Win32 error code, trimmed, with the code: "Access is denied. (5)".
std::string error_text(unsigned long code);

}  // namespace gpuvet::win32
