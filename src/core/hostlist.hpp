#pragma once
// Slurm's compressed host lists ("gpu[01-04,07],login1", "rack[1-2]-n[1-3]"), expanded in the
// order Slurm writes them.
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace gpuvet::hostlist {

// More names than any cluster has: a list that expands further is refused, not built.
inline constexpr size_t kMaxNames = 100000;

Result<std::vector<std::string>> expand(std::string_view list);

// The other way: "gpu01 gpu02 gpu03 gpu07 login1" -> "gpu[01-03,07],login1". Names that end in
// digits share a bracket when the rest and the digits' width agree; expand gives the
// same names back (sorted, each once).
std::string compress(std::vector<std::string> names);

}  // namespace gpuvet::hostlist
