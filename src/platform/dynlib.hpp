#pragma once
// Loading a shared library at run time (dlopen / LoadLibrary, in dynlib_<platform>.cpp). Only the
// native-query child process uses this: a broken driver may crash or hang inside these calls.
#include <memory>
#include <optional>
#include <string>

#include "core/result.hpp"

namespace gpuvet::platform {

class DynamicLibrary {
 public:
  // name: a bare name searched the platform's way ("libcuda.so.1") or a path.
  static Result<DynamicLibrary> open(const std::string& name);
  DynamicLibrary(DynamicLibrary&&) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&&) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  void* symbol(const char* name) const;
  // The file the loader actually opened, when the platform can tell.
  std::optional<std::string> path() const;

 private:
  explicit DynamicLibrary(void* handle) : handle_(handle) {}
  void* handle_ = nullptr;
};

}  // namespace gpuvet::platform
