#pragma once
// The real location of a path, following symbolic links through the System (so it works the
// same on a live machine and on a snapshot).
#include <string>
#include <string_view>

#include "system/system.hpp"

namespace gpuvet::sys {

// Follows every link in every component, as the kernel does (".." after a link is taken in the
// link's target), at most 40 links (MAXSYMLINKS). Parts that do not exist are kept as written.
std::string real_path(const System& system, std::string_view path);

}  // namespace gpuvet::sys
