#pragma once
// Writing a file a user asked for without being led elsewhere by what is already there
// (new_file_<platform>.cpp): a symbolic link planted at the name is never followed, so its target
// (an outside file, or the place a dangling link points to) is neither overwritten nor created.
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace gpuvet {

// Creates the file with these bytes. replace false: refused when the name exists in any form
// (file, directory, link, dangling link). replace true: written to a new temporary file in the
// same directory, then renamed over the name, which replaces a link itself, never its target.
// Errors name the file.
Result<bool> write_new_file(const std::string& utf8_path, std::string_view bytes, bool replace);

}  // namespace gpuvet
