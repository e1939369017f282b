// Children die with gpuvet: a SIGKILLed gpuvet takes its hanging native-query child along, and a
// deadline kills whatever a child started. The process table (/proc) is the oracle.
#include "platform/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "system/native_query.hpp"
#include "test_support.hpp"

extern char** environ;

namespace gpuvet::platform {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

struct ProcStat {
  char state = '?';
  pid_t ppid = 0;
  pid_t pgrp = 0;
};

// /proc/PID/stat: "pid (comm) state ppid pgrp ...", comm may hold spaces and parentheses.
std::optional<ProcStat> proc_stat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  const auto fields = text::split(line.substr(close + 2), ' ');
  if (fields.size() < 3) return std::nullopt;
  return ProcStat{fields[0].empty() ? '?' : fields[0][0], std::stoi(fields[1]),
                  std::stoi(fields[2])};
}

// Alive: in the table and not a zombie (a dead child whose new parent has not reaped it).
bool alive(pid_t pid) {
  const auto stat = proc_stat(pid);
  return stat && stat->state != 'Z' && stat->state != 'X';
}

bool gone_within(pid_t pid, milliseconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (alive(pid)) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return true;
}

std::string cmdline(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text)
    if (c == '\0') c = ' ';
  return text;
}

// A live child of `parent` whose command line holds `marker`, waited for up to `limit`.
std::optional<pid_t> child_of(pid_t parent, const std::string& marker, milliseconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < give_up) {
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const pid_t pid = std::stoi(name);
      const auto stat = proc_stat(pid);
      if (stat && stat->ppid == parent && cmdline(pid).find(marker) != std::string::npos) {
        return pid;
      }
    }
    std::this_thread::sleep_for(milliseconds(20));
  }
  return std::nullopt;
}

// Every live process of a process group.
std::vector<pid_t> group_members(pid_t group) {
  std::vector<pid_t> members;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    const auto stat = proc_stat(pid);
    if (stat && stat->pgrp == group && alive(pid)) members.push_back(pid);
  }
  return members;
}

pid_t spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

// kill -9 gpuvet while its native-query child hangs inside the fake driver's cuInit: the child
// must not live on under init.
TEST(ChildProcess, AKilledGpuvetTakesItsHangingChildAlong) {
  const std::string drivers = std::string(GPUVET_FAKE_DRIVER_DIR) + "/hang";
  const pid_t gpuvet =
      spawn({"/usr/bin/env", "-i", "PATH=/nonexistent", "LD_LIBRARY_PATH=" + drivers,
             "GPUVET_NATIVE_TIMEOUT_MS=120000", GPUVET_BINARY, "check", "--json"});
  ASSERT_GT(gpuvet, 0);
  const auto child = child_of(gpuvet, sys::kNativeQueryVerb, milliseconds(30000));
  ASSERT_TRUE(child) << "gpuvet never started its native query";
  std::this_thread::sleep_for(milliseconds(200));  // well inside the hanging driver call
  ASSERT_TRUE(alive(*child));
  kill(gpuvet, SIGKILL);
  int status = 0;
  waitpid(gpuvet, &status, 0);
  EXPECT_TRUE(gone_within(*child, milliseconds(5000))) << "the native query outlived gpuvet";
  EXPECT_TRUE(group_members(*child).empty()) << "its process group outlived gpuvet";
}

// A shell script that starts a long sleep in the background and says its pid in `pid_file`.
std::string background_sleeper(const testing::TempDir& dir, const std::string& then) {
  const std::string script =
      dir.file("sleeper.sh", "#!/bin/sh\nsleep 1000 >/dev/null 2>&1 &\necho $! > " + dir.path() +
                                 "/pid\n" + then + "\n");
  fs::permissions(paths::to_fs(script), fs::perms::owner_all);
  return script;
}

pid_t pid_in(const testing::TempDir& dir) {
  std::ifstream in(paths::to_fs(dir.path() + "/pid"));
  pid_t pid = -1;
  in >> pid;
  return pid;
}

TEST(ChildProcess, ADeadlineKillsWhatTheChildStarted) {
  testing::TempDir dir;
  const std::string script = background_sleeper(dir, "exec sleep 1000");
  const ChildOutcome run = run_child(script, {}, milliseconds(500));
  EXPECT_EQ(run.kind, ChildOutcome::Kind::timed_out);
  const pid_t sleeper = pid_in(dir);
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(gone_within(sleeper, milliseconds(3000))) << "the grandchild outlived the deadline";
}

TEST(ChildProcess, WhatAFinishedChildLeftRunningGoesToo) {
  testing::TempDir dir;
  const std::string script = background_sleeper(dir, "echo done");
  const ChildOutcome run = run_child(script, {}, milliseconds(10000));
  EXPECT_EQ(run.kind, ChildOutcome::Kind::exited);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.output, "done\n");
  const pid_t sleeper = pid_in(dir);
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(gone_within(sleeper, milliseconds(3000)));
}

