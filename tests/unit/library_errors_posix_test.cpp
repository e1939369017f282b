// data/cuda_library_errors.csv against the libraries themselves: where this machine has the CUDA
// runtime, cuDNN, cuBLAS, NVRTC or NCCL of the major version the table was read from, or the
// driver's NVML and libcuda, each status's name and text must be what the library's own
// error-string functions return; where it has the toolkit's cuda.h of that version, the driver
// API's rows must be its CUresult enum. The real dlopen, the real functions and the real header are
// the oracle; none of them needs a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
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
  if (library == "nvrtc") {
    int major = 0, minor = 0;
    auto f = lib.function<int (*)(int*, int*)>("nvrtcVersion");
    return f && f(&major, &minor) == 0 ? major : -1;
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
      {"nvrtc", {"libnvrtc.so.13", "nvrtcGetErrorString", nullptr, 13}},
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

using ErrorName = int (*)(int, const char**);

// libcuda comes with the driver, so its name for each CUresult is compared wherever a driver is
// installed; the toolkit's stub libcuda answers no status and is not on the loader's path.
TEST(LibraryErrors, TheDriverApisNamesAreLibcudasOwn) {
  const Library lib("libcuda.so.1");
  auto name = lib.function<ErrorName>("cuGetErrorName");
  if (!name) GTEST_SKIP() << "no libcuda.so.1 (no NVIDIA driver) here";
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  size_t compared = 0;
  for (size_t row = 0; row < t.size(); ++row) {
    if (t.cell(row, "library") != "cuda_driver") continue;
    const char* text = nullptr;
    // A driver older than the table's CUDA 13 does not know the newest codes.
    if (name(std::stoi(t.cell(row, "code")), &text) != 0 || text == nullptr) continue;
    EXPECT_EQ(std::string(text), t.cell(row, "name")) << t.cell(row, "code");
    ++compared;
  }
  EXPECT_GT(compared, 50u);
}

// The toolkit's cuda.h: $CUDA_HOME's, else /usr/local/cuda's.
std::string cuda_header() {
  const char* home = std::getenv("CUDA_HOME");
  std::ifstream in(std::string(home && *home ? home : "/usr/local/cuda") + "/include/cuda.h");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// CUresult's members, "CUDA_ERROR_NO_DEVICE = 100," one per line, code to name.
std::map<int, std::string> curesult_enum(const std::string& header) {
  std::map<int, std::string> members;
  const size_t begin = header.find("typedef enum cudaError_enum");
  const size_t end = header.find("} CUresult;", begin);
  if (begin == std::string::npos || end == std::string::npos) return members;
  std::istringstream body(header.substr(begin, end - begin));
  for (std::string line; std::getline(body, line);) {
    std::istringstream words(line);
    std::string name, equals;
    int code = 0;
    if (words >> name >> equals >> code && name.starts_with("CUDA_") && equals == "=")
      members[code] = name;
  }
  return members;
}

TEST(LibraryErrors, TheDriverApisRowsAreTheToolkitsCuresultEnum) {
  const std::string header = cuda_header();
  if (header.find("#define CUDA_VERSION 13000") == std::string::npos)
    GTEST_SKIP() << "no cuda.h of CUDA 13.0, which the table was read from, here";
  std::map<int, std::string> members = curesult_enum(header);
  ASSERT_EQ(members.erase(0), 1u) << "CUDA_SUCCESS";
  std::map<int, std::string> rows;
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  for (size_t row = 0; row < t.size(); ++row) {
    if (t.cell(row, "library") == "cuda_driver")
      rows[std::stoi(t.cell(row, "code"))] = t.cell(row, "name");
  }
  EXPECT_EQ(rows, members);
  EXPECT_GT(rows.size(), 90u);
}

}  // namespace
}  // namespace gpuvet
