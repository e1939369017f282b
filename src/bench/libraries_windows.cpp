// The DLL names of the libraries bench loads on Windows, newest major first. cuBLAS: the
// "cublas" rows of data/library_names.csv (= shared/reference/windows_dll_names.csv): cublas64_11
// for CUDA 11.x, cublas64_12 for 12.x, cublas64_13 for 13.0. cuDNN: the windows column of
// data/cudnn_releases.csv (cudnn64_<major>.dll). OpenBLAS: the name its Windows release
// archives ship in bin/ (not in either table).
#include "bench/libraries.hpp"

namespace gpuvet::bench {

std::vector<std::string> cublas_names() {
  return {"cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll"};
}

std::vector<std::string> cudnn_names() {
  return {"cudnn64_9.dll", "cudnn64_8.dll", "cudnn64_7.dll"};
}

std::vector<std::pair<std::string, std::string>> cpu_blas_names() {
  return {{"libopenblas.dll", "OpenBLAS"}};
}

}  // namespace gpuvet::bench
