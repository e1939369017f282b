#include <dlfcn.h>
#include <link.h>

#include "platform/dynlib.hpp"

namespace gpuvet::platform {

Result<DynamicLibrary> DynamicLibrary::open(const std::string& name) {
  dlerror();
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return make_error(why ? why : name + ": cannot be loaded");
  }
  return DynamicLibrary(handle);
}

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

}  // namespace gpuvet::platform
