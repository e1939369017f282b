#include "fix/fix.hpp"

namespace gpuvet::fix {

namespace {
constexpr std::pair<ActionKind, std::string_view> kKinds[] = {
    {ActionKind::edit_line, "edit_line"},
    {ActionKind::write_file, "write_file"},
    {ActionKind::move_file, "move_file"},
    {ActionKind::set_registry, "set_registry"},
    {ActionKind::set_env_persistent, "set_env_persistent"}};
}  // namespace

std::string_view to_string(ActionKind kind) {
  for (const auto& [k, name] : kKinds) {
    if (k == kind) return name;
  }
  return "edit_line";
}

std::optional<ActionKind> action_kind_from_string(std::string_view text) {
  for (const auto& [k, name] : kKinds) {
    if (name == text) return k;
  }
  return std::nullopt;
}

}  // namespace gpuvet::fix
