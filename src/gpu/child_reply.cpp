#include "gpu/child_process.hpp"

namespace gpuvet::gpu {

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

}  // namespace gpuvet::gpu
