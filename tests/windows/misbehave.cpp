// A child for the child-process tests: misbehaves the way a broken driver or tool can.
//   crash | hang | exit N | echo-args ARG... (each argument on its own line, UTF-8) | abort
//   | hang-with-child (starts "hang" as its own child, prints "child PID", hangs)
#include <windows.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void print_utf8(const wchar_t* text) {
  const int n = WideCharToMultiByte(CP_UTF8, 0, text, -1, nullptr, 0, nullptr, nullptr);
  std::string bytes(static_cast<size_t>(n > 0 ? n - 1 : 0), '\0');
  WideCharToMultiByte(CP_UTF8, 0, text, -1, bytes.data(), n, nullptr, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  std::fputc('\n', stdout);
}

}  // namespace

int wmain(int argc, wchar_t** argv) {
  if (argc < 2) return 2;
  const std::wstring what = argv[1];
  if (what == L"crash") {
    volatile int* nowhere = nullptr;
    return *nowhere;
  }
  if (what == L"hang") {
    std::puts("hanging");
    std::fflush(stdout);
    Sleep(INFINITE);
  }
  if (what == L"exit" && argc > 2) return _wtoi(argv[2]);
  if (what == L"abort") std::abort();  // msvcrt: exit code 3, not an exception
  if (what == L"hang-with-child") {
    wchar_t self[MAX_PATH * 4];
    const DWORD n = GetModuleFileNameW(nullptr, self, MAX_PATH * 4);
    std::wstring line = L"\"" + std::wstring(self, n) + L"\" hang";
    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    PROCESS_INFORMATION child{};
    if (!CreateProcessW(nullptr, line.data(), nullptr, nullptr, TRUE, 0, nullptr, nullptr, &startup,
                        &child)) {
      return 4;
    }
    std::printf("child %lu\n", child.dwProcessId);
    std::fflush(stdout);
    Sleep(INFINITE);
  }
  if (what == L"echo-args") {
    for (int i = 2; i < argc; ++i)
      print_utf8(argv[i]);
    return 0;
  }
  return 2;
}
