// data/cuda_library_errors.csv against the libraries themselves: where this machine has the CUDA
// runtime, cuDNN, cuBLAS or NCCL of the major version the table was read from, or the driver's
// NVML, each status's name and text must be what the library's own error-string functions
// return. The real dlopen and the real functions are the oracle; none of them needs a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "test_support.hpp"

namespace gpuvet {
namespace {

// A library the test loads and never unloads: after dlclose, LeakSanitizer reports what the
// CUDA libraries' own static initialisers allocated as leaks.
class Library {
 public:
  explicit Library(const char* soname) : handle_(dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {}
  explicit operator bool() const { return handle_ != nullptr; }
  template <typename F>
  F function(const char* symbol) const {
    return handle_ ? reinterpret_cast<F>(dlsym(handle_, symbol)) : nullptr;
  }

 private:
  void* handle_;
};

using StatusText = const char* (*)(int);
using IntVersion = int (*)(int*);
using SizeVersion = size_t (*)();

struct Oracle {
  const char* soname;
  const char* text_function;
  const char* name_function;  // nullptr where the library has none
  int major;                  // of the library the table was read from; -1: any
};

// The major version of the loaded library, or -1 when it cannot say.
int major_of(const Library& lib, std::string_view library) {
  if (library == "cudart") {
    int v = 0;
    auto f = lib.function<IntVersion>("cudaRuntimeGetVersion");
    return f && f(&v) == 0 ? v / 1000 : -1;
  }
  if (library == "cudnn") {
    auto f = lib.function<SizeVersion>("cudnnGetVersion");
    return f ? static_cast<int>(f() / 10000) : -1;
  }
  if (library == "nccl") {
    int v = 0;
    auto f = lib.function<IntVersion>("ncclGetVersion");
    return f && f(&v) == 0 ? v / 10000 : -1;
  }
  return -1;  // cuBLAS: its soname carries the major version; NVML's texts do not change with it
}

TEST(LibraryErrors, TheTablesTextsAreTheLibrariesOwn) {
  const std::map<std::string, Oracle> oracles = {
      {"cudart", {"libcudart.so.13", "cudaGetErrorString", "cudaGetErrorName", 13}},
      {"cudnn", {"libcudnn.so.9", "cudnnGetErrorString", nullptr, 9}},
      {"cublas", {"libcublas.so.13", "cublasGetStatusString", "cublasGetStatusName", -1}},
      {"nvml", {"libnvidia-ml.so.1", "nvmlErrorString", nullptr, -1}},
      {"cusparse", {"libcusparse.so.12", "cusparseGetErrorString", "cusparseGetErrorName", -1}},
      {"nccl", {"libnccl.so.2", "ncclGetErrorString", nullptr, 2}},
  };
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  size_t compared = 0;
  for (const auto& [library, oracle] : oracles) {
    const Library lib(oracle.soname);
    if (!lib || (oracle.major != -1 && major_of(lib, library) != oracle.major)) continue;
    auto text = lib.function<StatusText>(oracle.text_function);
    auto name = oracle.name_function ? lib.function<StatusText>(oracle.name_function) : nullptr;
    ASSERT_NE(text, nullptr) << oracle.soname;
    for (size_t row = 0; row < t.size(); ++row) {
      if (t.cell(row, "library") != library) continue;
      const int code = std::stoi(t.cell(row, "code"));
      EXPECT_EQ(text(code), t.cell(row, "message")) << library << " " << code;
      if (name) {
        EXPECT_EQ(name(code), t.cell(row, "name")) << library << " " << code;
      }
      ++compared;
    }
  }
  if (compared == 0) GTEST_SKIP() << "none of the CUDA libraries the table was read from is here";
}

}  // namespace
}  // namespace gpuvet