TEST(ChildProcess, WhatCannotStartSaysWhy) {
  testing::TempDir dir;
  const ChildOutcome missing = run_child(dir.path() + "/no-such-program", {}, milliseconds(2000));
  EXPECT_EQ(missing.kind, ChildOutcome::Kind::failed_to_start);
  EXPECT_NE(missing.detail.find("No such file"), std::string::npos) << missing.detail;
  const std::string not_executable = dir.file("plain.txt", "hello\n");
  const ChildOutcome denied = run_child(not_executable, {}, milliseconds(2000));
  EXPECT_EQ(denied.kind, ChildOutcome::Kind::failed_to_start);
  EXPECT_FALSE(denied.detail.empty());
}

TEST(ChildProcess, ExitCodesSignalsAndOutput) {
  const ChildOutcome ok = run_child("/bin/sh", {"-c", "echo hi; exit 3"}, milliseconds(5000));
  EXPECT_EQ(ok.kind, ChildOutcome::Kind::exited);
  EXPECT_EQ(ok.exit_code, 3);
  EXPECT_EQ(ok.output, "hi\n");
  const ChildOutcome crashed = run_child("/bin/sh", {"-c", "kill -SEGV $$"}, milliseconds(5000));
  EXPECT_EQ(crashed.kind, ChildOutcome::Kind::signalled);
  EXPECT_EQ(crashed.detail, "SIGSEGV");
}

// A child that answers requests: replies are cut at their end line, one per request.
TEST(ChildSession, RepliesEndAtTheirOwnLine) {
  std::string why_not;
  auto session = start_child_session(
      "/bin/sh", {"-c", "echo ready; echo @end; while read l; do echo \"got $l\"; echo @end; done"},
      why_not);
  ASSERT_TRUE(session) << why_not;
  const ChildOutcome first = session->read_reply("@end", milliseconds(5000));
  EXPECT_EQ(first.kind, ChildOutcome::Kind::exited);
  EXPECT_EQ(first.output, "ready\n@end\n");
  ASSERT_TRUE(session->send("one"));
  ASSERT_TRUE(session->send("two"));
  EXPECT_EQ(session->read_reply("@end", milliseconds(5000)).output, "got one\n@end\n");
  EXPECT_EQ(session->read_reply("@end", milliseconds(5000)).output, "got two\n@end\n");
  EXPECT_TRUE(session->alive());
}

TEST(ChildSession, AChildThatEndsOrHangsIsOver) {
  std::string why_not;
  auto ends = start_child_session("/bin/sh", {"-c", "echo partial; exit 4"}, why_not);
  ASSERT_TRUE(ends) << why_not;
  const ChildOutcome ended = ends->read_reply("@end", milliseconds(5000));
  EXPECT_EQ(ended.kind, ChildOutcome::Kind::exited);
  EXPECT_EQ(ended.exit_code, 4);
  EXPECT_EQ(ended.output, "partial\n");
  EXPECT_FALSE(ends->alive());
  EXPECT_FALSE(ends->send("more"));

  auto hangs = start_child_session("/bin/sh", {"-c", "exec sleep 1000"}, why_not);
  ASSERT_TRUE(hangs) << why_not;
  EXPECT_EQ(hangs->read_reply("@end", milliseconds(300)).kind, ChildOutcome::Kind::timed_out);
  EXPECT_FALSE(hangs->alive());

  EXPECT_FALSE(start_child_session("/nonexistent/program", {}, why_not));
  EXPECT_NE(why_not.find("No such file"), std::string::npos) << why_not;
}

// Ending the session (the parent is done) ends the child and what it started.
TEST(ChildSession, EndingTheSessionEndsTheChild) {
  testing::TempDir dir;
  const std::string script = background_sleeper(dir, "exec sleep 1000");
  std::string why_not;
  auto session = start_child_session(script, {}, why_not);
  ASSERT_TRUE(session) << why_not;
  std::optional<pid_t> sleeper;
  for (int i = 0; i < 250 && (!sleeper || *sleeper <= 0); ++i) {
    std::this_thread::sleep_for(milliseconds(20));
    sleeper = pid_in(dir);
  }
  ASSERT_TRUE(sleeper && *sleeper > 0);
  session.reset();
  EXPECT_TRUE(gone_within(*sleeper, milliseconds(3000)));
}

TEST(ChildReply, TakesWholeRepliesOnly) {
  std::string pending = "a\n@endless\nb\r\n@end\r\nrest";
  EXPECT_EQ(take_reply(pending, "@end"), "a\n@endless\nb\r\n@end\r\n");
  EXPECT_EQ(pending, "rest");
  EXPECT_EQ(take_reply(pending, "@end"), std::nullopt);
  pending += "\n@end";
  EXPECT_EQ(take_reply(pending, "@end"), std::nullopt) << "the end line is not complete";
  pending += "\n";
  EXPECT_EQ(take_reply(pending, "@end"), "rest\n@end\n");
}

}  // namespace
}  // namespace gpuvet::platform
