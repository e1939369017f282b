#include "system/real_path.hpp"

#include "core/paths.hpp"
#include "core/text.hpp"

namespace gpuvet::sys {

namespace {
// The kernel's MAXSYMLINKS.
constexpr int kMaxLinks = 40;
}  // namespace

std::string real_path(const System& system, std::string_view path) {
  const std::string normalized = paths::normalize(path);
  if (!paths::is_absolute(normalized)) return normalized;
  const bool posix = normalized.starts_with('/');
  std::vector<std::string> done;
  std::vector<std::string> todo;  // a stack: the next component is at the back
  const auto push_components = [&todo](const std::string& p) {
    const auto parts = text::split(p, '/');
    for (auto it = parts.rbegin(); it != parts.rend(); ++it)
      todo.push_back(*it);
  };
  const auto joined = [&done, posix] {
    return posix ? "/" + text::join(done, "/") : text::join(done, "/");
  };
  push_components(normalized);
  int hops = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.back());
    todo.pop_back();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      // Above the root is the root; a Windows drive ("C:") stays.
      if (done.size() > (posix ? 0u : 1u)) done.pop_back();
      continue;
    }
    done.push_back(std::move(part));
    if (hops >= kMaxLinks || (!posix && done.size() == 1)) continue;
    const auto info = system.file_info(joined());
    if (!info || !info->link_target) continue;
    ++hops;
    done.pop_back();
    const std::string target = paths::normalize(*info->link_target);
    if (paths::is_absolute(target)) done.clear();
    push_components(target);
  }
  return joined();
}

}  // namespace gpuvet::sys
