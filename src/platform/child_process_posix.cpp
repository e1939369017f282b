// The child runs in a process group of its own, so that a deadline kills it together with
// whatever it started, and (on Linux) it dies with gpuvet: PR_SET_PDEATHSIG survives execve, so
// a `__native-query` stuck in a driver call or an `nvcc --version` is killed when gpuvet is,
// even by SIGKILL, instead of living on under init.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <cstring>
#include <string>

#include "platform/child_process.hpp"

extern char** environ;

namespace gpuvet::platform {

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

// How long a killed child may take to go: one stuck inside a kernel driver may not go at all,
// and the parent must still come back.
constexpr auto kKillWait = std::chrono::milliseconds(2000);

// Kills the child's process group (the child and whatever it started) while the child is not yet
// reaped, so that its pid, which names the group, cannot have been reused.
void kill_group(pid_t pid) {
  kill(-pid, SIGKILL);
}

// Reaps a killed child, waiting at most kKillWait.
void reap_killed(pid_t pid, int& status) {
  const auto give_up = Clock::now() + kKillWait;
  while (waitpid(pid, &status, WNOHANG) == 0 && Clock::now() < give_up)
    usleep(2000);
}

// True once the child has ended; it stays unreaped (WNOWAIT) so that its group can be killed.
bool has_ended(pid_t pid) {
  siginfo_t info{};
  info.si_pid = 0;
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno != EINTR) return true;
  }
  return info.si_pid == pid;
}

