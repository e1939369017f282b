#pragma once
// Whether a file lies on a filesystem every node of a cluster sees (NFS, Lustre, GPFS ...), so
// that `fleet collect` can run gpuvet where it is instead of copying it to each node
// (shared_filesystem_<platform>.cpp).
#include <optional>
#include <string>

namespace gpuvet::fleet {

// The network filesystem's name ("nfs", "lustre" ...), or nullopt for a local one, or when the
// kind cannot be told.
std::optional<std::string> network_filesystem(const std::string& path);

}  // namespace gpuvet::fleet
