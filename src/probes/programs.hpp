#pragma once
// Programs as a shell finds them, from the facts' PATH: the probes that name a compiler use it.
#include <optional>
#include <string>
#include <string_view>

#include "facts/facts.hpp"
#include "system/system.hpp"

namespace gpuvet::probes {

// Whether the path is a regular file (links followed).
bool is_program(const sys::System& system, const std::string& path);

// The first `name` in the PATH's directories, exactly as named.
std::optional<std::string> on_path(const sys::System& system, const Facts& facts,
                                   std::string_view name);

// A command's program: an absolute path that is a file, else a bare name on PATH (on Windows also
// with .exe); a relative path or a name with arguments is no program.
std::optional<std::string> command_program(const sys::System& system, const Facts& facts,
                                           const std::string& command);

}  // namespace gpuvet::probes
