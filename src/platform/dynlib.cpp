// What DynamicLibrary does the same on every platform; opening and symbols are in
// dynlib_<platform>.cpp.
#include <utility>

#include "platform/dynlib.hpp"

namespace gpuvet::platform {

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept : handle_(other.handle_) {
  other.handle_ = nullptr;
}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  std::swap(handle_, other.handle_);
  return *this;
}

// Libraries stay loaded: unloading a GPU driver mid-process is a known source of crashes, and
// the child process that loads them exits right after.
DynamicLibrary::~DynamicLibrary() = default;

}  // namespace gpuvet::platform
