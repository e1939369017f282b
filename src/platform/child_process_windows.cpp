// Windows twin of child_process_posix.cpp. The child gets standard output on a pipe (standard
// input and error on NUL) and runs in a job object, so that at the deadline it dies together
// with everything it started.
#include <windows.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "core/win32_text.hpp"
#include "platform/child_process.hpp"

namespace gpuvet::platform {

namespace {

using Clock = std::chrono::steady_clock;

// How long the parent sleeps while the pipe is empty.
constexpr DWORD kPollMs = 5;
// How long a terminated child may take to go: one stuck inside a kernel driver may not go at all,
// and the parent must still come back.
constexpr DWORD kKillWaitMs = 2000;

// A kernel handle, closed when it goes out of scope.
class Handle {
 public:
  Handle() = default;
  explicit Handle(HANDLE handle) : handle_(handle == INVALID_HANDLE_VALUE ? nullptr : handle) {}
  Handle(Handle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (handle_) CloseHandle(handle_);
  }
  HANDLE get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

 private:
  HANDLE handle_ = nullptr;
};

DWORD remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? static_cast<DWORD>(std::min<long long>(left.count(), INFINITE - 1)) : 0;
}

// Appends one argument so that CommandLineToArgvW (and the C runtimes' argv) give it back as it
// was: backslashes are literal except before a quote, where each one must be doubled.
void append_quoted(std::wstring& line, const std::wstring& argument) {
  if (!argument.empty() && argument.find_first_of(L" \t\n\v\"") == std::wstring::npos) {
    line += argument;
    return;
  }
  line += L'"';
  size_t backslashes = 0;
  for (const wchar_t c : argument) {
    if (c == L'\\') {
      ++backslashes;
      continue;
    }
    line.append(c == L'"' ? backslashes * 2 + 1 : backslashes, L'\\');
    line += c;
    backslashes = 0;
  }
  line.append(backslashes * 2, L'\\');  // they precede the closing quote
  line += L'"';
}

// argv[0] is read up to its closing quote with no escapes, and a path holds no quote.
std::wstring command_line(const std::wstring& program, const std::vector<std::string>& arguments) {
  std::wstring line = L"\"" + program + L"\"";
  for (const auto& argument : arguments) {
    line += L' ';
    append_quoted(line, win32::widen(argument));
  }
  return line;
}

Handle open_null(DWORD access) {
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  return Handle(CreateFileW(L"NUL", access, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
                            OPEN_EXISTING, 0, nullptr));
}

// The job that holds the child. Closing or terminating it ends the child and its descendants;
// an unhandled exception ends a process at once instead of waiting on an error report dialog.
Handle make_job() {
  Handle job(CreateJobObjectW(nullptr, nullptr));
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags =
      JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
  if (job && !SetInformationJobObject(job.get(), JobObjectExtendedLimitInformation, &limits,
                                      sizeof limits)) {
    return Handle();
  }
  return job;
}

// Names exactly the handles the child inherits. Without it, a child started at the same time by
// another thread could inherit this pipe's write end and hold off its end of file.
class InheritList {
 public:
  explicit InheritList(std::vector<HANDLE> handles) : handles_(std::move(handles)) {
    SIZE_T size = 0;
    InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
    buffer_.resize(size);
    auto* list = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(buffer_.data());
    if (size == 0 || !InitializeProcThreadAttributeList(list, 1, 0, &size)) return;
    initialised_ = true;
    if (UpdateProcThreadAttribute(list, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, handles_.data(),
                                  handles_.size() * sizeof(HANDLE), nullptr, nullptr)) {
      list_ = list;
    }
  }
  InheritList(const InheritList&) = delete;
  InheritList& operator=(const InheritList&) = delete;
  ~InheritList() {
    if (initialised_) {
      DeleteProcThreadAttributeList(reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(buffer_.data()));
    }
  }
  // nullptr when the system could not build the list: then every inheritable handle goes.
  LPPROC_THREAD_ATTRIBUTE_LIST get() const { return list_; }

