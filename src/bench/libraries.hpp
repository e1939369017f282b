#pragma once
// The library names verify and bench load, per platform (libraries_<platform>.cpp): cuBLAS,
// cuDNN and a CPU BLAS, newest major first. The CUDA driver's and NVML's names are the native
// query's (gpu/library_names.hpp).
#include <string>
#include <vector>

namespace gpuvet::bench {

std::vector<std::string> cublas_names();
std::vector<std::string> cudnn_names();
// With what to call each in a result's detail: "OpenBLAS", "the reference BLAS".
std::vector<std::pair<std::string, std::string>> cpu_blas_names();

}  // namespace gpuvet::bench
