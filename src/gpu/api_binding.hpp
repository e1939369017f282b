#pragma once
// A typed function-pointer struct per entry-point table of driver_apis.hpp, bound from a loaded
// library: Name::bind(lib) fills every pointer it finds and lists the required ones it does not.
// The table's types must be visible where GPUVET_DEFINE_API is used.
#include <string>
#include <vector>

#include "gpu/driver_apis.hpp"
#include "platform/dynlib.hpp"

#define GPUVET_API_DECLARE(name, ret, params, required) ret(*name) params = nullptr;
#define GPUVET_API_BIND(name, ret, params, required)             \
  api.name = reinterpret_cast<ret(*) params>(lib.symbol(#name)); \
  if (!api.name && (required)) api.missing.push_back(#name);
#define GPUVET_DEFINE_API(Name, TABLE)                                \
  struct Name {                                                       \
    TABLE(GPUVET_API_DECLARE)                                         \
    std::vector<std::string> missing;                                 \
    static Name bind(const ::gpuvet::platform::DynamicLibrary& lib) { \
      Name api;                                                       \
      TABLE(GPUVET_API_BIND)                                          \
      return api;                                                     \
    }                                                                 \
  };
