#pragma once
// The version of one copy of the CUDA runtime or of cuDNN, from what the other probes already know:
// the file's own name or version resource, the cuDNN found in its folder, the toolkit holding it.
#include <optional>
#include <string>

#include "facts/facts.hpp"

namespace gpuvet::probes {

// `name` is the library asked for (cudnn64_7.dll, libcudnn.so.8, cudart64_101.dll ...), `path`
// the copy, `file_version` what its file said (the name at the end of the link chain on Linux,
// the PE version resource on Windows). Other libraries keep `file_version`. Unknown is nullopt:
// a Windows version resource such as 6.14.11.7065 is NVIDIA's file numbering, not cuDNN's.
std::optional<std::string> copy_version(const Facts& facts, const std::string& name,
                                        const std::string& path,
                                        const std::optional<std::string>& file_version);

}  // namespace gpuvet::probes
