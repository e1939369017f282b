#pragma once
// The device as JSON, one way for the child that prints it, the parent that reads it and the
// renderer of gpuvet.bench/1.
#include <nlohmann/json.hpp>
#include <optional>

#include "bench/bench.hpp"
#include "core/json_fields.hpp"

namespace gpuvet {

template <>
struct JsonFields<bench::DeviceInfo> {
  using T = bench::DeviceInfo;
  static constexpr auto fields = std::make_tuple(
      json_field("index", &T::index).within(0, 4096), json_field("name", &T::name),
      json_field("compute_capability", &T::compute_capability), json_field("driver", &T::driver),
      json_field("cuda_driver_version", &T::cuda_driver_version),
      json_field("multiprocessors", &T::multiprocessors), json_field("clock_mhz", &T::clock_mhz),
      json_field("memory_clock_mhz", &T::memory_clock_mhz),
      json_field("memory_bus_width", &T::memory_bus_width),
      json_field("memory_bytes", &T::memory_bytes),
      json_field("l2_cache_bytes", &T::l2_cache_bytes),
      json_field("pcie_generation", &T::pcie_generation), json_field("pcie_width", &T::pcie_width),
      json_field("ecc", &T::ecc), json_field("compute_mode", &T::compute_mode),
      json_field("driver_model", &T::driver_model));
};

namespace bench {

nlohmann::ordered_json device_to_json(const DeviceInfo& device);
// Missing or null fields stay unknown; nullopt when a field has the wrong type (a child that
// printed garbage tells nothing about the device).
std::optional<DeviceInfo> device_from_json(const nlohmann::json& j);

// Words in the catalog's terms over the child's pipe: {"key", "args": {name: value}, "context":
// [{"key", "args"}, ...]}. Reading keeps `english` as the message; a malformed value gives an
// Error with `english` alone.
nlohmann::json words_to_json(const Error& words);
Error words_from_json(const nlohmann::json& j, std::string english);

}  // namespace bench
}  // namespace gpuvet
