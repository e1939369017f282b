// Windows twin of terminal_posix.cpp: the console (UTF-8 output, ANSI colour sequences), the
// command line as UTF-16, and the executable's own path.
#include <windows.h>

#include <shellapi.h>

#include <fcntl.h>
#include <io.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/win32_text.hpp"
#include "platform/terminal.hpp"

namespace gpuvet::platform {

namespace {

// The console as gpuvet found it, put back at exit: the code page belongs to the user's console
// window, which outlives gpuvet.
struct ConsoleState {
  UINT output_code_page = 0;
  UINT input_code_page = 0;
  DWORD output_mode = 0;
  bool saved = false;
};
ConsoleState g_console;

void restore_console() {
  if (g_console.output_code_page) SetConsoleOutputCP(g_console.output_code_page);
  if (g_console.input_code_page) SetConsoleCP(g_console.input_code_page);
  SetConsoleMode(GetStdHandle(STD_OUTPUT_HANDLE), g_console.output_mode);
}

// Asks the console to interpret ANSI escape sequences; conhost before Windows 10 1511 refuses.
bool enable_virtual_terminal() {
  const HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  if (!GetConsoleMode(out, &mode)) return false;
  if (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) return true;
  return SetConsoleMode(out, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0;
}

}  // namespace

void write_stdout(std::string_view text) {
  const HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  if (out == INVALID_HANDLE_VALUE || !GetConsoleMode(out, &mode)) {
    std::fwrite(text.data(), 1, text.size(), stdout);  // a pipe or a file: the bytes as they are
    std::fflush(stdout);
    return;
  }
  std::fflush(stdout);
  const std::wstring wide = win32::widen(text);
  // WriteConsoleW may write less than asked: go on from where it stopped.
  for (size_t done = 0; done < wide.size();) {
    const DWORD chunk = static_cast<DWORD>(std::min<size_t>(wide.size() - done, 1 << 14));
    DWORD written = 0;
    if (!WriteConsoleW(out, wide.data() + done, chunk, &written, nullptr) || written == 0) return;
    done += written;
  }
}

bool stdout_is_terminal() {
  const HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  // FILE_TYPE_CHAR alone would also take NUL and serial ports for a terminal.
  return out && out != INVALID_HANDLE_VALUE && GetFileType(out) == FILE_TYPE_CHAR &&
         GetConsoleMode(out, &mode);
}

bool stdin_is_terminal() {
  const HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
  DWORD mode = 0;
  return in && in != INVALID_HANDLE_VALUE && GetFileType(in) == FILE_TYPE_CHAR &&
         GetConsoleMode(in, &mode);
}

bool terminal_supports_colour() {
  return stdout_is_terminal() && enable_virtual_terminal();
}

// gpuvet writes UTF-8 (✔, ✖, Chinese messages and user names); a console in an OEM code page
// would show it as mojibake.
void prepare_console() {
  // Bytes out as written: text mode would turn every "\n" into "\r\n", which a parent reading
  // a child's answer line by line (and JSON read on Linux) does not expect.
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
  const HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  if (!GetConsoleMode(out, &mode)) return;  // a pipe or a file takes the bytes as they are
  if (!g_console.saved) {
    g_console = {GetConsoleOutputCP(), GetConsoleCP(), mode, true};
    std::atexit(restore_console);
  }
  SetConsoleOutputCP(CP_UTF8);
  SetConsoleCP(CP_UTF8);
  enable_virtual_terminal();
}

std::vector<std::string> utf8_arguments(int argc, char** argv) {
  int count = 0;
  LPWSTR* wide = CommandLineToArgvW(GetCommandLineW(), &count);
  if (!wide) return std::vector<std::string>(argv, argv + argc);
  std::vector<std::string> arguments;
  for (int i = 0; i < count; ++i)
    arguments.push_back(win32::narrow(wide[i]));
  LocalFree(wide);
  return arguments;
}

std::optional<std::string> user_locale() {
  wchar_t name[LOCALE_NAME_MAX_LENGTH] = {};
  // The UI language the user reads Windows in (a Chinese Windows: zh-CN), not the formats.
  const LANGID language = GetUserDefaultUILanguage();
  if (LCIDToLocaleName(MAKELCID(language, SORT_DEFAULT), name, LOCALE_NAME_MAX_LENGTH, 0) > 0) {
    return win32::narrow(name);
  }
  return std::nullopt;
}

std::optional<std::string> current_executable() {
  const std::wstring path = win32::module_file_name(nullptr);
  if (path.empty()) return std::nullopt;
  return win32::portable_path(path);
}

}  // namespace gpuvet::platform
