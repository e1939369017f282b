#pragma once
// The device as JSON, one way for the child that prints it, the parent that reads it and the
// renderer of gpuvet.bench/1.
#include <nlohmann/json.hpp>

#include "bench/bench.hpp"

namespace gpuvet::bench {

nlohmann::ordered_json device_to_json(const DeviceInfo& device);
// Missing or null fields stay unknown.
DeviceInfo device_from_json(const nlohmann::json& j);

}  // namespace gpuvet::bench
