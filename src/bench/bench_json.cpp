#include "bench/bench_json.hpp"

namespace gpuvet::bench {

nlohmann::ordered_json device_to_json(const DeviceInfo& d) {
  return fields_to_json<nlohmann::ordered_json>(d, Absent::as_null);
}

std::optional<DeviceInfo> device_from_json(const nlohmann::json& j) {
  try {
    return record_from_json<DeviceInfo>(j, "device");
  } catch (const JsonFieldError&) {
    return std::nullopt;
  }
}

}  // namespace gpuvet::bench
