#include "fix/fix.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>

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

Checksum checksum_of(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t done = 0;
  while (done < bytes.size()) {
    const auto piece = static_cast<uInt>(std::min<size_t>(bytes.size() - done, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), piece);
    done += piece;
  }
  return Checksum{static_cast<std::uint32_t>(crc), bytes.size()};
}

std::string to_string(const Checksum& sum) {
  return fmt::format("crc32 {:08x}, {} bytes", sum.crc32, sum.size);
}

}  // namespace gpuvet::fix