// Waits for the child until the deadline; kills its group when the deadline passes. After a
// normal end too, what the child left running in its group goes.
ChildOutcome reap(pid_t pid, Clock::time_point deadline, bool output_done) {
  ChildOutcome outcome;
  int status = 0;
  while (!has_ended(pid)) {
    if (!output_done || Clock::now() >= deadline) {
      kill_group(pid);
      reap_killed(pid, status);
      outcome.kind = ChildOutcome::Kind::timed_out;
      return outcome;
    }
    usleep(2000);
  }
  kill_group(pid);
  if (waitpid(pid, &status, 0) != pid) {
    outcome.kind = ChildOutcome::Kind::failed_to_start;
    outcome.detail = std::strerror(errno);
    return outcome;
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

// Between fork and exec only async-signal-safe calls: set up the descriptors, leave gpuvet's
// process group, ask to die with the parent, make sure the parent has not died already (it may
// have before the request), then exec. A failure writes errno to `report` and exits.
[[noreturn]] void become_child(const char* executable, char* const* argv, int in, int out,
                               bool merge_error, int report, pid_t parent) {
  const int null_in = in >= 0 ? in : open("/dev/null", O_RDONLY);
  const int null_out = open("/dev/null", O_WRONLY);
  int error = 0;
  if (null_in < 0 || null_out < 0 || dup2(null_in, STDIN_FILENO) < 0 ||
      dup2(out, STDOUT_FILENO) < 0 || dup2(merge_error ? out : null_out, STDERR_FILENO) < 0 ||
      setpgid(0, 0) != 0) {
    error = errno;
  }
#if defined(__linux__)
  if (error == 0 && prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) error = errno;
#endif
  if (error == 0 && getppid() != parent) _exit(127);
  if (error == 0) {
    execve(executable, argv, environ);
    error = errno;
  }
  while (write(report, &error, sizeof error) < 0 && errno == EINTR) {
  }
  _exit(127);
}

// What the exec-failure pipe says: 0 when the child reached execve (the pipe closed on exec).
int exec_error(int report) {
  int error = 0;
  ssize_t n = 0;
  do {
    n = read(report, &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof error) ? error : 0;
}

// A started child: its pid and the parent's ends of its pipes.
struct Spawned {
  pid_t pid = -1;
  int out = -1;  // its standard output
  int in = -1;   // its standard input, when asked for
  std::string error;
};

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

Spawned spawn(const std::string& executable, const std::vector<std::string>& arguments,
              bool with_input, bool merge_error = false) {
  Spawned spawned;
  int out[2] = {-1, -1};
  int report[2] = {-1, -1};
  int in[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0 ||
      (with_input && pipe2(in, O_CLOEXEC) != 0)) {
    spawned.error = std::strerror(errno);
    for (int* fd : {&out[0], &out[1], &report[0], &report[1], &in[0], &in[1]})
      close_fd(*fd);
    return spawned;
  }
  // Everything the child needs is built before fork: it may not allocate.
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(executable.c_str()));
  for (const auto& a : arguments)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid == 0)
    become_child(executable.c_str(), argv.data(), in[0], out[1], merge_error, report[1], parent);
  const int fork_error = errno;
  close_fd(out[1]);
  close_fd(report[1]);
  close_fd(in[0]);
  if (pid < 0) {
    for (int* fd : {&out[0], &report[0], &in[1]})
      close_fd(*fd);
    spawned.error = std::strerror(fork_error);
    return spawned;
  }
  // Also from this side, so that a kill of the group at a deadline cannot miss a child that has
  // not run its own setpgid yet (EACCES once it has exec'd: then it did).
  setpgid(pid, pid);
  const int error = exec_error(report[0]);
  close_fd(report[0]);
  if (error != 0) {
    close_fd(out[0]);
    close_fd(in[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    spawned.error = std::strerror(error);
    return spawned;
  }
  spawned.pid = pid;
  spawned.out = out[0];
  spawned.in = in[1];
  return spawned;
}

class PosixChildSession final : public ChildSession {
 public:
  explicit PosixChildSession(Spawned spawned) : child_(spawned) {}
  ~PosixChildSession() override { end(); }
  PosixChildSession(const PosixChildSession&) = delete;
  PosixChildSession& operator=(const PosixChildSession&) = delete;

  bool send(std::string_view line) override {
    if (!alive() || child_.in < 0) return false;
    std::string text(line);
    text += '\n';
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(child_.in, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  bool alive() const override { return child_.pid > 0; }

 protected:
  Read read_some(Clock::time_point deadline, std::string& into) override {
    char buffer[16384];
    while (true) {
      pollfd p{child_.out, POLLIN, 0};
      const int ready = poll(&p, 1, remaining_ms(deadline));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) return Read::deadline;
      const ssize_t n = ready < 0 ? 0 : read(child_.out, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Read::end_of_file;
      into.append(buffer, static_cast<size_t>(n));
      return Read::data;
    }
  }

  ChildOutcome finish(Clock::time_point deadline, bool output_done) override {
    close_fd(child_.in);
    close_fd(child_.out);
    ChildOutcome outcome = reap(child_.pid, deadline, output_done);
    child_.pid = -1;
    return outcome;
  }

 private:
  // Closing its input tells the child to go; it gets a moment, then its group is killed.
  void end() {
    if (!alive()) return;
    close_fd(child_.in);
    close_fd(child_.out);
    int status = 0;
    const auto give_up = Clock::now() + std::chrono::milliseconds(200);
    while (!has_ended(child_.pid) && Clock::now() < give_up)
      usleep(1000);
    kill_group(child_.pid);
    reap_killed(child_.pid, status);
    child_.pid = -1;
  }

  Spawned child_;
};

}  // namespace

std::unique_ptr<ChildSession> start_child_session(const std::string& executable,
                                                  const std::vector<std::string>& arguments,
                                                  std::string& why_not) {
  // A child that stops reading must not kill gpuvet with SIGPIPE: a write fails instead.
  signal(SIGPIPE, SIG_IGN);
  Spawned spawned = spawn(executable, arguments, true);
  if (spawned.pid < 0) {
    why_not = spawned.error;
    return nullptr;
  }
  return std::make_unique<PosixChildSession>(spawned);
}

ChildOutcome run_child(const std::string& executable, const std::vector<std::string>& arguments,
                       std::chrono::milliseconds timeout, size_t max_output,
                       ChildStderr error_output) {
  Spawned spawned = spawn(executable, arguments, false, error_output == ChildStderr::merge);
  if (spawned.pid < 0) {
    ChildOutcome failed;
    failed.detail = spawned.error;
    return failed;
  }
  const auto deadline = Clock::now() + timeout;
  std::string output;
  const bool output_done = drain(spawned.out, output, max_output, deadline);
  ChildOutcome outcome = reap(spawned.pid, deadline, output_done);
  // What a killed child wrote just before the deadline is still in the pipe: its last stage.
  if (!output_done) drain(spawned.out, output, max_output, Clock::now());
  close_fd(spawned.out);
  outcome.output = std::move(output);
  return outcome;
}

}  // namespace gpuvet::platform
