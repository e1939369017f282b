#pragma once
// Who owns a file gpuvet might move aside: a package manager (dpkg, rpm, conda, pip), Windows
// or another product (data/fix_protected_files.csv). A file with an owner is never moved: its
// owner would put it back, or break without it.
#include <optional>
#include <string>

#include "facts/facts.hpp"
#include "kb/kb.hpp"
#include "system/system.hpp"

namespace gpuvet::fix {

struct Owner {
  std::string who;          // "dpkg package libcudnn8", "pip package nvidia-cudnn-cu11" ...
  std::string instead_key;  // a message key: what to do instead
  std::string package;      // the package to remove or upgrade, where there is one
};

Result<std::optional<Owner>> owner_of(const sys::System& system, const Facts& facts,
                                      const kb::Kb& kb, const std::string& path);

// Windows' own folder: gpuvet moves only CUDA and cuDNN libraries out of it, never anything else
// (nvcuda.dll and the driver's other files live there too).
bool movable_from_windows_folder(const std::string& file_name);

}  // namespace gpuvet::fix
