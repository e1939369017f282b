#include "platform/child_process.hpp"

namespace gpuvet::platform {

std::optional<std::string> take_reply(std::string& pending, std::string_view end_line) {
  for (size_t at = 0; at <= pending.size();) {
    const size_t found = pending.find(end_line, at);
    if (found == std::string::npos) return std::nullopt;
    const bool line_start = found == 0 || pending[found - 1] == '\n';
    size_t after = found + end_line.size();
    if (after < pending.size() && pending[after] == '\r') ++after;
    if (line_start && after < pending.size() && pending[after] == '\n') {
      std::string reply = pending.substr(0, after + 1);
      pending.erase(0, after + 1);
      return reply;
    }
    at = found + 1;
  }
  return std::nullopt;
}

ChildOutcome ChildSession::read_reply(std::string_view end_line,
                                      std::chrono::milliseconds timeout) {
  // The most of one reply that is kept.
  constexpr size_t kMaxReply = size_t{1} << 20;
  if (!alive()) {
    ChildOutcome over;
    over.detail = "the child has ended";
    return over;
  }
  const auto deadline = Clock::now() + timeout;
  std::string chunk;
  while (true) {
    if (auto reply = take_reply(pending_, end_line)) {
      ChildOutcome outcome;
      outcome.kind = ChildOutcome::Kind::exited;
      outcome.output = std::move(*reply);
      return outcome;
    }
    chunk.clear();
    const Read read = read_some(deadline, chunk);
    if (pending_.size() < kMaxReply) pending_ += chunk;
    if (read == Read::data) continue;
    // At the deadline, what the child has written by now still names its last stage.
    while (read == Read::deadline && pending_.size() < kMaxReply) {
      chunk.clear();
      if (read_some(Clock::now(), chunk) != Read::data) break;
      pending_ += chunk;
    }
    ChildOutcome outcome = finish(deadline, read == Read::end_of_file);
    outcome.output = std::move(pending_);
    pending_.clear();
    return outcome;
  }
}

}  // namespace gpuvet::platform
