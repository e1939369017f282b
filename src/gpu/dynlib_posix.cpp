#include <dlfcn.h>
#include <link.h>

#include "gpu/dynlib.hpp"

namespace gpuvet::gpu {

Result<DynamicLibrary> DynamicLibrary::open(const std::string& name) {
  dlerror();
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return make_error(why ? why : name + ": cannot be loaded");
  }
  return DynamicLibrary(handle);
}

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

void* DynamicLibrary::symbol(const char* name) const {
  return handle_ ? dlsym(handle_, name) : nullptr;
}

std::optional<std::string> DynamicLibrary::path() const {
  link_map* map = nullptr;
  if (!handle_ || dlinfo(handle_, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name) {
    return std::nullopt;
  }
  return std::string(map->l_name);
}

}  // namespace gpuvet::gpu
