#include "bench/bench_json.hpp"

namespace gpuvet::bench {

namespace {

template <class T>
nlohmann::ordered_json or_null(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

template <class T>
std::optional<T> optional_field(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<T>();
}

}  // namespace

nlohmann::ordered_json device_to_json(const DeviceInfo& d) {
  return {{"index", d.index},
          {"name", d.name},
          {"compute_capability", d.compute_capability},
          {"driver", d.driver},
          {"cuda_driver_version", or_null(d.cuda_driver_version)},
          {"multiprocessors", or_null(d.multiprocessors)},
          {"clock_mhz", or_null(d.clock_mhz)},
          {"memory_clock_mhz", or_null(d.memory_clock_mhz)},
          {"memory_bus_width", or_null(d.memory_bus_width)},
          {"memory_bytes", or_null(d.memory_bytes)},
          {"l2_cache_bytes", or_null(d.l2_cache_bytes)},
          {"pcie_generation", or_null(d.pcie_generation)},
          {"pcie_width", or_null(d.pcie_width)},
          {"ecc", or_null(d.ecc)},
          {"compute_mode", or_null(d.compute_mode)},
          {"driver_model", or_null(d.driver_model)}};
}

DeviceInfo device_from_json(const nlohmann::json& j) {
  DeviceInfo d;
  d.index = j.value("index", 0);
  d.name = j.value("name", "");
  d.compute_capability = j.value("compute_capability", "");
  d.driver = j.value("driver", "");
  d.cuda_driver_version = optional_field<std::string>(j, "cuda_driver_version");
  d.multiprocessors = optional_field<int>(j, "multiprocessors");
  d.clock_mhz = optional_field<int>(j, "clock_mhz");
  d.memory_clock_mhz = optional_field<int>(j, "memory_clock_mhz");
  d.memory_bus_width = optional_field<int>(j, "memory_bus_width");
  d.memory_bytes = optional_field<long long>(j, "memory_bytes");
  d.l2_cache_bytes = optional_field<int>(j, "l2_cache_bytes");
  d.pcie_generation = optional_field<int>(j, "pcie_generation");
  d.pcie_width = optional_field<int>(j, "pcie_width");
  d.ecc = optional_field<bool>(j, "ecc");
  d.compute_mode = optional_field<std::string>(j, "compute_mode");
  d.driver_model = optional_field<std::string>(j, "driver_model");
  return d;
}

}  // namespace gpuvet::bench
