#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "gpu/child_process.hpp"

extern char** environ;

namespace gpuvet::gpu {

namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

// Reads until end of file or the deadline; returns false at the deadline.
bool drain(int fd, std::string& output, size_t max_output, Clock::time_point deadline) {
  char buffer[16384];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return ready == 0 ? false : true;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    const size_t room = max_output > output.size() ? max_output - output.size() : 0;
    output.append(buffer, std::min(room, static_cast<size_t>(n)));
  }
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGILL:
      return "SIGILL";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "signal " + std::to_string(signal);
  }
}

// Waits for the child until the deadline; kills it when the deadline passes.
ChildOutcome reap(pid_t pid, Clock::time_point deadline, bool output_done) {
  ChildOutcome outcome;
  int status = 0;
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      outcome.kind = ChildOutcome::Kind::failed_to_start;
      outcome.detail = std::strerror(errno);
      return outcome;
    }
    if (!output_done || Clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      outcome.kind = ChildOutcome::Kind::timed_out;
      return outcome;
    }
    usleep(2000);
  }
  if (WIFSIGNALED(status)) {
    outcome.kind = ChildOutcome::Kind::signalled;
    outcome.signal = WTERMSIG(status);
    outcome.detail = signal_name(outcome.signal);
  } else {
    outcome.kind = ChildOutcome::Kind::exited;
    outcome.exit_code = WEXITSTATUS(status);
  }
  return outcome;
}

}  // namespace

ChildOutcome run_child(const std::string& executable, const std::vector<std::string>& arguments,
                       std::chrono::milliseconds timeout, size_t max_output) {
  ChildOutcome failed;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    failed.detail = std::strerror(errno);
    return failed;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);

  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(executable.c_str()));
  for (const auto& a : arguments)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    failed.detail = std::strerror(spawned);
    return failed;
  }
  const auto deadline = Clock::now() + timeout;
  std::string output;
  const bool output_done = drain(pipe_fds[0], output, max_output, deadline);
  close(pipe_fds[0]);
  ChildOutcome outcome = reap(pid, deadline, output_done);
  outcome.output = std::move(output);
  return outcome;
}

}  // namespace gpuvet::gpu
