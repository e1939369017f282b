#pragma once
// Runs a command in a child process with a deadline, capturing its standard output. The child
// may crash or hang; the parent always comes back (child_process_<platform>.cpp).
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::platform {

struct ChildOutcome {
  enum class Kind { exited, signalled, timed_out, failed_to_start };
  Kind kind = Kind::failed_to_start;
  int exit_code = 0;
  int signal = 0;
  std::string output;  // standard output, at most max_output bytes
  std::string detail;  // why it failed to start, or the signal's name
};

// Where the child's standard error goes: nowhere, or into `output` with its standard output (for a
// program whose complaints are the answer, such as a scheduler's client).
enum class ChildStderr { discard, merge };

ChildOutcome run_child(const std::string& executable, const std::vector<std::string>& arguments,
                       std::chrono::milliseconds timeout, size_t max_output = size_t{1} << 20,
                       ChildStderr error_output = ChildStderr::discard);

// A child that answers requests: lines written to its standard input, each reply read from its
// standard output up to a line of its own that ends it. Every reply has a deadline; a child that
// misses one is killed, with everything it started. The child dies with the session, and with
// gpuvet (as run_child's children do).
class ChildSession {
 public:
  virtual ~ChildSession() = default;

  // The reply: the output up to and including the line `end_line`, kind `exited` with exit code
  // 0 while the child lives on. When the child ended (or hung) first, the outcome says how, with
  // what it printed; the session is then over, and every later call says so at once.
  ChildOutcome read_reply(std::string_view end_line, std::chrono::milliseconds timeout);
  // Writes one request line ('\n' added). False when the child is gone.
  virtual bool send(std::string_view line) = 0;
  virtual bool alive() const = 0;

 protected:
  using Clock = std::chrono::steady_clock;
  enum class Read { data, end_of_file, deadline };
  // Appends what the child has written, waiting for it until the deadline at most.
  virtual Read read_some(Clock::time_point deadline, std::string& into) = 0;
  // The child's end after end of file (it ended by itself) or at the deadline (it is killed).
  virtual ChildOutcome finish(Clock::time_point deadline, bool output_done) = 0;

 private:
  std::string pending_;
};

// The first reply in `pending` that ends with a line `end_line` ("\n" or "\r\n" after it), taken
// out of it with that line; nullopt while the reply is not complete (child_reply.cpp).
std::optional<std::string> take_reply(std::string& pending, std::string_view end_line);

// Starts the session, or says (failed_to_start) why it could not.
std::unique_ptr<ChildSession> start_child_session(const std::string& executable,
                                                  const std::vector<std::string>& arguments,
                                                  std::string& why_not);

}  // namespace gpuvet::platform
