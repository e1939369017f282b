#pragma once
// What the solver and the steps both ask of the CUDA tables.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/version.hpp"
#include "kb/kb.hpp"
#include "kb/queries.hpp"

namespace gpuvet::plan {

inline bool older(const std::string& a, const std::string& b) {
  return version::compare(a, b) < 0;
}

// "10" (TensorFlow's Windows table for CUDA 10.0) -> "10.0"; "10.1.243" -> "10.1".
inline std::string cuda_minor(const std::string& cuda) {
  return version::major_minor(cuda);
}

// The releases of a CUDA X.Y in data/cuda_releases.csv, in release order; release candidates and
// previews are not releases to install.
Result<std::vector<kb::Row>> releases_of(const kb::Kb& kb, const std::string& cuda);

}  // namespace gpuvet::plan
