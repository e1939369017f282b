// A loading module for the oracle: it dlopen()s a name itself, so that ld.so searches with this
// module as the caller (its DT_RPATH or DT_RUNPATH, its $ORIGIN). The dlinfo() call after dlopen()
// keeps the compiler from turning the dlopen() into a tail call, which would make the executable
// the caller.
#include <dlfcn.h>
#include <link.h>

extern "C" const char* gvo_module_open(const char* name) {
  void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return nullptr;
  return map->l_name;  // valid while the library stays loaded, which is until the process exits
}
