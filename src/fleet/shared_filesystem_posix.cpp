#include <sys/vfs.h>

#include <cstdint>
#include <utility>

#include "fleet/shared_filesystem.hpp"

namespace gpuvet::fleet {

namespace {

// f_type magic numbers of the filesystems clusters share (linux/magic.h, and each filesystem's
// own sources for those outside the kernel).
constexpr std::pair<std::uint32_t, const char*> kNetworkFilesystems[] = {
    {0x6969, "nfs"},       {0x0BD00BD0, "lustre"}, {0x47504653, "gpfs"}, {0x19830326, "beegfs"},
    {0xFF534D42, "cifs"},  {0xFE534D42, "smb2"},   {0x00C36400, "ceph"}, {0xAAD7AAEA, "panfs"},
    {0x013111A8, "ibrix"}, {0x6B414653, "afs"},    {0x5346414F, "afs"},  {0x47FD1A17, "orangefs"},
    {0x7461636f, "ocfs2"}, {0x01161970, "gfs2"},
};

}  // namespace

std::optional<std::string> network_filesystem(const std::string& path) {
  struct statfs info {};
  if (statfs(path.c_str(), &info) != 0) return std::nullopt;
  const auto type = static_cast<std::uint32_t>(info.f_type);
  for (const auto& [magic, name] : kNetworkFilesystems) {
    if (magic == type) return std::string(name);
  }
  return std::nullopt;
}

}  // namespace gpuvet::fleet
