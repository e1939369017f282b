// The loader oracle: asks the real dynamic loader which file it loads for a name.
//   gvo_oracle NAME                 dlopen(NAME) from this executable
//   gvo_oracle --from MODULE NAME   dlopen(MODULE), then MODULE's gvo_module_open(NAME), so that
//                                   MODULE is the caller whose RPATH/RUNPATH apply
// Prints two lines: the name the loader opened (link_map l_name) and its realpath(), or "NULL"
// and dlerror(). Exit status 0 when it answered, 2 for a usage error or a MODULE that does not
// load.
#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using ModuleOpen = const char* (*)(const char*);

int answer(const char* loaded) {
  if (loaded == nullptr) {
    const char* error = dlerror();
    std::printf("NULL\n%s\n", error ? error : "");
    return 0;
  }
  char real[PATH_MAX];
  std::printf("%s\n%s\n", loaded, realpath(loaded, real) ? real : "?");
  return 0;
}

const char* open_directly(const char* name) {
  void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return nullptr;
  return map->l_name;
}

int open_from(const char* module, const char* name) {
  void* handle = dlopen(module, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "gvo_oracle: %s\n", dlerror());
    return 2;
  }
  void* symbol = dlsym(handle, "gvo_module_open");
  if (symbol == nullptr) {
    std::fprintf(stderr, "gvo_oracle: %s has no gvo_module_open\n", module);
    return 2;
  }
  ModuleOpen open = nullptr;
  std::memcpy(&open, &symbol, sizeof open);
  return answer(open(name));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2) return answer(open_directly(argv[1]));
  if (argc == 4 && std::strcmp(argv[1], "--from") == 0) return open_from(argv[2], argv[3]);
  std::fprintf(stderr, "usage: gvo_oracle [--from MODULE] NAME\n");
  return 2;
}
