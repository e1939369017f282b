// run_child on Windows against real processes: cmd.exe, and misbehave.exe, which crashes, hangs,
// exits or echoes its arguments on request. The contract is child_process_posix.cpp's.
#include <windows.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "core/win32_text.hpp"
#include "platform/child_process.hpp"

namespace gpuvet::platform {
namespace {

using namespace std::chrono_literals;
using Kind = ChildOutcome::Kind;

std::string cmd_exe() {
  wchar_t buffer[MAX_PATH];
  const UINT n = GetSystemDirectoryW(buffer, MAX_PATH);
  return win32::portable_path(std::wstring_view(buffer, n)) + "/cmd.exe";
}

ChildOutcome misbehave(const std::vector<std::string>& arguments,
                       std::chrono::milliseconds timeout = 30s, size_t max_output = 1 << 20) {
  return run_child(GPUVET_MISBEHAVE_EXE, arguments, timeout, max_output);
}

// The helper's lines, without the "\r" that msvcrt's text mode adds.
std::vector<std::string> lines(const std::string& output) {
  std::vector<std::string> out = text::split(output, '\n');
  if (!out.empty() && out.back().empty()) out.pop_back();
  for (auto& line : out)
    if (!line.empty() && line.back() == '\r') line.pop_back();
  return out;
}

// Whether the process with this id is gone (or goes within a moment).
bool process_gone(DWORD pid) {
  const HANDLE process = OpenProcess(SYNCHRONIZE, FALSE, pid);
  if (!process) return true;
  const bool gone = WaitForSingleObject(process, 5000) == WAIT_OBJECT_0;
  CloseHandle(process);
  return gone;
}

TEST(WindowsChildProcess, CapturesStandardOutput) {
  const ChildOutcome run = run_child(cmd_exe(), {"/c", "echo", "hello"}, 30s);
  ASSERT_EQ(run.kind, Kind::exited) << run.detail;
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(lines(run.output), std::vector<std::string>{"hello"});
}

TEST(WindowsChildProcess, StandardErrorIsNotCaptured) {
  const ChildOutcome run = run_child(cmd_exe(), {"/c", "echo", "oops", "1>&2"}, 30s);
  ASSERT_EQ(run.kind, Kind::exited) << run.detail;
  EXPECT_EQ(run.output, "");
}

TEST(WindowsChildProcess, ReportsTheExitCode) {
  const ChildOutcome seven = run_child(cmd_exe(), {"/c", "exit", "7"}, 30s);
  ASSERT_EQ(seven.kind, Kind::exited) << seven.detail;
  EXPECT_EQ(seven.exit_code, 7);
  const ChildOutcome answer = misbehave({"exit", "42"});
  ASSERT_EQ(answer.kind, Kind::exited) << answer.detail;
  EXPECT_EQ(answer.exit_code, 42);
}

// exit(-1) is 0xFFFFFFFF: an exit code a program chose, not an exception.
TEST(WindowsChildProcess, ANegativeExitCodeIsAnExitCode) {
  const ChildOutcome run = misbehave({"exit", "-1"});
  ASSERT_EQ(run.kind, Kind::exited) << run.detail;
  EXPECT_EQ(run.exit_code, -1);
}

// msvcrt's abort() exits with 3; it raises no exception.
TEST(WindowsChildProcess, AbortIsExitCodeThree) {
  const ChildOutcome run = misbehave({"abort"});
  ASSERT_EQ(run.kind, Kind::exited) << run.detail;
  EXPECT_EQ(run.exit_code, 3);
}

TEST(WindowsChildProcess, AMissingExecutableFailsToStart) {
  const ChildOutcome run = run_child("C:/no/such/dir/nothing.exe", {}, 30s);
  EXPECT_EQ(run.kind, Kind::failed_to_start);
  // ERROR_PATH_NOT_FOUND or ERROR_FILE_NOT_FOUND, with the system's words.
  EXPECT_TRUE(run.detail.ends_with("(3)") || run.detail.ends_with("(2)")) << run.detail;
}

TEST(WindowsChildProcess, ACrashIsSignalledWithTheExceptionsName) {
  const ChildOutcome run = misbehave({"crash"});
  ASSERT_EQ(run.kind, Kind::signalled) << run.detail << " exit " << run.exit_code;
  EXPECT_EQ(static_cast<DWORD>(run.signal), 0xC0000005u);
  EXPECT_EQ(run.detail, "access violation (0xC0000005)");
}

TEST(WindowsChildProcess, AHangIsStoppedAtTheDeadline) {
  const auto started = std::chrono::steady_clock::now();
  const ChildOutcome run = misbehave({"hang"}, 1500ms);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(run.kind, Kind::timed_out);
  EXPECT_EQ(lines(run.output), std::vector<std::string>{"hanging"});  // what came before
  EXPECT_GE(took, 1400ms);
  EXPECT_LT(took, 6s);
}

// The job object: a timed-out child's own children die with it, and do not hold the pipe open.
TEST(WindowsChildProcess, ATimedOutChildsChildrenDieToo) {
  const ChildOutcome run = misbehave({"hang-with-child"}, 3000ms);
  EXPECT_EQ(run.kind, Kind::timed_out);
  ASSERT_TRUE(run.output.starts_with("child ")) << run.output;
  const auto pid = static_cast<DWORD>(std::stoul(run.output.substr(6)));
  EXPECT_TRUE(process_gone(pid)) << "grandchild " << pid << " still runs";
}

// Quoting by the CommandLineToArgvW rules: the child's argv is what was passed.
TEST(WindowsChildProcess, ArgumentsArriveExactly) {
  const std::vector<std::string> arguments = {
      "plain",
      "with space",
      "",
      "quote\"inside",
      "\"",
      "trailing\\",
      "trailing space and backslash \\",
      "two\\\\",
      "backslash before quote\\\"",
      "\\\\server\\share\\",
      "C:\\Program Files\\NVIDIA Corporation\\NVSMI",
      "tab\there",
      "张伟",
      "ünïcødé 😀",
      "--query-gpu=index,name",
  };
  std::vector<std::string> command = {"echo-args"};
  command.insert(command.end(), arguments.begin(), arguments.end());
  const ChildOutcome run = misbehave(command);
  ASSERT_EQ(run.kind, Kind::exited) << run.detail;
  EXPECT_EQ(lines(run.output), arguments);
}

TEST(WindowsChildProcess, OutputIsCutAtMaxOutput) {
  const ChildOutcome run = misbehave({"echo-args", std::string(20000, 'x')}, 30s, 10);
  ASSERT_EQ(run.kind, Kind::exited) << run.detail;
  EXPECT_EQ(run.output, std::string(10, 'x'));
}

}  // namespace
}  // namespace gpuvet::platform
