#pragma once
// The library names verify and bench load, per platform (libraries_<platform>.cpp): the CUDA
// driver, NVML, cuBLAS, cuDNN and a CPU BLAS, newest major first.
#include <string>
#include <vector>

namespace gpuvet::bench {

std::string cuda_driver_library();
std::string nvml_library();
std::vector<std::string> cublas_names();
std::vector<std::string> cudnn_names();
// With what to call each in a result's detail: "OpenBLAS", "the reference BLAS".
std::vector<std::pair<std::string, std::string>> cpu_blas_names();

}  // namespace gpuvet::bench