 private:
  std::vector<HANDLE> handles_;
  std::vector<char> buffer_;
  bool initialised_ = false;
  LPPROC_THREAD_ATTRIBUTE_LIST list_ = nullptr;
};

// Starts the child suspended and resumes it only once it is in the job, so that nothing it starts
// can escape the job. Without a job (an old Windows inside another job) it still runs, and a
// timeout ends only the child itself.
// `input` null: the child reads NUL.
Result<Handle> launch(const std::string& executable, const std::vector<std::string>& arguments,
                      HANDLE output, HANDLE job, HANDLE input = nullptr, bool merge_error = false) {
  const Handle null_input = input ? Handle() : open_null(GENERIC_READ);
  const Handle error = open_null(GENERIC_WRITE);
  if (!input && !null_input) return make_error(win32::error_text(GetLastError()));
  if (!error) return make_error(win32::error_text(GetLastError()));
  if (!input) input = null_input.get();
  const InheritList inherit({input, output, error.get()});

  STARTUPINFOEXW startup{};
  startup.StartupInfo.cb = sizeof startup;
  startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  startup.StartupInfo.hStdInput = input;
  startup.StartupInfo.hStdOutput = output;
  startup.StartupInfo.hStdError = merge_error ? output : error.get();
  startup.lpAttributeList = inherit.get();
  DWORD flags = CREATE_NO_WINDOW | CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED;
  if (inherit.get()) flags |= EXTENDED_STARTUPINFO_PRESENT;

  const std::wstring program = win32::native_path(executable);
  std::wstring line = command_line(program, arguments);  // CreateProcessW may write into it
  PROCESS_INFORMATION process{};
  if (!CreateProcessW(program.c_str(), line.data(), nullptr, nullptr, TRUE, flags, nullptr, nullptr,
                      &startup.StartupInfo, &process)) {
    return make_error(win32::error_text(GetLastError()));
  }
  const Handle thread(process.hThread);
  if (job) AssignProcessToJobObject(job, process.hProcess);
  ResumeThread(thread.get());
  return Handle(process.hProcess);
}

// Reads until end of file or the deadline; returns false at the deadline. Reading only what
// PeekNamedPipe says is there never blocks, so a child that hangs cannot hold the parent.
bool drain(HANDLE pipe, std::string& output, size_t max_output, Clock::time_point deadline) {
  char buffer[16384];
  while (Clock::now() < deadline) {
    DWORD available = 0;
    // Fails (ERROR_BROKEN_PIPE) once the pipe is empty and every writer has closed it.
    if (!PeekNamedPipe(pipe, nullptr, 0, nullptr, &available, nullptr)) return true;
    if (available == 0) {
      Sleep(std::min(remaining_ms(deadline), kPollMs));
      continue;
    }
    DWORD n = 0;
    const DWORD want = std::min<DWORD>(available, sizeof buffer);
    if (!ReadFile(pipe, buffer, want, &n, nullptr)) return true;
    const size_t room = max_output > output.size() ? max_output - output.size() : 0;
    output.append(buffer, std::min(room, static_cast<size_t>(n)));
  }
  return false;
}

// An exit code with the top two bits set is an exception's status (NTSTATUS severity "error",
// 0xC..., or a customer code such as C++'s 0xE06D7363): the process died of it. Small negative
// numbers (0xF...: exit(-1) is 0xFFFFFFFF) are what programs return on purpose: exit codes.
bool is_exception_code(DWORD code) {
  return code >= 0xC0000000u && code < 0xF0000000u;
}

std::string exception_name(DWORD code) {
  const char* name = nullptr;
  switch (code) {
    case 0xC0000005u:
      name = "access violation";
      break;
    case 0xC0000409u:
      name = "stack buffer overrun / fail-fast";
      break;
    case 0xC00000FDu:
      name = "stack overflow";
      break;
    case 0xC000001Du:
      name = "illegal instruction";
      break;
    case 0xC0000094u:
      name = "integer divide by zero";
      break;
    case 0xC0000374u:
      name = "heap corruption";
      break;
    case 0xC0000135u:
      name = "DLL not found";
      break;
    case 0xC0000139u:
      name = "entry point not found";
      break;
    case 0xC0000142u:
      name = "DLL initialization failed";
      break;
    case 0xE06D7363u:
      name = "unhandled C++ exception";
      break;
  }
  return name ? fmt::format("{} (0x{:08X})", name, code) : fmt::format("exception 0x{:08X}", code);
}

// Ends the child and everything in its job, and waits a little for it to go.
void stop(HANDLE process, HANDLE job) {
  if (job) TerminateJobObject(job, 1);
  TerminateProcess(process, 1);  // also when the child never made it into the job
  WaitForSingleObject(process, kKillWaitMs);
}

// Waits for the child until the deadline; ends it when the deadline passes.
ChildOutcome reap(HANDLE process, HANDLE job, Clock::time_point deadline, bool output_done) {
  ChildOutcome outcome;
  const DWORD waited =
      output_done ? WaitForSingleObject(process, remaining_ms(deadline)) : WAIT_TIMEOUT;
  DWORD code = 0;
  if (waited == WAIT_FAILED || (waited == WAIT_OBJECT_0 && !GetExitCodeProcess(process, &code))) {
    outcome.kind = ChildOutcome::Kind::failed_to_start;
    outcome.detail = win32::error_text(GetLastError());
    return outcome;
  }
  if (waited != WAIT_OBJECT_0) {
    stop(process, job);
    outcome.kind = ChildOutcome::Kind::timed_out;
    return outcome;
  }
  if (is_exception_code(code)) {
    outcome.kind = ChildOutcome::Kind::signalled;
    outcome.signal = static_cast<int>(code);
    outcome.detail = exception_name(code);
  } else {
    outcome.kind = ChildOutcome::Kind::exited;
    outcome.exit_code = static_cast<int>(code);
  }
  return outcome;
}

// Children inherit the error mode: a missing DLL or a crash must come back as an exit code,
// never as a dialog box that waits for a click until the deadline.
void quiet_error_mode() {
  SetErrorMode(GetErrorMode() | SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX |
               SEM_NOOPENFILEERRORBOX);
}

// A pipe whose `inherited` end (0 read, 1 write) alone the child may inherit.
bool make_pipe(Handle& read_end, Handle& write_end, int inherited) {
  HANDLE r = nullptr;
  HANDLE w = nullptr;
  if (!CreatePipe(&r, &w, nullptr, 0)) return false;
  read_end = Handle(r);
  write_end = Handle(w);
  SetHandleInformation(inherited == 0 ? r : w, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
  return true;
}

class WindowsChildSession final : public ChildSession {
 public:
  WindowsChildSession(Handle process, Handle job, Handle output, Handle input)
      : process_(std::move(process)),
        job_(std::move(job)),
        output_(std::move(output)),
        input_(std::move(input)) {}
  ~WindowsChildSession() override { end(); }

  bool send(std::string_view line) override {
    if (!alive() || !input_) return false;
    std::string text(line);
    text += '\n';
    DWORD written = 0;
    return WriteFile(input_.get(), text.data(), static_cast<DWORD>(text.size()), &written,
                     nullptr) &&
           written == text.size();
  }

  bool alive() const override { return static_cast<bool>(process_); }

 protected:
  Read read_some(Clock::time_point deadline, std::string& into) override {
    char buffer[16384];
    while (true) {
      DWORD available = 0;
      // Fails (ERROR_BROKEN_PIPE) once the pipe is empty and the child has closed it.
      if (!PeekNamedPipe(output_.get(), nullptr, 0, nullptr, &available, nullptr)) {
        return Read::end_of_file;
      }
      if (available == 0) {
        if (Clock::now() >= deadline) return Read::deadline;
        Sleep(std::min(remaining_ms(deadline), kPollMs));
        continue;
      }
      DWORD n = 0;
      if (!ReadFile(output_.get(), buffer, std::min<DWORD>(available, sizeof buffer), &n,
                    nullptr)) {
        return Read::end_of_file;
      }
      into.append(buffer, n);
      return Read::data;
    }
  }

  ChildOutcome finish(Clock::time_point deadline, bool output_done) override {
    input_ = Handle();
    ChildOutcome outcome = reap(process_.get(), job_.get(), deadline, output_done);
    process_ = Handle();
    output_ = Handle();
    return outcome;
  }

 private:
  // Closing its input tells the child to go; it gets a moment, then its job is ended.
  void end() {
    if (!alive()) return;
    input_ = Handle();
    if (WaitForSingleObject(process_.get(), 200) != WAIT_OBJECT_0) stop(process_.get(), job_.get());
    process_ = Handle();
  }

  Handle process_;
  Handle job_;
  Handle output_;
  Handle input_;
};

}  // namespace

std::unique_ptr<ChildSession> start_child_session(const std::string& executable,
                                                  const std::vector<std::string>& arguments,
                                                  std::string& why_not) {
  quiet_error_mode();
  Handle out_read, out_write, in_read, in_write;
  if (!make_pipe(out_read, out_write, 1) || !make_pipe(in_read, in_write, 0)) {
    why_not = win32::error_text(GetLastError());
    return nullptr;
  }
  Handle job = make_job();
  auto process = launch(executable, arguments, out_write.get(), job.get(), in_read.get());
  out_write = Handle();  // only the child holds these ends now
  in_read = Handle();
  if (!process) {
    why_not = process.error().message;
    return nullptr;
  }
  return std::make_unique<WindowsChildSession>(std::move(*process), std::move(job),
                                               std::move(out_read), std::move(in_write));
}

ChildOutcome run_child(const std::string& executable, const std::vector<std::string>& arguments,
                       std::chrono::milliseconds timeout, size_t max_output,
                       ChildStderr error_output) {
  quiet_error_mode();
  ChildOutcome failed;
  Handle reader, writer;
  if (!make_pipe(reader, writer, 1)) {
    failed.detail = win32::error_text(GetLastError());
    return failed;
  }
  const Handle job = make_job();
  auto process = launch(executable, arguments, writer.get(), job.get(), nullptr,
                        error_output == ChildStderr::merge);
  writer = Handle();  // from here only the child holds the write end: its exit is end of file
  if (!process) {
    failed.detail = process.error().message;
    return failed;
  }
  const auto deadline = Clock::now() + timeout;
  std::string output;
  const bool output_done = drain(reader.get(), output, max_output, deadline);
  ChildOutcome outcome = reap(process->get(), job.get(), deadline, output_done);
  outcome.output = std::move(output);
  return outcome;
}

}  // namespace gpuvet::platform
