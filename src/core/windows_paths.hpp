#pragma once
// Paths as a Windows user reads them. Every System spells paths with '/' (core/paths.hpp), so
// the knowledge of a Windows machine reaches the renderers as "C:/Program Files/…"; what is
// printed about a Windows machine, or for `--os windows`, passes through in_text() once, at the
// rendering edge (JSON keeps the documented '/' form).
#include <string>
#include <string_view>

namespace gpuvet::windows_paths {

// "C:/Program Files/x" -> "C:\Program Files\x"; a path with no drive letter too ("Library/bin").
std::string native(std::string_view path);

// Every absolute Windows path in a text, with its separators turned into backslashes:
// "toolkit at C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1\bin (10.1)" ->
// "toolkit at C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v10.1\bin (10.1)".
// A path starts at a drive letter ("C:/", "d:\") that follows no letter or digit, so URLs
// ("https://…") and Linux paths stay as they are. It runs through spaces ("Program Files",
// "NVIDIA GPU Computing Toolkit") as long as another separator follows within a few words, and
// ends at a character no Windows file name holds (: " < > | ? and control characters), at ; or
// ", ", at a ')' it did not open, or at two spaces.
std::string in_text(std::string_view text);

}  // namespace gpuvet::windows_paths
