#include "bench/libraries.hpp"

namespace gpuvet::bench {

std::vector<std::string> cublas_names() {
  return {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"};
}

std::vector<std::string> cudnn_names() {
  return {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so.7"};
}

std::vector<std::pair<std::string, std::string>> cpu_blas_names() {
  return {{"libopenblas.so.0", "OpenBLAS"},
          {"libblis.so.4", "BLIS"},
          {"libblas.so.3", "the system BLAS (libblas.so.3)"}};
}

}  // namespace gpuvet::bench
